package io.files2iceberg.batcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.sql.SqlProcess.Run;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sql} on the ledger's tables, end to end on the embedded SQLite ledger: the CLI in its own
 * process, the statements in its Spark child JVM. The ledger: local.demo.clicks with an INGESTED
 * file (3 rows failed expectation amount_positive, 1 email_set) and a QUARANTINED file (committed by one batch) and a RECORDED file in an OPEN partition;
 * local.demo.views with a QUARANTINED file and a partition FAILED by a batch.
 */
class LedgerTablesTest {
  static final String CLICKS = "local.demo.clicks";
  static final String VIEWS = "local.demo.views";
  static final String REASON = "not a safe change: amount DECIMAL(12,2) -> STRING";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path root;
  static Path home;
  static String quarantinedClickId;
  static String ingestedClickId;
  static String committedBatch;
  static String failedBatch;

  @BeforeAll
  static void seedLedger() {
    home = root.resolve("home");
    try (SqliteLedger ledger = SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC())) {
      seed(ledger);
    }
  }

  /** The two tables' records, written through the ledger's own API. */
  static void seed(Ledger ledger) {
    ingestedClickId = record(ledger, CLICKS, "2026-11-27", "part-0.csv");
    quarantinedClickId = record(ledger, CLICKS, "2026-11-27", "part-1.csv");
    ledger.quarantineFile(quarantinedClickId, REASON);
    ledger.markReady(new MarkReady(CLICKS, "2026-11-27", uri(CLICKS, "2026-11-27", ""), "m1", Instant.now()));
    BatchRecord committed = ledger.claimPartitions(new ClaimPartitions(CLICKS, 10, Duration.ofMinutes(5), true))
        .orElseThrow();
    ledger.commitBatch(new CommitBatch(committed.batchId(), 4242, BatchMetrics.EMPTY, Map.of(ingestedClickId,
        new FileRows(5, 3, 0, 0, Map.of("amount_positive", 3L, "email_set", 1L)))));
    committedBatch = committed.batchId();
    record(ledger, CLICKS, "2026-11-28", "part-0.csv");

    String quarantinedView = record(ledger, VIEWS, "2026-11-27", "part-0.csv");
    ledger.quarantineFile(quarantinedView, "corrupt: not gzip");
    record(ledger, VIEWS, "2026-11-27", "part-1.csv");
    ledger.markReady(new MarkReady(VIEWS, "2026-11-27", uri(VIEWS, "2026-11-27", ""), "m2", Instant.now()));
    BatchRecord failed = ledger.claimPartitions(new ClaimPartitions(VIEWS, 10, Duration.ofMinutes(5), true))
        .orElseThrow();
    ledger.failBatch(new FailBatch(failed.batchId(), "executor lost", 1, false));
    failedBatch = failed.batchId();
  }

  private static String uri(String table, String partition, String file) {
    return "file:///landing/" + table + "/dt=" + partition + "/" + file;
  }

  private static String record(Ledger ledger, String table, String partition, String file) {
    String name = "landing/" + table + "/dt=" + partition + "/" + file;
    return ledger.recordFile(new RecordFile(table, partition, "", name, 1, uri(table, partition, file), 10,
        "evt-" + table + partition + file, Instant.now(), Optional.empty(), false)).file().fileId();
  }

  static List<JsonNode> rows(Run run) throws Exception {
    assertThat(run.code()).as(run.toString()).isZero();
    List<JsonNode> rows = new ArrayList<>();
    for (String line : run.out().split("\\R")) {
      if (!line.isBlank()) {
        rows.add(JSON.readTree(line));
      }
    }
    return rows;
  }

  @Test
  void theIssuesQueryShowsExactlyTheQuarantinedFileOfThatTableAndPartitionsAndBatchesMatchStatus() throws Exception {
    Run run = SqlProcess.sql(root, Map.of(), "--home", home.toString(), "--json",
        "SELECT * FROM files2iceberg.files WHERE table = 'local.demo.clicks' AND state = 'QUARANTINED'",
        "SELECT table, state, count(*) AS n FROM files2iceberg.partitions GROUP BY table, state ORDER BY table, state",
        "SELECT batch_id, table, state, snapshot_id, error, partitions FROM files2iceberg.batches ORDER BY created_at",
        "SELECT file_id, rows_rejected, expectations_failed['amount_positive'] AS amount_positive, expectations_failed"
            + " FROM files2iceberg.files WHERE state = 'INGESTED'");

    List<JsonNode> rows = rows(run);
    assertThat(rows).hasSize(1 + 3 + 2 + 1);
    assertThat(rows.get(6).toString()).isEqualTo("{\"file_id\":\"" + ingestedClickId + "\",\"rows_rejected\":3,"
        + "\"amount_positive\":3,\"expectations_failed\":{\"amount_positive\":3,\"email_set\":1}}");
    JsonNode quarantined = rows.get(0);
    assertThat(quarantined.get("file_id").asText()).isEqualTo(quarantinedClickId);
    assertThat(quarantined.get("uri").asText()).isEqualTo(uri(CLICKS, "2026-11-27", "part-1.csv"));
    assertThat(quarantined.get("partition").asText()).isEqualTo("2026-11-27");
    assertThat(quarantined.get("reason").asText()).isEqualTo(REASON);
    assertThat(quarantined.get("generation").asLong()).isEqualTo(1);
    assertThat(quarantined.get("recorded_at").asText()).matches("\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}:.*");
    // Quarantined before any claim: no batch (the JSON printer may leave a null out).
    assertThat(quarantined.path("batch_id").isMissingNode() || quarantined.path("batch_id").isNull()).isTrue();

    JsonNode status = status();
    Map<String, Long> fromStatus = new TreeMap<>();
    for (JsonNode table : status) {
      table.get("partitions").fields().forEachRemaining(state -> fromStatus.put(
          table.get("table").asText() + " " + state.getKey().toUpperCase(Locale.ROOT), state.getValue().asLong()));
    }
    Map<String, Long> fromSql = new TreeMap<>();
    rows.subList(1, 4).forEach(row -> fromSql.put(row.get("table").asText() + " " + row.get("state").asText(),
        row.get("n").asLong()));
    assertThat(fromSql).isEqualTo(fromStatus).containsOnlyKeys(
        CLICKS + " INGESTED", CLICKS + " OPEN", VIEWS + " FAILED");

    JsonNode clicks = table(status, CLICKS);
    JsonNode views = table(status, VIEWS);
    JsonNode committed = rows.get(4);
    assertThat(committed.get("batch_id").asText()).isEqualTo(clicks.get("lastCommit").get("batchId").asText())
        .isEqualTo(committedBatch);
    assertThat(committed.get("state").asText()).isEqualTo("COMMITTED");
    assertThat(committed.get("snapshot_id").asText()).isEqualTo(clicks.get("lastCommit").get("snapshotId").asText())
        .isEqualTo("4242");
    JsonNode failed = rows.get(5);
    assertThat(failed.get("batch_id").asText()).isEqualTo(views.get("failedBatches").get(0).get("batchId").asText())
        .isEqualTo(failedBatch);
    assertThat(failed.get("error").asText()).isEqualTo(views.get("failedBatches").get(0).get("error").asText())
        .isEqualTo("executor lost");
    assertThat(failed.get("partitions").toString()).isEqualTo("[\"2026-11-27\"]");
  }

  /** {@code status --json}'s {@code table_status} lines, as an array. */
  private static JsonNode status() throws Exception {
    StringWriter out = new StringWriter();
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(new StringWriter(), true));
    commandLine.execute("status", "--json", "--home", home.toString());
    com.fasterxml.jackson.databind.node.ArrayNode tables = JSON.createArrayNode();
    for (String line : out.toString().split("\n")) {
      JsonNode object = JSON.readTree(line);
      if (object.path("kind").asText().equals("table_status")) {
        tables.add(object);
      }
    }
    return tables;
  }

  private static JsonNode table(JsonNode status, String name) {
    for (JsonNode table : status) {
      if (table.get("table").asText().equals(name)) {
        return table;
      }
    }
    throw new AssertionError("status shows no table " + name + ": " + status);
  }

  @Test
  void aWriteToALedgerTableFailsWithExitOneNamingIt() throws Exception {
    Run run = SqlProcess.sql(root, Map.of(), "--home", home.toString(),
        "DELETE FROM files2iceberg.files WHERE state = 'QUARANTINED'");

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.err()).as(run.toString()).startsWith("error: files2iceberg.files is read-only: ");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void aMissingTableFailsWithExitOneAndSparksMessageNamingIt() throws Exception {
    Run run = SqlProcess.sql(root, Map.of(), "--home", home.toString(), "SELECT * FROM local.nope.missing");

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.err()).as(run.toString()).startsWith(
        "error: [TABLE_OR_VIEW_NOT_FOUND] The table or view `local`.`nope`.`missing` cannot be found.")
        .contains("line 1 pos 14");
  }

  @Test
  void aQueryThatDoesNotNameTheLedgerTablesDoesNotReadTheLedger() throws Exception {
    Path unreadable = Files.createDirectories(root.resolve("unreadable-home"));
    Files.writeString(unreadable.resolve("ledger.db"), "not a SQLite database");

    Run plain = SqlProcess.sql(root, Map.of(), "--home", unreadable.toString(), "--json", "SELECT 1 AS one");
    Run ledger = SqlProcess.sql(root, Map.of(), "--home", unreadable.toString(), "--json",
        "SELECT count(*) AS n FROM files2iceberg.files");

    assertThat(rows(plain)).extracting(JsonNode::toString).containsExactly("{\"one\":1}");
    assertThat(ledger.code()).as(ledger.toString()).isNotZero();
    assertThat(ledger.err()).as(ledger.toString()).startsWith("error: ").contains(unreadable.toString());
    assertThat(ledger.out()).isEmpty();
  }
}
