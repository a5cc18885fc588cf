package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.maintain.LandingCleanup;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Landing cleanup ({@code load.after-ingest}) on the embedded default, with real Spark child JVMs
 * and the SQLite ledger, as an operator runs it: {@code maintain} deletes a loaded file and leaves
 * one rewritten since, which still loads; a rollback across deleted files is refused naming them
 * and goes on with {@code --allow-missing}; a rollback across moved files reloads them from the
 * archive and gives the table exactly as it was; {@code validate} refuses cleanup where loads read
 * old files again and an archive that a profile watches. Two tables, one deployment; the tests run
 * in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LandingCleanupEndToEndTest {
  private static final String DELETING = "local.e2e.clean_delete";
  private static final String MOVING = "local.e2e.clean_move";

  @TempDir static Path root;
  static EmbeddedDeployment deployment;
  static Path archive;

  @BeforeAll
  static void start() throws Exception {
    archive = root.resolve("archive");
    deployment = new EmbeddedDeployment(root, Map.of(
        "clean_delete", profile("clean_delete", DELETING, "action = delete"),
        "clean_move", profile("clean_move", MOVING,
            "action = move, move-to = \"file://" + archive + "/\", retention = 1h")));
  }

  private static String profile(String folder, String table, String afterIngest) {
    return """
        extract {
          path = "file://LANDING/%s/dt=*/*.json"
          format = json
          keep-checkpoints = 100
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = "yyyy-MM-dd"
          }
        }
        load {
          iceberg.table = %s
          primary-key = [id]
          partition-by = [dt]
          after-ingest { %s }
        }
        job.spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
        """.formatted(folder, table, afterIngest);
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  private static String row(String id, int amount) {
    return "{\"id\":\"" + id + "\",\"amount\":" + amount + "}\n";
  }

  /** The command as a user runs it on one profile; returns the exit code, stdout and stderr. */
  private static String[] cli(String profile, String table, String command, String... options) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    List<String> args = new ArrayList<>(List.of(command, "--config",
        deployment.profiles.resolve(profile + ".conf").toString(), "--home", deployment.home.root().toString(),
        "--table", table));
    args.addAll(List.of(options));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  private static List<BatchCommitted> runOnce(String profile) throws Exception {
    deployment.notifyListener();
    List<BatchEvent> events = EmbeddedDeployment.events();
    RunSummary summary = deployment.runner(profile, events).runOnce();
    assertThat(summary.isClean()).as(summary.toString()).isTrue();
    return events.stream().filter(BatchCommitted.class::isInstance).map(BatchCommitted.class::cast).toList();
  }

  /** The table's rows, each rendered as {@code id=amount@dt}. */
  private static Set<String> rows(String table) {
    Set<String> rendered = new TreeSet<>();
    IcebergRows.rows(deployment.home, table)
        .forEach(r -> rendered.add(r.get("id") + "=" + r.get("amount") + "@" + r.get("dt")));
    return rendered;
  }

  private static FileRecord file(String table, String partition, Path landed, long generation) {
    String uri = ObjectLocation.file(landed).uri();
    return deployment.ledger.filesOfPartition(table, partition).stream()
        .filter(f -> f.uri().equals(uri) && f.generation() == generation).findFirst().orElseThrow();
  }

  private static long generation(Path file) throws Exception {
    return ObjectLocation.localGeneration(Files.readAttributes(file,
        java.nio.file.attribute.BasicFileAttributes.class));
  }

  static long deleteFirstSnapshot;
  static Path deletedFirst;
  static Path deletedSecond;
  static Path rewritten;

  @Test
  @Order(1)
  void maintainDeletesAnIngestedFileAndLeavesARewrittenOneWhichStillLoads() throws Exception {
    deletedFirst = deployment.write("clean_delete/dt=2026-12-01/part-0.json", row("a1", 1));
    deployment.write("clean_delete/dt=2026-12-01/_SUCCESS", "");
    deleteFirstSnapshot = runOnce("clean_delete").get(0).report().snapshotId();
    deletedSecond = deployment.write("clean_delete/dt=2026-12-02/part-0.json", row("b1", 10));
    rewritten = deployment.write("clean_delete/dt=2026-12-02/part-1.json", row("b2", 20));
    deployment.write("clean_delete/dt=2026-12-02/_SUCCESS", "");
    assertThat(runOnce("clean_delete")).hasSize(1);
    long loadedGeneration = generation(rewritten);
    // Rewritten after its load: a new generation, recorded, not loaded yet.
    Thread.sleep(5);
    deployment.write("clean_delete/dt=2026-12-02/part-1.json", row("b2", 21));
    deployment.notifyListener();
    long newGeneration = generation(rewritten);
    assertThat(newGeneration).isNotEqualTo(loadedGeneration);

    String[] maintained;
    System.setProperty("files2iceberg.cleanup.now", Instant.now().plus(Duration.ofDays(31)).toString());
    try {
      maintained = cli("clean_delete", DELETING, "maintain", "--no-compact", "--json");
    } finally {
      System.clearProperty("files2iceberg.cleanup.now");
    }

    assertThat(maintained[0]).as(maintained[2]).isEqualTo("0");
    JsonNode cleaned = JsonLinesOutput.one("maintain_landing_cleanup", JsonLinesOutput.parse(maintained[1]));
    assertThat(cleaned.path("action").asText()).isEqualTo("delete");
    assertThat(cleaned.path("deleted").asInt()).isEqualTo(2);
    assertThat(cleaned.path("alreadyGone").asInt()).isEqualTo(1);
    assertThat(deletedFirst).doesNotExist();
    assertThat(deletedSecond).doesNotExist();
    assertThat(rewritten).exists();
    assertThat(generation(rewritten)).isEqualTo(newGeneration);
    assertThat(file(DELETING, "2026-12-01", deletedFirst, deployment.ledger.filesOfPartition(DELETING, "2026-12-01")
        .get(0).generation()).cleaned().map(CleanedObject::action)).contains(CleanedObject.Action.DELETED);
    assertThat(file(DELETING, "2026-12-02", rewritten, newGeneration).cleaned()).isEmpty();

    assertThat(runOnce("clean_delete")).hasSize(1);
    assertThat(rows(DELETING)).containsExactly("a1=1@2026-12-01", "b1=10@2026-12-02", "b2=21@2026-12-02");
  }

  @Test
  @Order(2)
  void aRollbackAcrossDeletedFilesIsRefusedNamingThemAndGoesOnWithAllowMissing() {
    Set<String> before = rows(DELETING);

    String[] refused = cli("clean_delete", DELETING, "rollback", "--to-snapshot", Long.toString(deleteFirstSnapshot));

    assertThat(refused[0]).as(refused[2]).isEqualTo("2");
    assertThat(refused[2]).contains("rollback of table " + DELETING + " would load 2 file(s) again whose object"
            + " landing cleanup deleted", ObjectLocation.file(deletedSecond).uri() + "#",
        ObjectLocation.file(rewritten).uri() + "#", "pass --allow-missing");
    assertThat(rows(DELETING)).isEqualTo(before);
    assertThat(deployment.ledger.changes(DELETING)).isEmpty();

    String[] done = cli("clean_delete", DELETING, "rollback", "--to-snapshot", Long.toString(deleteFirstSnapshot),
        "--allow-missing");

    assertThat(done[0]).as(done[2]).isEqualTo("0");
    assertThat(deployment.ledger.filesOfPartition(DELETING, "2026-12-02"))
        .filteredOn(f -> f.cleaned().isPresent()).extracting(FileRecord::state)
        .containsOnly(FileState.SUPERSEDED);
  }

  @Test
  @Order(3)
  void afterTheRollbackTheRewrittenFileStillLoadsAndTheDeletedRowsAreGone() throws Exception {
    assertThat(runOnce("clean_delete")).hasSize(1);
    assertThat(rows(DELETING)).containsExactly("a1=1@2026-12-01", "b2=21@2026-12-02");
  }

  @Test
  @Order(4)
  void aRollbackAcrossMovedFilesReloadsThemFromTheArchiveExactlyAsTheyWere() throws Exception {
    Path first = deployment.write("clean_move/dt=2026-12-01/part-0.json", row("m1", 1) + row("m2", 2));
    deployment.write("clean_move/dt=2026-12-01/_SUCCESS", "");
    long firstSnapshot = runOnce("clean_move").get(0).report().snapshotId();
    Path second = deployment.write("clean_move/dt=2026-12-02/part-0.json", row("n1", 10) + row("m1", 100));
    deployment.write("clean_move/dt=2026-12-02/_SUCCESS", "");
    assertThat(runOnce("clean_move")).hasSize(1);
    Set<String> whole = rows(MOVING);
    assertThat(whole).containsExactly("m1=100@2026-12-02", "m2=2@2026-12-01", "n1=10@2026-12-02");
    long secondGeneration = generation(second);
    TableProfile profile = deployment.profile("clean_move").profiles().get(0);

    LandingCleanup.Cleaned moved = new LandingCleanup(deployment.ledger, () -> {
      throw new AssertionError("no Storage client for a landing folder");
    }, Clock.fixed(Instant.now().plus(Duration.ofHours(2)), ZoneOffset.UTC)).clean(profile, false).orElseThrow();

    assertThat(moved.archived()).isEqualTo(2);
    assertThat(first).doesNotExist();
    assertThat(second).doesNotExist();
    Path copy = archive.resolve(second.toString().substring(1));
    assertThat(Files.readString(copy)).isEqualTo(row("n1", 10) + row("m1", 100));
    CleanedObject archived = file(MOVING, "2026-12-02", second, secondGeneration).cleaned().orElseThrow();
    assertThat(archived.archiveUri()).contains(ObjectLocation.file(copy).uri());

    String[] done = cli("clean_move", MOVING, "rollback", "--to-snapshot", Long.toString(firstSnapshot));
    assertThat(done[0]).as(done[2]).isEqualTo("0");
    assertThat(rows(MOVING)).containsExactly("m1=1@2026-12-01", "m2=2@2026-12-01");

    assertThat(runOnce("clean_move")).hasSize(1);
    assertThat(rows(MOVING)).isEqualTo(whole);
  }

  @Test
  @Order(5)
  void validateRefusesCleanupWhereLoadsReadOldFilesAgainAndAWatchedArchive() throws Exception {
    Path profiles = Files.createDirectories(root.resolve("invalid"));
    String base = """
        extract.path = "file://%s/raw/dt=*/*.json"
        extract.format = json
        load.iceberg.table = local.e2e.%s
        """;
    Files.writeString(profiles.resolve("overwrite.conf"), base.formatted(root, "overwrite") + """
        extract.batch-file.partition-column = dt
        load.save-mode = Overwrite
        load.partition-by = [dt]
        load.after-ingest.action = delete
        """);
    Files.writeString(profiles.resolve("full.conf"), base.formatted(root + "/full", "full") + """
        extract.batch-file.ingestion-type = full
        load.after-ingest.action = delete
        """);
    Files.writeString(profiles.resolve("last.conf"), base.formatted(root + "/last", "last") + """
        extract.batch-file.ingestion-type = last
        load.after-ingest.action = delete
        """);
    Files.writeString(profiles.resolve("watched.conf"), base.formatted(root + "/watched", "watched")
        + "load.after-ingest { action = move, move-to = \"file://" + root + "/watched/raw/archive/\" }\n");

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    int code = commandLine.execute("validate", "--config", profiles.toString(), "--home",
        root.resolve("validate-home").toString());

    String reported = out + "\n" + err;
    assertThat(code).as(reported).isEqualTo(2);
    assertThat(reported).contains(
        "load.after-ingest.action: delete cannot go with load.save-mode = Overwrite",
        "load.after-ingest.action: delete cannot go with extract.batch-file.ingestion-type = full",
        "load.after-ingest.action: delete cannot go with extract.batch-file.ingestion-type = last",
        "load.after-ingest.move-to: \"file://" + root + "/watched/raw/archive/\" is under");
  }
}
