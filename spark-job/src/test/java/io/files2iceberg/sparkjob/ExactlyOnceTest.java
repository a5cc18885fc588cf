package io.files2iceberg.sparkjob;

import static io.files2iceberg.sparkjob.JobFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.manifest.BatchLoadReport.Checkpoint;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import io.files2iceberg.sparkjob.extract.LiveGenerations;
import io.files2iceberg.sparkjob.load.IcebergLoad;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;

/** The table is the record of what is committed: a batch is written once, whatever happens around it. */
class ExactlyOnceTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType EVENTS = new StructType()
      .add("id", DataTypes.LongType)
      .add("amount", DataTypes.IntegerType)
      .add("updated_at", DataTypes.LongType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  @AfterEach
  void defaultLedger() {
    fixture.openLedgersWith(path -> io.files2iceberg.core.ledger.sqlite.SqliteLedger.open(path, fixture.clock));
  }

  static TableProfile events(String table) {
    return fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        load {
          iceberg.table = "local.once.%s"
          primary-key = [id]
          iceberg.precombine-field = updated_at
        }
        """.formatted(fixture.landing(table), table));
  }

  static Landed eventsFile(String table, String partition, Row... rows) {
    return Landed.of(fixture.writeFile("parquet", table + "/" + partition + "/part-0.parquet", EVENTS, List.of(rows)),
        partition);
  }

  @Test
  void sameBatchRunTwiceLeavesTheTableUnchangedAndReportsAlreadyCommitted() {
    BatchManifest batch = fixture.claimBatch(events("twice"),
        eventsFile("twice", "p1", RowFactory.create(1L, 10, 1L), RowFactory.create(2L, 20, 1L)));
    Path manifest = fixture.writeManifest(batch);
    assertThat(fixture.runJob(manifest)).isEqualTo(BatchJob.EXIT_OK);
    BatchLoadReport first = fixture.report();
    long snapshots = fixture.snapshotCount("local.once.twice");

    int again = fixture.runJob(manifest);

    assertThat(again).isEqualTo(BatchJob.EXIT_OK);
    BatchLoadReport second = fixture.report();
    assertThat(second.alreadyCommitted()).isTrue();
    assertThat(second.snapshotId()).isEqualTo(first.snapshotId());
    assertThat(second.checkpoint()).isEqualTo(Checkpoint.ALREADY_COMMITTED);
    assertThat(second.metrics().rowsInserted()).isZero();
    assertThat(fixture.snapshotCount("local.once.twice")).isEqualTo(snapshots);
    assertThat(fixture.rows("SELECT id, amount FROM local.once.twice ORDER BY id")).containsExactly("[1,10]", "[2,20]");
    assertThat(fixture.rows("SELECT summary['" + IcebergLoad.BATCH_ID_PROPERTY + "'], length(summary['"
            + IcebergLoad.EVENT_DIGEST_PROPERTY + "']) FROM local.once.twice.snapshots WHERE snapshot_id = "
            + first.snapshotId()))
        .containsExactly("[" + batch.batchId() + ",16]");
  }

  @Test
  void crashBetweenTheIcebergCommitAndTheCheckpointIsFinalizedByTheRerunWithoutWritingAgain() throws Exception {
    BatchManifest batch = fixture.claimBatch(events("crash"), eventsFile("crash", "p1", RowFactory.create(1L, 10, 1L)));
    Path manifest = fixture.writeManifest(batch);
    // Another process holds the ledger's write lock from just after the job opened the ledger
    // until after the Iceberg commit: the checkpoint gives up after its busy timeout.
    AtomicReference<Connection> lock = new AtomicReference<>();
    fixture.openLedgersWith(path -> {
      Ledger ledger = SqliteLedger.open(path, fixture.clock, Duration.ofMillis(300));
      lock.set(writeLock(path));
      return ledger;
    });

    int crashed = fixture.runJob(manifest);

    assertThat(crashed).isEqualTo(BatchJob.EXIT_CHECKPOINT_FAILED);
    assertThat(fixture.stderr).contains("table local.once.crash batch " + batch.batchId()
        + " is committed to Iceberg as snapshot").contains("ledger checkpoint failed");
    BatchLoadReport crashedReport = fixture.report();
    assertThat(crashedReport.checkpoint()).isEqualTo(Checkpoint.FAILED);
    long snapshot = crashedReport.snapshotId();
    lock.get().rollback();
    lock.get().close();
    defaultLedger();
    try (Ledger ledger = fixture.openLedger()) {
      assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);
    }
    long snapshots = fixture.snapshotCount("local.once.crash");

    int rerun = fixture.runJob(manifest);

    assertThat(rerun).isEqualTo(BatchJob.EXIT_OK);
    BatchLoadReport report = fixture.report();
    assertThat(report.alreadyCommitted()).isTrue();
    assertThat(report.snapshotId()).isEqualTo(snapshot);
    assertThat(report.checkpoint()).isEqualTo(Checkpoint.COMMITTED);
    assertThat(fixture.snapshotCount("local.once.crash")).isEqualTo(snapshots);
    assertThat(fixture.rows("SELECT id, amount FROM local.once.crash")).containsExactly("[1,10]");
    try (Ledger ledger = fixture.openLedger()) {
      BatchRecord stored = ledger.batch(batch.batchId()).orElseThrow();
      assertThat(stored.state()).isEqualTo(BatchState.COMMITTED);
      assertThat(stored.snapshotId()).contains(snapshot);
    }
  }

  /**
   * Two runs of one batch at once (a job a killed batcher left running beside recovery's relaunch,
   * were the lease ever to allow it): both pass the ancestry check before either commits, and the
   * table's serializable isolation lets only one MERGE commit; the other fails on the conflict (or,
   * started after the commit, finds the batch committed). The batch is in exactly one snapshot.
   */
  @Test
  void twoRunsOfOneBatchAtOnceCommitItInExactlyOneSnapshot() throws Exception {
    fixture.load(fixture.claimBatch(events("race"),
        eventsFile("race", "p0", RowFactory.create(1L, 10, 1L), RowFactory.create(2L, 20, 1L))));
    BatchManifest batch = fixture.claimBatch(events("race"),
        eventsFile("race", "p1", RowFactory.create(1L, 11, 2L), RowFactory.create(3L, 30, 1L)));
    Path manifest = fixture.writeManifest(batch);
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<String>> runs = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        runs.add(pool.submit(() -> {
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          ByteArrayOutputStream err = new ByteArrayOutputStream();
          start.await();
          int code;
          try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
              PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new BatchJob(fixture.clock, outStream, errStream, m -> fixture.spark, s -> fixture.openLedger(),
                LiveGenerations.byScheme()).execute(new String[] {"--manifest", manifest.toString()});
          }
          return code + " " + out.toString(StandardCharsets.UTF_8).strip() + " " + err.toString(StandardCharsets.UTF_8);
        }));
      }
      start.countDown();
      List<String> outcomes = new ArrayList<>();
      for (Future<String> run : runs) {
        outcomes.add(run.get(5, TimeUnit.MINUTES));
      }
      assertThat(outcomes).as("one run loads the batch").filteredOn(o -> o.startsWith(BatchJob.EXIT_OK + " ")
          && BatchLoadReport.fromMetricsLine(o.substring(2).strip().split("\\R")[0])
              .map(r -> !r.alreadyCommitted()).orElse(false)).hasSize(1);
      // Iceberg names the conflict in one of two ways, by when the loser's scan meets the winner's
      // commit: at its commit ("Found conflicting files") or at its runtime filter ("the table has
      // been concurrently modified"). Either way the loser fails as transient, to be retried.
      assertThat(outcomes).as("the other fails on the conflict or finds the batch committed")
          .anySatisfy(o -> assertThat(o).satisfiesAnyOf(
              other -> assertThat(other).startsWith(BatchJob.EXIT_FAILED + " ").containsAnyOf("Found conflicting files",
                  "the table has been concurrently modified"),
              other -> assertThat(other).startsWith(BatchJob.EXIT_OK + " ").contains("\"alreadyCommitted\":true")));
    } finally {
      pool.shutdownNow();
    }
    assertThat(fixture.rows("SELECT count(*) FROM local.once.race.snapshots WHERE summary['"
        + IcebergLoad.BATCH_ID_PROPERTY + "'] = '" + batch.batchId() + "'")).containsExactly("[1]");
    assertThat(fixture.rows("SELECT id, amount FROM local.once.race ORDER BY id"))
        .containsExactly("[1,11]", "[2,20]", "[3,30]");
    try (Ledger ledger = fixture.openLedger()) {
      assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
    }
  }

  @Test
  void backfillWritesTheTableButNothingToTheLedger() {
    TableProfile profile = fixture.profile("backfill", """
        extract {
          path = "file://%s/*/*.parquet"
          save-checkpoint = false
        }
        load.iceberg.table = "local.once.backfill"
        load.primary-key = [id]
        """.formatted(fixture.landing("backfill")));
    BatchManifest batch = fixture.claimBatch(profile, eventsFile("backfill", "p1", RowFactory.create(1L, 10, 1L)));

    BatchLoadReport report = fixture.load(batch);

    assertThat(report.checkpoint()).isEqualTo(Checkpoint.SKIPPED);
    assertThat(fixture.rows("SELECT id FROM local.once.backfill")).containsExactly("[1]");
    try (Ledger ledger = fixture.openLedger()) {
      assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);
    }
  }

  @Test
  void manifestThatIsNotJsonExitsWithTwoNamingTheManifest() throws Exception {
    Path manifest = Files.writeString(home.resolve("broken.json"), "{\"format\": ");

    int code = fixture.runJob(manifest);

    assertThat(code).isEqualTo(BatchJob.EXIT_INVALID_MANIFEST);
    assertThat(fixture.stderr).startsWith("files2iceberg: Invalid manifest " + manifest + ": not JSON");
    assertThat(fixture.stdout).isEmpty();
  }

  @Test
  void manifestWhoseFilesAreNotTheLedgersBatchExitsWithTwoAndWritesNothing() {
    TableProfile profile = events("mismatch");
    BatchManifest claimed = fixture.claimBatch(profile, eventsFile("mismatch", "p1", RowFactory.create(1L, 10, 1L)));
    ManifestFile stranger = new ManifestFile("not-in-the-batch", claimed.files().get(0).uri(), "p1", 2, 1, "e", START);
    BatchManifest tampered = new BatchManifest(claimed.version(), claimed.batchId(), profile, claimed.deployment(), claimed.mode(), true,
        claimed.createdAt(), List.of(claimed.files().get(0), stranger));

    int code = fixture.runJob(fixture.writeManifest(tampered));

    assertThat(code).isEqualTo(BatchJob.EXIT_INVALID_MANIFEST);
    assertThat(fixture.stderr).contains("Invalid manifest of batch " + claimed.batchId() + ": files [" + claimed.files().get(0).fileId() + ", not-in-the-batch] are not the ledger's");
    assertThat(fixture.spark.catalog().tableExists("local.once.mismatch")).isFalse();
  }

  @Test
  void missingManifestArgumentPrintsUsageAndExitsWithTwo() {
    BatchJob job = new BatchJob(fixture.clock, System.out, new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
        m -> fixture.spark, settings -> fixture.openLedger());

    assertThat(job.execute(new String[0])).isEqualTo(BatchJob.EXIT_INVALID_MANIFEST);
  }

  /**
   * A connection holding the database's write lock, as another process's open transaction would:
   * with the IMMEDIATE transaction mode, turning auto-commit off runs {@code BEGIN IMMEDIATE}.
   */
  private static Connection writeLock(Path db) {
    try {
      SQLiteConfig config = new SQLiteConfig();
      config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
      Connection connection = config.createConnection("jdbc:sqlite:" + db);
      connection.setAutoCommit(false);
      return connection;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
