package io.files2iceberg.batcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.sql.SqlProcess.Run;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.ledger.firestore.FirestoreEmulator;
import io.files2iceberg.ledger.firestore.FirestoreEmulatorExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sql} on the ledger's tables when the deployment names the Firestore ledger (on the Cloud
 * Firestore emulator): the CLI opens that ledger, not the home's, as {@code status} does. The home
 * is fresh: nothing but {@code sql} creates it.
 */
class LedgerTablesFirestoreTest {
  @RegisterExtension static final FirestoreEmulatorExtension FIRESTORE = new FirestoreEmulatorExtension();

  @TempDir Path root;

  @Test
  void theIssuesQueryReadsTheFirestoreLedgerTheDeploymentNames() throws Exception {
    Path profiles = Files.createDirectories(root.resolve("profiles"));
    Path home = root.resolve("home");
    Files.writeString(profiles.resolve("clicks.conf"), """
        extract { path = "file:///landing/clicks/dt=*/*.csv", format = csv }
        load.iceberg.table = local.demo.clicks
        """);
    Files.writeString(profiles.resolve("deployment.conf"), """
        ledger { type = firestore, firestore-project = PROJECT, collection-prefix = PREFIX, deadline = 60s }
        """.replace("PROJECT", FirestoreEmulator.PROJECT).replace("PREFIX", FirestoreEmulator.newPrefix()));
    var settings = ProfileRegistry.load(profiles, new Home(home)).deployment().ledger();
    try (Ledger ledger = FIRESTORE.emulator().openLedger(settings, Clock.systemUTC())) {
      LedgerTablesTest.seed(ledger);
    }

    Run run = SqlProcess.sql(root, Map.of("FIRESTORE_EMULATOR_HOST", FIRESTORE.emulator().host()),
        "--config", profiles.toString(), "--home", home.toString(), "--json",
        "SELECT file_id, reason FROM files2iceberg.files WHERE table = 'local.demo.clicks' AND state = 'QUARANTINED'",
        "SELECT table, state, snapshot_id FROM files2iceberg.batches ORDER BY created_at");

    List<JsonNode> rows = LedgerTablesTest.rows(run);
    assertThat(rows).extracting(JsonNode::toString).containsExactly(
        "{\"file_id\":\"" + LedgerTablesTest.quarantinedClickId + "\",\"reason\":\"" + LedgerTablesTest.REASON + "\"}",
        "{\"table\":\"local.demo.clicks\",\"state\":\"COMMITTED\",\"snapshot_id\":4242}",
        "{\"table\":\"local.demo.views\",\"state\":\"FAILED\"}");
    assertThat(Files.exists(home.resolve("ledger.db"))).isFalse();
  }
}
