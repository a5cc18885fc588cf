package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.EventLines;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.PartitionState;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reconcile}, {@code replay} and {@code backfill} end to end on the embedded default: files
 * landed through the real listener (some notifications lost on purpose), the commands run as a user
 * runs them, batches in real Spark child JVMs, rows read back through Iceberg's own reader. One deployment,
 * one table per scenario; every scenario checks that each row is in its table exactly once.
 */
class OperatorCommandsEndToEndTest {
  @TempDir static Path root;
  static EmbeddedDeployment deployment;

  @BeforeAll
  static void start() throws Exception {
    deployment = new EmbeddedDeployment(root, Map.of(
        "recon", profile("recon", ""),
        "replay", profile("replay", ""),
        "backfill", profile("backfill", "max-batch-size = 10")));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  /** JSON lines under {@code LANDING/<name>/dt=.../} into {@code local.e2e.<name>}, keyed by id. */
  private static String profile(String name, String extract) {
    return "extract {\n"
        + "  path = \"file://LANDING/" + name + "/dt=*/*.json\"\n"
        + "  format = json\n"
        + "  " + extract + "\n"
        + "  batch-file {\n"
        + "    partition-type = date\n"
        + "    pattern = \".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+\"\n"
        + "    date-format = \"yyyy-MM-dd\"\n"
        + "  }\n"
        + "}\n"
        + "load {\n"
        + "  iceberg.table = local.e2e." + name + "\n"
        + "  primary-key = [id]\n"
        + "  partition-by = [dt]\n"
        + "  iceberg.precombine-field = version\n"
        + "}\n"
        + "job.spark-properties { \"spark.ui.enabled\" = \"false\", \"spark.sql.shuffle.partitions\" = \"2\" }\n";
  }

  private static String row(String id, int version, int amount) {
    return "{\"id\":\"" + id + "\",\"version\":" + version + ",\"amount\":" + amount + "}\n";
  }

  /** Rows, distinct ids, the amount total and the table's snapshot count, as one JSON line. */
  private static String contents(String name) {
    String table = "local.e2e." + name;
    List<Map<String, Object>> rows = IcebergRows.rows(deployment.home, table);
    return "{\"n\":" + rows.size() + ",\"ids\":" + IcebergRows.distinct(rows, "id") + ",\"total\":"
        + IcebergRows.sum(rows, "amount") + ",\"snapshots\":" + IcebergRows.snapshots(deployment.home, table).size()
        + "}";
  }

  /** Runs the command line as a user does; returns the exit code, stdout and stderr. */
  private static Run cli(String command, String profile, String... more) {
    List<String> args = new ArrayList<>(List.of(command, "--config",
        deployment.profiles.resolve(profile + ".conf").toString(), "--home", deployment.home.root().toString()));
    args.addAll(List.of(more));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  private record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n" + out + "\n" + err;
    }
  }

  private static Path folder(String name, String day) {
    return deployment.landing.resolve(name + "/dt=" + day);
  }

  @Test
  void reconcileFindsTheLostNotificationsAndFixLandsThemOnce() throws Exception {
    String table = "local.e2e.recon";
    // 2026-11-01: all notified. 2026-11-02: part-0 and the marker notified, a late part-1 lost.
    // 2026-11-03: file and marker landed, both notifications lost.
    deployment.write("recon/dt=2026-11-01/part-0.json", row("r1", 1, 1) + row("r2", 1, 2));
    deployment.write("recon/dt=2026-11-01/_SUCCESS", "");
    deployment.write("recon/dt=2026-11-02/part-0.json", row("r3", 1, 3));
    deployment.write("recon/dt=2026-11-02/_SUCCESS", "");
    assertThat(deployment.notifierFor(folder("recon", "2026-11-01")).scan().posted()).isEqualTo(2);
    assertThat(deployment.notifierFor(folder("recon", "2026-11-02")).scan().posted()).isEqualTo(2);
    Path late = deployment.write("recon/dt=2026-11-02/part-1.json", row("r4", 1, 4) + row("r6", 1, 6));
    Path lost = deployment.write("recon/dt=2026-11-03/part-0.json", row("r5", 1, 5));
    deployment.write("recon/dt=2026-11-03/_SUCCESS", "");
    Run firstBatch = runOnce("recon");
    assertThat(firstBatch.code()).as(firstBatch.toString()).isZero();

    Run found = cli("reconcile", "recon", "--table", table);

    assertThat(found.code()).as(found.toString()).isEqualTo(3);
    assertThat(found.out()).contains("3 partition(s), 4 data file(s) listed in 4 list call(s): drift found")
        .contains("missing from the ledger (lost notifications): 2\n    file://" + late + "\n    file://" + lost + "\n")
        .contains("success marker present but not READY: 1\n    2026-11-03\n")
        .contains("recorded but gone from the bucket: 0");

    Run fixed = cli("reconcile", "recon", "--table", table, "--fix");
    assertThat(fixed.code()).as(fixed.toString()).isZero();
    Run batches = runOnce("recon");
    assertThat(batches.code()).as(batches.toString()).isZero();

    assertThat(deployment.ledger.filesOfPartition(table, "2026-11-03")).extracting(FileRecord::eventId)
        .containsExactly("reconcile");
    assertThat(deployment.ledger.partitions(table)).extracting(p -> p.state()).containsOnly(PartitionState.INGESTED);
    List<Map<String, Object>> rows = IcebergRows.rows(deployment.home, table);
    assertThat(rows).hasSize(6);
    assertThat(IcebergRows.distinct(rows, "id")).isEqualTo(6);
    assertThat(IcebergRows.sum(rows, "amount")).isEqualTo(1 + 2 + 3 + 4 + 5 + 6);
    Run clean = cli("reconcile", "recon", "--table", table);
    assertThat(clean.code()).as(clean.toString()).isZero();
    assertThat(clean.out()).contains(": no drift");
  }

  private static Run runOnce(String profile, String... more) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    List<String> args = new ArrayList<>(List.of("batch", "run-once", "--wait", "--config",
        deployment.profiles.resolve(profile + ".conf").toString(), "--home", deployment.home.root().toString()));
    args.addAll(List.of(more));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void replayLoadsOnlyChangedFilesAndForceReloadsWithRowsStayingUnique() throws Exception {
    String table = "local.e2e.replay";
    deployment.write("replay/dt=2026-11-05/part-0.json", row("p1", 1, 1) + row("p2", 1, 2));
    deployment.write("replay/dt=2026-11-05/part-1.json", row("p3", 1, 3));
    deployment.write("replay/dt=2026-11-05/_SUCCESS", "");
    deployment.notifierFor(folder("replay", "2026-11-05")).scan();
    Run first = runOnce("replay", "--json");
    assertThat(first.code()).as(first.toString()).isZero();
    // With --json stdout is the run's events, one JSON object a line, and nothing else.
    List<JsonNode> events = EventLines.parse(first.out());
    assertThat(EventLines.kinds(events)).containsExactly("claimed", "launched", "committed", "run_finished");
    JsonNode claimed = events.get(0);
    String batchId = claimed.get("batchId").asText();
    assertThat(claimed.get("table").asText()).isEqualTo(table);
    assertThat(claimed.get("partitions").toString()).isEqualTo("[\"2026-11-05\"]");
    assertThat(claimed.get("files").asInt()).isEqualTo(2);
    assertThat(claimed.get("mode").asText()).isEqualTo("incremental");
    assertThat(events.get(1).get("batchId").asText()).isEqualTo(batchId);
    assertThat(events.get(1).get("attempt").asInt()).isEqualTo(1);
    JsonNode committed = events.get(2);
    assertThat(committed.get("batchId").asText()).isEqualTo(batchId);
    assertThat(committed.get("alreadyCommitted").asBoolean()).isFalse();
    assertThat(committed.get("files").asInt()).isEqualTo(2);
    assertThat(committed.get("rowsInserted").asLong()).isEqualTo(3);
    assertThat(committed.get("rowsUpdated").asLong()).isZero();
    assertThat(committed.get("snapshotId").asLong())
        .isEqualTo(deployment.ledger.batch(batchId).orElseThrow().snapshotId().orElseThrow());
    JsonNode run = events.get(3);
    assertThat(run.get("committed").asInt()).isEqualTo(1);
    assertThat(run.get("failed").asInt()).isZero();
    assertThat(run.get("rowsWritten").asLong()).isEqualTo(3);
    // Rows are read back (a Spark run each) only where they say something new: the snapshot count
    // after the change proves the unchanged replay committed nothing.

    Run unchanged = cli("replay", "replay", "--table", table, "--partition", "2026-11-05", "--run");

    assertThat(unchanged.code()).as(unchanged.toString()).isZero();
    assertThat(unchanged.out()).contains("recorded: 0 new file(s), 2 already known")
        .contains("run: 0 committed (0 rows), 0 failed, 0 recovered in ");
    deployment.write("replay/dt=2026-11-05/part-1.json", row("p3", 2, 30) + row("p4", 1, 4));
    Run changed = cli("replay", "replay", "--table", table, "--partition", "2026-11-05", "--run");
    assertThat(changed.code()).as(changed.toString()).isZero();
    assertThat(changed.out()).contains("2 data file(s) listed in 1 list call(s)\n  recorded: 1 new file(s), 1 already known");
    assertThat(changed.err()).contains(": 1 file(s) of 1 partition(s) [2026-11-05]");
    assertThat(contents("replay"))
        .isEqualTo("{\"n\":4,\"ids\":4,\"total\":37,\"snapshots\":2}");

    Run forced = cli("replay", "replay", "--table", table, "--partition", "2026-11-05", "--force", "--run");

    assertThat(forced.code()).as(forced.toString()).isZero();
    assertThat(forced.out()).contains("reopened: 2026-11-05");
    assertThat(forced.err()).contains(": 3 file(s) of 1 partition(s) [2026-11-05]");
    assertThat(deployment.ledger.partition(table, "2026-11-05").orElseThrow().state())
        .isEqualTo(PartitionState.INGESTED);
    String checkpoint = deployment.ledger.tableStatus(table).lastCommitted().orElseThrow().batchId();

    Run listed = cli("replay", "replay", "--table", table, "--partition", "2026-11-05", "--no-checkpoint");

    assertThat(listed.code()).as(listed.toString()).isZero();
    assertThat(listed.out()).contains("without checkpoint: 2 file(s) listed in 1 complete partition(s)")
        .contains("run: 1 committed");
    assertThat(listed.err()).contains("listed, no checkpoint");
    assertThat(deployment.ledger.tableStatus(table).lastCommitted().orElseThrow().batchId())
        .as("the table's checkpoint did not move").isEqualTo(checkpoint);
    // Both reloads (forced, then listed) left every row once.
    List<Map<String, Object>> reloaded = IcebergRows.rows(deployment.home, table);
    assertThat(reloaded).hasSize(4);
    assertThat(IcebergRows.distinct(reloaded, "id")).isEqualTo(4);
    assertThat(IcebergRows.sum(reloaded, "amount")).isEqualTo(37);
  }

  @Test
  void backfillOfThirtyPartitionsInterruptedHalfwayResumesAndLandsEveryRowOnce() throws Exception {
    String table = "local.e2e.backfill";
    for (int day = 1; day <= 30; day++) {
      String dt = "2026-09-%02d".formatted(day);
      // Two versions of one key: the newer one (amount day * 10) stays.
      deployment.write("backfill/dt=" + dt + "/part-0.json", row("k" + day, 1, day) + row("k" + day, 2, day * 10));
      deployment.write("backfill/dt=" + dt + "/_SUCCESS", "");
    }

    Run interrupted = cli("backfill", "backfill", "--table", table, "--limit", "15");

    assertThat(interrupted.code()).as(interrupted.toString()).isZero();
    assertThat(interrupted.out()).contains("recorded: 15 partition(s), 15 new file(s)")
        .contains("left for the next run (--limit 15): 15 partition(s)");
    assertThat(deployment.ledger.partitions(table)).hasSize(15);

    Run resumed = cli("backfill", "backfill", "--table", table, "--run");

    assertThat(resumed.code()).as(resumed.toString()).isZero();
    assertThat(resumed.out()).contains("recorded: 15 partition(s), 15 new file(s), 0 already known")
        .contains("skipped, already recorded: 15 partition(s)")
        .contains("16 list call(s)");
    assertThat(resumed.err().lines().filter(line -> line.startsWith("[batch] claimed ")))
        .as("30 files in max-batch-size 10 steps, oldest first").hasSize(3)
        .first().asString().contains("[2026-09-01, ");
    assertThat(deployment.ledger.partitions(table)).hasSize(30)
        .extracting(p -> p.state()).containsOnly(PartitionState.INGESTED);
    List<Map<String, Object>> rows = IcebergRows.rows(deployment.home, table);
    assertThat(rows).hasSize(30);
    assertThat(IcebergRows.distinct(rows, "id")).isEqualTo(30);
    assertThat(IcebergRows.sum(rows, "amount")).isEqualTo(10 * (30 * 31 / 2));
  }
}
