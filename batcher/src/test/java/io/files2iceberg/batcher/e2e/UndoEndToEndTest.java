package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.batcher.undo.RollbackCommand;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableChange;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rollback}, {@code release} and {@code drop-partition} on the embedded default, with real
 * Spark child JVMs, as an operator runs them: three batches, two of them rolled back, and the
 * reload gives the table exactly as it was; held partitions wait for {@code release}; a rollback
 * killed (SIGKILL) between the table and the ledger, or before the table, is finished by running it
 * again; a dropped partition is gone until a replay brings it back. The tests run in order, each
 * from the state the previous one left.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UndoEndToEndTest {
  private static final String TABLE = "local.e2e.undo";

  @TempDir static Path root;
  static EmbeddedDeployment deployment;
  /** The table's rows once the three batches loaded, as a set of rendered rows. */
  static Set<String> whole;
  /** The snapshot of the first batch, and the rows it holds. */
  static long firstSnapshot;
  /** Before anything was loaded: where the change feed of the last test starts. */
  static Instant started;
  static Set<String> firstRows;

  @BeforeAll
  static void start() throws Exception {
    deployment = new EmbeddedDeployment(root, Map.of("undo", """
        extract {
          path = "file://LANDING/undo/dt=*/*.json"
          format = json
          max-batch-size = 1
          keep-checkpoints = 100
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = "yyyy-MM-dd"
          }
        }
        load {
          iceberg.table = local.e2e.undo
          primary-key = [id]
          partition-by = [dt]
        }
        job.spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
        """));
    started = Instant.now();
    deployment.write("undo/dt=2026-12-01/part-0.json", row("a1", 1) + row("a2", 2));
    deployment.write("undo/dt=2026-12-01/_SUCCESS", "");
    deployment.write("undo/dt=2026-12-02/part-0.json", row("b1", 10) + row("a1", 100));
    deployment.write("undo/dt=2026-12-02/_SUCCESS", "");
    deployment.write("undo/dt=2026-12-03/part-0.json", row("c1", 1000));
    deployment.write("undo/dt=2026-12-03/_SUCCESS", "");
    deployment.notifyListener();
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

  /** The command as a user runs it; returns the exit code, stdout and stderr. */
  private static String[] cli(String command, String... options) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    List<String> args = new ArrayList<>(List.of(command, "--config", deployment.profiles.resolve("undo.conf").toString(),
        "--home", deployment.home.root().toString(), "--table", TABLE));
    args.addAll(List.of(options));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  private static List<BatchCommitted> runOnce() {
    List<BatchEvent> events = EmbeddedDeployment.events();
    RunSummary summary = deployment.runner("undo", events).runOnce();
    assertThat(summary.isClean()).as(summary.toString()).isTrue();
    return events.stream().filter(BatchCommitted.class::isInstance).map(BatchCommitted.class::cast).toList();
  }

  /** The table's rows, each rendered as {@code id=amount@dt}. */
  private static Set<String> rows() {
    Set<String> rendered = new TreeSet<>();
    IcebergRows.rows(deployment.home, TABLE)
        .forEach(r -> rendered.add(r.get("id") + "=" + r.get("amount") + "@" + r.get("dt")));
    return rendered;
  }

  private static long currentSnapshot() {
    return IcebergRows.withTable(deployment.home, TABLE, t -> t.currentSnapshot().snapshotId());
  }

  @Test
  @Order(1)
  void rollbackOfTwoBatchesFollowedByAReloadGivesTheTableExactlyAsItWas() {
    List<BatchCommitted> loaded = runOnce();
    assertThat(loaded).hasSize(3);
    firstSnapshot = loaded.get(0).report().snapshotId();
    firstRows = Set.of("a1=1@2026-12-01", "a2=2@2026-12-01");
    whole = rows();
    // a1's newer row came with 2026-12-02's file, whose path names its partition.
    assertThat(whole).containsExactly("a1=100@2026-12-02", "a2=2@2026-12-01", "b1=10@2026-12-02",
        "c1=1000@2026-12-03");
    long before = currentSnapshot();

    String[] dry = cli("rollback", "--to-snapshot", Long.toString(firstSnapshot), "--dry-run");
    assertThat(dry[0]).as(dry[2]).isEqualTo("0");
    assertThat(dry[1]).contains("rollback " + TABLE + " from snapshot " + before + " to snapshot " + firstSnapshot
            + " undoes 2 snapshot(s):", "batch " + loaded.get(1).batchId(), "batch " + loaded.get(2).batchId(),
        "partitions to load again: ", "(dry run: nothing changed)");
    assertThat(currentSnapshot()).isEqualTo(before);
    assertThat(deployment.ledger.changes(TABLE)).isEmpty();

    String[] done = cli("rollback", "--to-snapshot", Long.toString(firstSnapshot), "--reason", "bad amounts",
        "--actor", "ops@example.com");

    assertThat(done[0]).as(done[2]).isEqualTo("0");
    assertThat(done[1]).startsWith("rolled back " + TABLE + " to snapshot " + firstSnapshot + " (rollback-")
        .contains("2 file(s) to load again, 2 batch(es) rolled back; the next batch run loads them");
    assertThat(rows()).isEqualTo(firstRows);
    assertThat(deployment.ledger.batch(loaded.get(0).batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
    assertThat(deployment.ledger.batch(loaded.get(1).batchId()).orElseThrow().state())
        .isEqualTo(BatchState.ROLLED_BACK);
    assertThat(deployment.ledger.partition(TABLE, "2026-12-02").orElseThrow().state()).isEqualTo(PartitionState.READY);
    TableChange change = deployment.ledger.changes(TABLE).get(0);
    assertThat(change.state()).isEqualTo(TableChange.ChangeState.APPLIED);
    assertThat(change.actor()).isEqualTo("ops@example.com");
    assertThat(change.reason()).contains("bad amounts");
    assertThat(change.fromSnapshot()).contains(before);
    assertThat(change.batchIds()).containsExactlyInAnyOrder(loaded.get(1).batchId(), loaded.get(2).batchId());

    List<BatchCommitted> reloaded = runOnce();
    assertThat(reloaded).hasSize(2);
    assertThat(rows()).isEqualTo(whole);
  }

  @Test
  @Order(2)
  void heldPartitionsWaitForReleaseAndThenLoadAsTheyWere() {
    String[] held = cli("rollback", "--to-snapshot", Long.toString(firstSnapshot), "--hold");
    assertThat(held[0]).as(held[2]).isEqualTo("0");
    assertThat(held[1]).contains("partitions held; `release --table " + TABLE + " --all` lets them load");
    assertThat(deployment.ledger.partition(TABLE, "2026-12-03").orElseThrow().state()).isEqualTo(PartitionState.HELD);

    assertThat(runOnce()).isEmpty();
    assertThat(rows()).isEqualTo(firstRows);

    String[] released = cli("release", "--all", "--json");
    assertThat(released[0]).as(released[2]).isEqualTo("0");
    List<JsonNode> lines = JsonLinesOutput.parse(released[1]);
    assertThat(lines).extracting(line -> line.path("partition").asText()).containsExactly("2026-12-02", "2026-12-03");
    assertThat(lines).allMatch(line -> line.path("state").asText().equals("READY"));
    String[] again = cli("release", "--partition", "2026-12-02");
    assertThat(again[0]).isEqualTo("2");
    assertThat(again[2]).contains("partition 2026-12-02 is READY, not HELD");
    assertThat(runOnce()).hasSize(2);
    assertThat(rows()).isEqualTo(whole);
  }

  @Test
  @Order(3)
  void aTargetThatIsNotAnAncestorIsRefusedWithTheReason() {
    // The snapshots the first rollback undid are no longer ancestors of the current one.
    long undone = IcebergRows.snapshots(deployment.home, TABLE).stream()
        .filter(s -> s.parentId() != null && s.parentId() == firstSnapshot).findFirst().orElseThrow().snapshotId();
    long before = currentSnapshot();

    String[] refused = cli("rollback", "--to-snapshot", Long.toString(undone));

    assertThat(refused[0]).isEqualTo("2");
    assertThat(refused[2]).contains("error: table " + TABLE + ": rollback refused: ", "not an ancestor");
    assertThat(currentSnapshot()).isEqualTo(before);
    assertThat(deployment.ledger.changes(TABLE)).allMatch(c -> c.state() == TableChange.ChangeState.APPLIED);
    String[] unknown = cli("rollback", "--to-snapshot", "42");
    assertThat(unknown[0]).isEqualTo("2");
    assertThat(unknown[2]).contains("rollback refused: ", "42");
  }

  @Test
  @Order(4)
  void rollbackKilledBetweenTheTableAndTheLedgerIsFinishedByRunningItAgain() throws Exception {
    long before = currentSnapshot();
    Path marker = root.resolve("table-side-done");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-D" + RollbackCommand.PAUSE_AFTER_TABLE + "=" + marker,
        "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "=" + deployment.sparkJobTarget,
        "-cp", System.getProperty("java.class.path"), Files2Iceberg.class.getName(), "rollback",
        "--config", deployment.profiles.resolve("undo.conf").toString(), "--home", deployment.home.root().toString(),
        "--table", TABLE, "--to-snapshot", Long.toString(firstSnapshot)));
    Path log = root.resolve("killed-rollback.log");
    Process rollback = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
      while (!Files.exists(marker) && rollback.isAlive() && Instant.now().isBefore(deadline)) {
        TimeUnit.MILLISECONDS.sleep(100);
      }
      assertThat(marker).as(Files.exists(log) ? Files.readString(log) : "no log").exists();
    } finally {
      rollback.descendants().forEach(ProcessHandle::destroyForcibly);
      rollback.destroyForcibly(); // SIGKILL
      rollback.waitFor(30, TimeUnit.SECONDS);
    }

    // Killed there: the table is rolled back, the ledger not yet, and no batch of the table is claimed.
    assertThat(rows()).isEqualTo(firstRows);
    TableChange intended = deployment.ledger.changes(TABLE).stream()
        .filter(c -> c.state() == TableChange.ChangeState.INTENDED).findFirst().orElseThrow();
    assertThat(intended.fromSnapshot()).contains(before);
    assertThat(deployment.ledger.filesOfPartition(TABLE, "2026-12-02")).extracting(FileRecord::state)
        .containsOnly(FileState.INGESTED);
    String[] other = cli("drop-partition", "--partition", "2026-12-01");
    assertThat(other[0]).isEqualTo("1");
    assertThat(other[2]).contains("rollback " + intended.changeId(), "is unfinished; run it again to finish it:"
        + " rollback --table " + TABLE + " --to-snapshot " + firstSnapshot);

    String[] again = cli("rollback", "--to-snapshot", Long.toString(firstSnapshot));

    assertThat(again[0]).as(again[2]).isEqualTo("0");
    assertThat(again[2]).contains("finishing " + intended.changeId());
    assertThat(deployment.ledger.change(intended.changeId()).orElseThrow().state())
        .isEqualTo(TableChange.ChangeState.APPLIED);
    assertThat(runOnce()).hasSize(2);
    assertThat(rows()).isEqualTo(whole);
  }

  @Test
  @Order(5)
  void rollbackKilledBeforeTheTableChangedIsFinishedByRunningItAgain() {
    long before = currentSnapshot();
    // Killed right after its intent was written: the ledger has it, the table is untouched.
    Instant now = Instant.now();
    List<String> batches = deployment.ledger.batches(TABLE).stream()
        .filter(b -> b.state() == BatchState.COMMITTED && b.snapshotId().orElse(0L) != firstSnapshot)
        .map(b -> b.batchId()).toList();
    assertThat(batches).hasSize(2);
    deployment.ledger.intendChange(new TableChange("rollback-killed", TABLE, TableChange.ChangeKind.ROLLBACK,
        TableChange.ChangeState.INTENDED, Optional.of(before), Optional.of(firstSnapshot), batches, List.of(),
        List.of(), false, "ops", Optional.empty(), Optional.empty(), now, now));
    assertThat(runOnce()).as("claims wait for the change").isEmpty();

    String[] again = cli("rollback", "--to-snapshot", Long.toString(firstSnapshot));

    assertThat(again[0]).as(again[2]).isEqualTo("0");
    assertThat(rows()).isEqualTo(firstRows);
    assertThat(deployment.ledger.change("rollback-killed").orElseThrow().state())
        .isEqualTo(TableChange.ChangeState.APPLIED);
    assertThat(runOnce()).hasSize(2);
    assertThat(rows()).isEqualTo(whole);
  }

  @Test
  @Order(6)
  void droppedPartitionIsGoneUntilAReplayBringsItBack() {
    String[] dry = cli("drop-partition", "--partition", "2026-12-02", "--dry-run", "--json");
    assertThat(dry[0]).as(dry[2]).isEqualTo("0");
    JsonNode planned = JsonLinesOutput.one("drop_partition", JsonLinesOutput.parse(dry[1]));
    assertThat(planned.path("tableSide").path("outcome").asText()).isEqualTo("planned");
    assertThat(planned.path("tableSide").path("rowsDeleted").asLong()).isEqualTo(2);
    assertThat(planned.has("change")).isFalse();
    assertThat(rows()).isEqualTo(whole);

    String[] dropped = cli("drop-partition", "--partition", "2026-12-02", "--reason", "bad upstream day");

    assertThat(dropped[0]).as(dropped[2]).isEqualTo("0");
    assertThat(dropped[1]).contains("dropped partition 2026-12-02 of " + TABLE, "2 row(s) deleted in snapshot ",
        "1 file(s) dropped in 1 partition(s)");
    Set<String> without = new TreeSet<>(whole);
    without.remove("b1=10@2026-12-02");
    without.remove("a1=100@2026-12-02"); // its row lived in the partition dropped
    assertThat(rows()).isEqualTo(without);
    assertThat(deployment.ledger.partition(TABLE, "2026-12-02").orElseThrow().state())
        .isEqualTo(PartitionState.DROPPED);
    assertThat(deployment.ledger.filesOfPartition(TABLE, "2026-12-02")).extracting(FileRecord::state)
        .containsOnly(FileState.DROPPED);
    assertThat(runOnce()).isEmpty();

    String[] replay = cli("replay", "--partition", "2026-12-02", "--force");
    assertThat(replay[0]).as(replay[2]).isEqualTo("0");
    assertThat(runOnce()).hasSize(1);
    assertThat(rows()).isEqualTo(whole);
  }


  @Test
  @Order(7)
  void theChangeFeedNamesWhoRolledBackOrDroppedAndWhy() throws Exception {
    String[] feed = cli("changes", "--since", started.toString(), "--json");

    assertThat(feed[0]).as(feed[2]).isEqualTo("0");
    List<JsonNode> lines = ChangesEndToEndTest.validLines(feed[1]);
    List<JsonNode> rollbacks = lines.stream().filter(l -> l.path("change").asText().equals("rollback")).toList();
    assertThat(rollbacks).hasSize(4);
    assertThat(rollbacks.get(0).path("operator").path("actor").asText()).isEqualTo("ops@example.com");
    assertThat(rollbacks.get(0).path("operator").path("reason").asText()).isEqualTo("bad amounts");
    assertThat(rollbacks.get(1).path("operator").path("hold").asBoolean()).isTrue();
    JsonNode drop = lines.stream().filter(l -> l.path("change").asText().equals("drop-partition")).findFirst()
        .orElseThrow();
    assertThat(drop.path("operator").path("reason").asText()).isEqualTo("bad upstream day");
    assertThat(drop.path("partitions")).extracting(JsonNode::asText).containsExactly("2026-12-02");

    // The change events: those the commands published are in the home's file, the last run's still
    // in the outbox (its runner publishes none); together, one for every batch and change, once.
    List<String> published = new ArrayList<>();
    for (String line : Files.readAllLines(deployment.home.root().resolve("events").resolve("changes.jsonl"))) {
      published.add(JsonLines.parse(line).path("eventId").asText());
    }
    assertThat(published).doesNotHaveDuplicates();
    List<String> events = new ArrayList<>(published);
    deployment.ledger.pendingEvents(1000).forEach(event -> events.add(event.eventId()));
    List<String> expected = new ArrayList<>();
    deployment.ledger.batches(TABLE).stream()
        .filter(b -> b.state() == BatchState.COMMITTED || b.state() == BatchState.ROLLED_BACK)
        .forEach(b -> expected.add(b.batchId()));
    deployment.ledger.changes(TABLE).stream().filter(c -> c.state() == TableChange.ChangeState.APPLIED)
        .forEach(c -> expected.add(c.changeId()));
    assertThat(events).containsExactlyInAnyOrderElementsOf(expected);
  }
}
