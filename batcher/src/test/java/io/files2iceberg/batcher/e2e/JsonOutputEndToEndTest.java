package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.Home;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command's {@code --json} on one real home, as docs/reference/json-output.md says it is:
 * JSON lines (one compact object a line, the summary last), each object valid against its kind's
 * schema, read by the real {@code jq} without a change, snapshot ids as strings that jq gives back
 * exactly as the ledger has them. One {@code local --until-idle} loads the table (the listener and
 * the warm driver, as a user runs it); the other commands read that home. {@code demo --json} is
 * read the same way in {@link DemoEndToEndTest}.
 */
class JsonOutputEndToEndTest {
  private static final String TABLE = "local.e2e.jsonout";
  /** 2^53: above it, jq 1.6 and JavaScript round a JSON number. */
  private static final long MAX_EXACT_IN_DOUBLE = 1L << 53;

  @TempDir static Path root;
  static Path profiles;
  static Path landing;
  static Home home;
  static Run local;
  static BatchRecord committed;

  @BeforeAll
  static void loadOneTableWithLocal() throws Exception {
    profiles = Files.createDirectories(root.resolve("profiles"));
    landing = Files.createDirectories(root.resolve("landing"));
    home = new Home(root.resolve("home"));
    Files.writeString(profiles.resolve("jsonout.conf"), """
        extract {
          path = "file://%s/jsonout/dt=*/*.json"
          format = json
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
        }
        job.spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
        """.formatted(landing, TABLE));
    write("jsonout/dt=2026-11-01/part-0.json", "{\"id\":\"a\",\"amount\":1}\n{\"id\":\"b\",\"amount\":2}\n");
    write("jsonout/dt=2026-11-01/_SUCCESS", "");
    write("jsonout/dt=2026-11-02/part-0.json", "{\"id\":\"c\",\"amount\":3}\n");
    write("jsonout/dt=2026-11-02/_SUCCESS", "");

    local = cli("local", "--config", profiles.toString(), "--landing", landing.toString(), "--until-idle",
        "--interval", "500ms", "--json");

    assertThat(local.code()).as(local.toString()).isZero();
    try (SqliteLedger ledger = ledger()) {
      committed = ledger.batchesSettledSince(TABLE, Instant.EPOCH).stream().filter(b -> b.snapshotId().isPresent()).findFirst().orElseThrow();
    }
  }

  @AfterAll
  static void stopTheWarmDriver() {
    // local leaves the home's warm driver up until its idle timeout; the test does not wait for it.
    if (local != null) {
      Matcher pid = Pattern.compile("warm driver pid (\\d+)").matcher(local.out());
      while (pid.find()) {
        ProcessHandle.of(Long.parseLong(pid.group(1))).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  @Test
  void localPrintsEventsEndingWithItsSummaryAndTheCommittedSnapshotIdSurvivesJq() {
    List<JsonNode> events = readByJq(local.out());

    List<String> kinds = JsonLinesOutput.kinds(events);
    assertThat(kinds).startsWith("listener_started").contains("claimed", "launched", "committed", "table")
        .endsWith("summary");
    assertThat(events.get(events.size() - 1).get("batchesCommitted").asInt()).isPositive();
    String id = String.valueOf(committed.snapshotId().orElseThrow());
    assertThat(JsonLinesOutput.jq(local.out(), "-r",
        "select(.event == \"committed\" and .batchId == \"" + committed.batchId() + "\") | .snapshotId").strip())
        .isEqualTo(id);
    assertThat(JsonLinesOutput.jq(local.out(), "-r", "select(.event == \"table\") | .snapshotId").strip())
        .isEqualTo(String.valueOf(lastSnapshot()));
    if (Math.abs(committed.snapshotId().orElseThrow()) <= MAX_EXACT_IN_DOUBLE) {
      // Iceberg's ids are uniform below 2^63: one in 1024 is small enough for a double.
      System.out.println("note: snapshot " + id + " is below 2^53; JsonLinesTest checks one above it");
    }
  }

  @Test
  void runOnceWithNothingReadyPrintsItsSummaryAlone() {
    Run run = cli("batch", "run-once", "--config", profiles.toString(), "--json");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(run.out()))).containsExactly("run_finished");
  }

  @Test
  void statusHistoryAndInspectGiveTheLedgersSnapshotIdsThroughJq() {
    Run status = cli("status", "--config", profiles.toString(), "--files", "--json");
    assertThat(status.code()).as(status.toString()).isZero();
    List<JsonNode> statusLines = readByJq(status.out());
    assertThat(JsonLinesOutput.kinds(statusLines)).containsExactly("table_status", "status_summary");
    assertThat(JsonLinesOutput.jq(status.out(), "-r", "select(.kind == \"table_status\") | .lastCommit.snapshotId")
        .strip()).isEqualTo(String.valueOf(lastSnapshot()));

    Run history = cli("history", "--table", TABLE, "--json");
    assertThat(history.code()).as(history.toString()).isZero();
    List<JsonNode> loads = readByJq(history.out());
    assertThat(JsonLinesOutput.kinds(loads)).containsExactly("file_load", "file_load", "history_summary");
    try (SqliteLedger ledger = ledger()) {
      for (FileRecord file : ledger.filesOfPartition(TABLE, "2026-11-01")) {
        assertThat(JsonLinesOutput.jq(history.out(), "-r", "select(.uri == \"" + file.uri() + "\") | .snapshotId")
            .strip()).isEqualTo(String.valueOf(file.snapshotId().orElseThrow()));
      }
    }

    Run batch = cli("inspect", "--batch", committed.batchId(), "--config", profiles.toString(), "--json");
    assertThat(batch.code()).as(batch.toString()).isZero();
    List<JsonNode> batchLines = readByJq(batch.out());
    assertThat(JsonLinesOutput.kinds(batchLines)).startsWith("batch").contains("file", "attempt")
        .endsWith("inspect_summary");
    assertThat(JsonLinesOutput.jq(batch.out(), "-r", "select(.kind == \"batch\") | .snapshotId").strip())
        .isEqualTo(String.valueOf(committed.snapshotId().orElseThrow()));

    Run partition = cli("inspect", "--table", TABLE, "--partition", "2026-11-01", "--json");
    assertThat(partition.code()).as(partition.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(partition.out()))).startsWith("partition", "file")
        .contains("batch").endsWith("inspect_summary");

    Run file = cli("inspect", "--file", landing.resolve("jsonout/dt=2026-11-02/part-0.json").toString(), "--json");
    assertThat(file.code()).as(file.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(file.out()))).containsExactly("file", "batch", "inspect_summary");
  }

  @Test
  void retryQuarantineReplayBackfillAndReconcileEndWithTheirSummary() {
    Run retry = cli("retry", "--table", TABLE, "--dry-run", "--json");
    assertThat(retry.code()).as(retry.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(retry.out()))).containsExactly("retry_summary");

    Run quarantine = cli("quarantine", "list", "--json");
    assertThat(quarantine.code()).as(quarantine.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(quarantine.out()))).containsExactly("quarantine_summary");

    Run replay = cli("replay", "--config", profiles.toString(), "--table", TABLE, "--partition", "2026-11-01",
        "--dry-run", "--json");
    assertThat(replay.code()).as(replay.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(replay.out()))).containsExactly("replay_summary");

    Run listed = cli("replay", "--config", profiles.toString(), "--table", TABLE, "--partition", "2026-11-01",
        "--no-checkpoint", "--dry-run", "--json");
    assertThat(listed.code()).as(listed.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(listed.out()))).containsExactly("replay_without_checkpoint_summary");

    Run backfill = cli("backfill", "--config", profiles.toString(), "--table", TABLE, "--dry-run", "--json");
    assertThat(backfill.code()).as(backfill.toString()).isZero();
    assertThat(JsonLinesOutput.kinds(readByJq(backfill.out()))).containsExactly("backfill_summary");

    Run reconcile = cli("reconcile", "--config", profiles.toString(), "--json");
    assertThat(reconcile.code()).as(reconcile.toString()).isZero();
    List<JsonNode> tables = readByJq(reconcile.out());
    assertThat(JsonLinesOutput.kinds(tables)).containsExactly("reconcile", "reconcile_summary");
    assertThat(tables.get(1).get("driftLeft").asBoolean()).isFalse();
  }

  @Test
  void maintainAndSqlPrintJsonLinesWithIdsJqKeeps() throws Exception {
    Run maintain = cli("maintain", "--config", profiles.toString(), "--dry-run", "--json");
    assertThat(maintain.code()).as(maintain.toString()).isZero();
    List<JsonNode> maintained = readByJq(maintain.out());
    assertThat(JsonLinesOutput.kinds(maintained)).containsExactly("maintained", "maintain_batch_files", "maintain_summary");
    assertThat(JsonLinesOutput.jq(maintain.out(), "-r", "select(.kind == \"maintained\") | .protected[].snapshotId")
        .strip()).isEqualTo(String.valueOf(lastSnapshot()));

    // Whole numbers beyond 2^53 come as strings, smaller ones as numbers, decimals exactly. sql's
    // stdout is its Spark child's (it inherits it): the child runs here as sql runs it.
    SparkMain.Result sql = SparkMain.locate(System.getenv(), home.root()).run(SparkMain.SQL, List.of("--home",
        home.root().toString(), "--json", "--max-rows", "1000", "--", "SELECT snapshot_id, 9007199254740993 AS big,"
            + " 7 AS small, CAST(12345678901234567.89 AS DECIMAL(19,2)) AS amount FROM " + TABLE + ".snapshots"
            + " ORDER BY committed_at"), Duration.ofMinutes(3));
    assertThat(sql.isSuccess()).as(sql.stderr()).isTrue();
    String rows = sql.stdout();
    assertThat(rows.lines()).isNotEmpty().allSatisfy(line -> assertThat(line)
        .contains("\"big\":\"9007199254740993\",\"small\":7,\"amount\":12345678901234567.89"));
    // jq reads every row; it gives back all but the long decimal (a double to jq 1.6) unchanged.
    assertThat(JsonLinesOutput.jq(rows, "-c", ".").lines().map(line -> line.replaceAll(",\"amount\".*", "")))
        .isEqualTo(rows.lines().map(line -> line.replaceAll(",\"amount\".*", "")).toList());
    List<String> ids = JsonLinesOutput.jq(rows, "-r", ".snapshot_id | tostring").lines().toList();
    assertThat(ids).contains(String.valueOf(committed.snapshotId().orElseThrow()));
  }

  /**
   * The lines, each valid against its kind's schema, after checking that jq reads them all and
   * gives them back unchanged ({@code jq -c .}): no number was rounded, nothing was cut.
   */
  private static List<JsonNode> readByJq(String stdout) {
    List<JsonNode> lines = JsonLinesOutput.parse(stdout);
    assertThat(JsonLinesOutput.jq(stdout, "-c", ".")).isEqualTo(stdout);
    return lines;
  }

  private static long lastSnapshot() {
    try (SqliteLedger ledger = ledger()) {
      return ledger.batchesSettledSince(TABLE, Instant.EPOCH).stream().filter(b -> b.snapshotId().isPresent())
          .max(java.util.Comparator.comparing(BatchRecord::updatedAt)).flatMap(BatchRecord::snapshotId).orElseThrow();
    }
  }

  private static SqliteLedger ledger() {
    return SqliteLedger.open(home.ledgerDb(), Clock.systemUTC());
  }

  private static void write(String relative, String content) throws Exception {
    Path file = landing.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    // Settled: the notifier posts files that stopped changing.
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(2)));
  }

  /** The command line as a user runs it, on this test's home. */
  private static Run cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--home", home.root().toString()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int code = commandLine.execute(all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  private record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n" + out + "\n" + err;
    }
  }
}
