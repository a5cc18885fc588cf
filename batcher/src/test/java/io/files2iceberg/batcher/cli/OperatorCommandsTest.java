package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.reconcile.ReconcileCommand;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.SqliteLedger;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code replay}, {@code backfill} and {@code reconcile} on a landing folder and the embedded
 * ledger, without Spark: what they list, what they record, what they print and their exit codes.
 * Notified files are recorded the way the listener records them (its identity, READY by marker).
 */
class OperatorCommandsTest {
  private static final String TABLE = "local.test.clicks";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private Path home;
  private Path landing;
  private Path config;
  private StringWriter out;
  private StringWriter err;
  private Instant nextTime = Instant.now().minusSeconds(3600);

  @BeforeEach
  void deployment() throws IOException {
    home = dir.resolve("home");
    landing = Files.createDirectories(dir.resolve("landing"));
    config = dir.resolve("clicks.conf");
    Files.writeString(config, """
        extract {
          path = "file://%s/clicks/dt=*/*.csv"
          format = csv
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{8})/.+"
            date-format = "yyyyMMdd"
          }
        }
        load.iceberg.table = "%s"
        load.primary-key = [id]
        """.formatted(landing, TABLE));
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  private int command(String name, String... more) {
    String[] args = new String[more.length + 5];
    args[0] = name;
    args[1] = "--config";
    args[2] = config.toString();
    args[3] = "--home";
    args[4] = home.toString();
    System.arraycopy(more, 0, args, 5, more.length);
    return run(args);
  }

  /** Writes a landing file; each write gets a later modification time, so a new generation. */
  private Path write(String partition, String file, String content) throws IOException {
    Path path = landing.resolve("clicks/dt=" + partition + "/" + file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, content);
    nextTime = nextTime.plusSeconds(1);
    Files.setLastModifiedTime(path, FileTime.from(nextTime));
    return path;
  }

  private SqliteLedger ledger() {
    return SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC());
  }

  /** As the listener records a notified data file. */
  private static String notified(SqliteLedger ledger, String token, Path file) throws IOException {
    ObjectLocation object = ObjectLocation.file(file);
    return ledger.recordFile(new RecordFile(TABLE, token, "", object.name(),
        Files.getLastModifiedTime(file).to(TimeUnit.MICROSECONDS), object.uri(), Files.size(file),
        "msg-" + file.getFileName(), Instant.now(), Optional.empty(), false)).file().fileId();
  }

  private static void notifiedMarker(SqliteLedger ledger, String token, Path marker) {
    ledger.markReady(new MarkReady(TABLE, token, ObjectLocation.file(marker).folderUri(), "msg-marker-" + token,
        Instant.now()));
  }

  private static void ingestEverything(SqliteLedger ledger) {
    Optional<BatchRecord> batch;
    long snapshot = 1;
    while ((batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5), true))).isPresent()) {
      ledger.commitBatch(new CommitBatch(batch.get().batchId(), snapshot++, BatchMetrics.EMPTY));
    }
  }

  @Test
  void reconcileFindsExactlyTheLostNotificationsAndFixLandsThemOnce() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path a1 = write("20240101", "part-1.csv", "id\n2\n");
    Path aMarker = write("20240101", "_SUCCESS", "");
    Path b0 = write("20240102", "part-0.csv", "id\n3\n");
    Path b1 = write("20240102", "part-1.csv", "id\n4\n");
    write("20240102", "_SUCCESS", "");
    Path c0 = write("20240103", "part-0.csv", "id\n5\n");
    try (SqliteLedger ledger = ledger()) {
      // Notifications lost on purpose: 2024-01-02's part-1 and marker, 2024-01-03's only file.
      notified(ledger, "2024-01-01", a0);
      notified(ledger, "2024-01-01", a1);
      notifiedMarker(ledger, "2024-01-01", aMarker);
      notified(ledger, "2024-01-02", b0);
    }

    int drift = command("reconcile", "--table", TABLE);

    assertThat(drift).as(err.toString()).isEqualTo(ReconcileCommand.EXIT_DRIFT);
    assertThat(out.toString()).isEqualTo("""
        reconcile %s every partition: 3 partition(s), 5 data file(s) listed in 4 list call(s): drift found
          missing from the ledger (lost notifications): 2
            %s
            %s
          success marker present but not READY: 1
            2024-01-02
          recorded but gone from the bucket: 0
          stuck READY: 0
        """.formatted(TABLE, "file://" + b1, "file://" + c0));
    assertThat(err.toString()).contains("[reconcile] listed 5 data file(s) in every partition of " + TABLE);

    int fixed = command("reconcile", "--table", TABLE, "--fix");

    assertThat(fixed).as(err.toString()).isZero();
    assertThat(out.toString()).contains("fixed: recorded 2 file(s) and 1 marker(s)");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.filesOfPartition(TABLE, "2024-01-02")).extracting(FileRecord::eventId)
          .containsExactly("msg-part-0.csv", "reconcile");
      assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.READY);
      assertThat(ledger.partition(TABLE, "2024-01-03").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
      assertThat(ledger.tableStatus(TABLE).filesByState()).containsEntry(FileState.RECORDED, 5L);
    }

    int clean = command("reconcile", "--table", TABLE, "--json");

    assertThat(clean).as(err.toString()).isZero();
    JsonNode report = JSON.readTree(out.toString()).get(0);
    assertThat(report.get("missingFiles")).isEmpty();
    assertThat(report.get("markedNotReady")).isEmpty();
    assertThat(report.get("listCalls").asInt()).isEqualTo(4);
  }

  @Test
  void reconcileReportsDeletedFilesAndStuckPartitionsWithoutFixingThem() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path gone = write("20240101", "part-1.csv", "id\n2\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notified(ledger, "2024-01-01", gone);
      notifiedMarker(ledger, "2024-01-01", marker);
    }
    Files.delete(gone);
    TimeUnit.MILLISECONDS.sleep(1100);

    int code = command("reconcile", "--from", "20240101", "--to", "20240131", "--stuck-after", "1s", "--fix");

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("reconcile " + TABLE + " partitions 2024-01-01 to 2024-01-31: 1 partition(s)")
        .contains("recorded but gone from the bucket: 1\n    file://" + gone + "#")
        .contains("stuck READY: 1\n    2024-01-01 (READY since ");

    assertThat(command("reconcile", "--table", TABLE, "--from", "20240102")).isEqualTo(0);
    assertThat(out.toString()).contains("partitions 2024-01-02 to (last): 0 partition(s)").contains("no drift");
  }

  @Test
  void reconcileDoesNotReportADeletedObjectWhoseGenerationTheLedgerHasSuperseded() throws Exception {
    Path kept = write("20240101", "part-0.csv", "id\n1\n");
    Path gone = write("20240101", "part-1.csv", "id\n2\n");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", kept);
      String goneId = notified(ledger, "2024-01-01", gone);
      ledger.supersedeFile(goneId, "deleted before it was read");
    }
    Files.delete(gone);

    int code = command("reconcile", "--table", TABLE, "--json");

    assertThat(code).as(err.toString()).isZero();
    JsonNode report = JSON.readTree(out.toString()).get(0);
    assertThat(report.get("deletedFiles")).as("the job found it gone; the ledger says so").isEmpty();
  }

  @Test
  void backfillInterruptedByItsLimitResumesWithoutListingWhatItRecorded() throws Exception {
    for (int day = 1; day <= 6; day++) {
      write("2024010" + day, "part-0.csv", "id\n" + day + "\n");
      write("2024010" + day, "_SUCCESS", "");
    }
    write("20240107", "part-0.csv", "id\n7\n"); // no marker yet

    assertThat(command("backfill", "--table", TABLE, "--limit", "3", "--json")).as(err.toString()).isZero();
    JsonNode first = JSON.readTree(out.toString());
    assertThat(first.get("recordedPartitions").toString()).isEqualTo("[\"2024-01-01\",\"2024-01-02\",\"2024-01-03\"]");
    assertThat(first.get("remaining").asInt()).isEqualTo(4);
    assertThat(first.get("listCalls").asInt()).as("one folder read, then one per partition recorded").isEqualTo(4);
    assertThat(err.toString()).contains("[backfill] found 7 partition folder(s)")
        .contains("[backfill] recorded 3/7 partition(s): 2024-01-03 (1 new file(s))");

    assertThat(command("backfill", "--table", TABLE)).as(err.toString()).isZero();
    assertThat(out.toString()).isEqualTo("""
        backfill %s every partition: 7 partition folder(s) found, 5 list call(s)
          recorded: 4 partition(s), 4 new file(s), 0 already known
          skipped, already recorded: 3 partition(s)
          waiting for their success marker: 2024-01-07
          the next batcher run loads them, oldest first (or pass --run)
        """.formatted(TABLE));

    assertThat(command("backfill", "--table", TABLE, "--json")).isZero();
    JsonNode third = JSON.readTree(out.toString());
    assertThat(third.get("skipped")).hasSize(6);
    assertThat(third.get("filesRecorded").asInt()).isZero();
    assertThat(third.get("listCalls").asInt()).as("the folders, and the one partition still without marker")
        .isEqualTo(2);
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partitions(TABLE)).extracting(p -> p.state()).containsExactly(PartitionState.READY,
          PartitionState.READY, PartitionState.READY, PartitionState.READY, PartitionState.READY, PartitionState.READY,
          PartitionState.OPEN);
      assertThat(ledger.filesOfPartition(TABLE, "2024-01-04")).extracting(FileRecord::eventId).containsExactly("backfill");
    }
  }

  @Test
  void backfillDryRunChangesNothing() throws Exception {
    write("20240101", "part-0.csv", "id\n1\n");
    write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.tables()).isEmpty();
    }

    assertThat(command("backfill", "--table", TABLE, "--dry-run")).isZero();

    assertThat(out.toString()).startsWith("backfill (dry run) " + TABLE).contains("1 new file(s)");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.tables()).isEmpty();
    }
  }

  @Test
  void replayOfAnIngestedPartitionRecordsOnlyChangedFilesAndForceReloadsAll() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path a1 = write("20240101", "part-1.csv", "id\n2\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notified(ledger, "2024-01-01", a1);
      notifiedMarker(ledger, "2024-01-01", marker);
      ingestEverything(ledger);
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101")).as(err.toString()).isZero();

    assertThat(out.toString()).startsWith("replay " + TABLE + " partition 2024-01-01: 1 partition(s), 2 data file(s)"
        + " listed in 1 list call(s)\n  recorded: 0 new file(s), 2 already known\n");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }

    Path rewritten = write("20240101", "part-1.csv", "id\n2\n22\n");
    assertThat(command("replay", "--table", TABLE, "--partition", "2024-01-01")).isZero();
    assertThat(out.toString()).contains("recorded: 1 new file(s), 1 already known");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
      BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5), true))
          .orElseThrow();
      assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::uri).containsExactly("file://" + rewritten);
      assertThat(ledger.filesOfBatch(batch.batchId()).get(0).eventId()).isEqualTo("replay");
      ledger.commitBatch(new CommitBatch(batch.batchId(), 9, BatchMetrics.EMPTY));
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force", "--dry-run")).isZero();
    assertThat(out.toString()).contains("reopened: 2024-01-01");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }
    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force")).isZero();
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
      assertThat(ledger.filesOfPartition(TABLE, "2024-01-01")).extracting(FileRecord::state)
          .containsOnly(FileState.RECORDED);
    }
  }

  @Test
  void replayForceOfAKeylessAppendTableIsRefusedBecauseItWouldAppendThePartitionTwice() throws Exception {
    Files.writeString(config, Files.readString(config).replace("load.primary-key = [id]\n", ""));
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notifiedMarker(ledger, "2024-01-01", marker);
      ingestEverything(ledger);
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force"))
        .isEqualTo(Files2Iceberg.EXIT_INVALID);

    assertThat(err.toString()).contains("replay --force: table " + TABLE + " appends without a primary key")
        .contains("append its rows a second time");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }
  }

  @Test
  void replayWithoutCheckpointOfAKeylessAppendTableIsRefusedBecauseItWouldAppendTheFilesAgain() throws Exception {
    Files.writeString(config, Files.readString(config).replace("load.primary-key = [id]\n", ""));
    write("20240101", "part-0.csv", "id\n1\n");
    write("20240101", "_SUCCESS", "");

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--no-checkpoint"))
        .isEqualTo(Files2Iceberg.EXIT_INVALID);

    assertThat(err.toString()).contains("replay --no-checkpoint: table " + TABLE + " appends without a primary key")
        .contains("a second time");
    assertThat(out.toString()).doesNotContain("file(s) listed");
  }

  @Test
  void replayForceLeavesAClaimedPartitionAndNamesIt() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notifiedMarker(ledger, "2024-01-01", marker);
      ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5), true)).orElseThrow();
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force")).isZero();

    assertThat(out.toString()).contains("reopened: -\n").contains("not reopened: 2024-01-01 (CLAIMED)");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    }
  }

  @Test
  void replaySkipsAPartitionWithoutItsMarker() throws Exception {
    write("20240105", "part-0.csv", "id\n1\n");

    assertThat(command("replay", "--table", TABLE, "--from", "20240101", "--to", "20240110")).isZero();

    assertThat(out.toString()).contains("recorded: 0 new file(s)").contains("skipped, no success marker: 2024-01-05");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.tables()).isEmpty();
    }
  }

  @Test
  void badInputIsRejectedNamingTheOptionWithExitCode2() throws Exception {
    assertThat(command("replay", "--table", "local.test.nope", "--partition", "20240101")).isEqualTo(2);
    assertThat(err.toString()).contains("--table local.test.nope: no profile in " + config
        + " loads it; tables there: " + TABLE);

    assertThat(command("replay", "--table", TABLE, "--from", "2024-13-01")).isEqualTo(2);
    assertThat(err.toString()).contains("--from 2024-13-01: not a date in the date-format \"yyyyMMdd\" of table "
        + TABLE + " (nor yyyy-MM-dd)");

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--to", "20240102")).isEqualTo(2);
    assertThat(err.toString()).contains("--partition: give it or --from/--to, not both");

    assertThat(command("replay", "--table", TABLE)).isEqualTo(2);
    assertThat(err.toString()).contains("--partition or --from/--to: required");

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force", "--no-checkpoint"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--force: not with --no-checkpoint");

    assertThat(command("reconcile", "--from", "20240105", "--to", "20240101")).isEqualTo(2);
    assertThat(err.toString()).contains("--from 20240105 is after --to 20240101");

    assertThat(command("backfill", "--table", TABLE, "--limit", "-1")).isEqualTo(2);
    assertThat(err.toString()).contains("--limit: must be 0 (all) or more, got -1");

    assertThat(run("reconcile", "--home", home.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("Missing required option: '--config=FILE|DIR'");
  }

  @Test
  void everyCommandHasHelp() {
    for (String name : List.of("replay", "backfill", "reconcile")) {
      assertThat(run(name, "--help")).isZero();
      assertThat(out.toString()).startsWith("Usage: files2iceberg " + name).contains("--dry-run").contains("--json");
    }
  }
}
