package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.retry.RetryPlan;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ExpectationCounts;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Crashes between two steps, then a run: every batch ends in the table exactly once. Three tables,
 * one run:
 *
 * <ul>
 *   <li>{@code orphan}: claimed and marked RUNNING, then its batcher died before launching;
 *   <li>{@code halfdone}: its job committed to Iceberg, then its batcher died before any
 *       checkpoint (the job ran with {@code saveCheckpoint = false}, so the ledger never heard);
 *   <li>{@code locked}: its first job committed to Iceberg while the ledger was locked, so the
 *       checkpoint failed (exit 3);
 *   <li>{@code gaveup}: its job committed to Iceberg without a checkpoint, then the batcher gave up
 *       on it (FAILED, "the table may hold the batch", its partitions FAILED), and the operator's
 *       {@code retry} revived it under its own id.
 * </ul>
 */
class RecoveryRunTest {
  private static final String ORPHAN = "local.test.orphan";
  private static final String HALFDONE = "local.test.halfdone";
  private static final String LOCKED = "local.test.locked";
  private static final String GAVEUP = "local.test.gaveup";

  @TempDir Path dir;

  @Test
  void expiredBatchesAreRelaunchedAndCommittedOnesOnlyFinalized() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("orphan", "");
      landing.profile("halfdone", "");
      landing.profile("locked", "");
      landing.profile("gaveup", "");
      landing.land("orphan", "p1", 2, 1);
      landing.land("halfdone", "p1", 2, 10);
      landing.land("locked", "p1", 1, 20);
      landing.land("gaveup", "p1", 2, 30);
      LocalSparkLauncher launcher = landing.launcher();
      Duration lease = Duration.ofMinutes(10);

      BatchRecord orphan = landing.ledger.claimPartitions(new ClaimPartitions(ORPHAN, 100, lease, true)).orElseThrow();
      landing.ledger.markRunning(orphan.batchId(), lease);

      BatchRecord halfdone =
          landing.ledger.claimPartitions(new ClaimPartitions(HALFDONE, 100, lease, true)).orElseThrow();
      long halfdoneSnapshot = commitWithoutCheckpoint(landing, launcher, halfdone, lease);

      BatchRecord gaveup = landing.ledger.claimPartitions(new ClaimPartitions(GAVEUP, 100, lease, true)).orElseThrow();
      long gaveupSnapshot = commitWithoutCheckpoint(landing, launcher, gaveup, lease);
      landing.ledger.failBatch(new FailBatch(gaveup.batchId(),
          "gave up after 3 attempt(s); " + UnknownOutcome.PHRASE + ": the job was killed", 1, true));
      assertThat(landing.ledger.partition(GAVEUP, "p1").orElseThrow().state()).isEqualTo(PartitionState.FAILED);
      RetryPlan retry = RetryPlan.ofBatch(landing.ledger, gaveup.batchId());
      assertThat(retry.revivals()).extracting(r -> r.batch().batchId()).containsExactly(gaveup.batchId());
      assertThat(retry.targets()).isEmpty();
      retry.apply(landing.ledger, done -> { });

      // Both batchers are gone for longer than the lease.
      landing.clock.advance(lease.plusMinutes(1));

      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      AtomicReference<JobResult> lockedFirst = new AtomicReference<>();
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger,
              profile -> profile.table().equals(LOCKED) ? lockingFirstCheckpoint(landing, launcher, lockedFirst) : launcher)
          .options(new RunOptions(3, Duration.ofMinutes(5)))
          .events(events::add)
          .build();

      RunSummary summary = runner.runOnce();

      assertThat(summary.failed()).as(landing::jobLogs).isEmpty();
      assertThat(summary.recovered()).extracting(BatchRecovered::batchId, BatchRecovered::attempt)
          .containsExactlyInAnyOrder(tuple(orphan.batchId(), 2), tuple(halfdone.batchId(), 2),
              tuple(gaveup.batchId(), 2));

      // orphan: launched again and loaded.
      BatchLoadReport orphanReport = committed(summary, ORPHAN).report();
      assertThat(orphanReport.batchId()).isEqualTo(orphan.batchId());
      assertThat(orphanReport.alreadyCommitted()).isFalse();
      assertThat(orphanReport.metrics().rowsInserted()).isEqualTo(2);

      // halfdone: the table had it; the relaunch only finalized the ledger, with that snapshot.
      BatchLoadReport halfdoneReport = committed(summary, HALFDONE).report();
      assertThat(halfdoneReport.alreadyCommitted()).isTrue();
      assertThat(halfdoneReport.snapshotId()).isEqualTo(halfdoneSnapshot);
      assertThat(halfdoneReport.metrics().rowsInserted()).isZero();
      assertThat(landing.ledger.batch(halfdone.batchId()).orElseThrow().snapshotId()).contains(halfdoneSnapshot);

      // locked: exit 3 (in the table, not in the ledger), launched again at once, finalized.
      assertThat(lockedFirst.get().exit()).isEqualTo(JobExit.CHECKPOINT_FAILED);
      long lockedSnapshot = lockedFirst.get().report().orElseThrow().snapshotId();
      assertThat(events.stream().filter(e -> e.table().equals(LOCKED)).map(e -> e.getClass().getSimpleName()))
          .containsExactly("BatchClaimed", "BatchLaunched", "BatchLaunched", "BatchCommitted");
      assertThat(events.stream().filter(e -> e instanceof BatchLaunched l && l.table().equals(LOCKED))
          .map(e -> ((BatchLaunched) e).attempt())).containsExactly(1, 2);
      BatchLoadReport lockedReport = committed(summary, LOCKED).report();
      assertThat(lockedReport.alreadyCommitted()).isTrue();
      assertThat(lockedReport.snapshotId()).isEqualTo(lockedSnapshot);

      // gaveup: revived, relaunched under its own id, found in the table: finalized with its snapshot.
      // Its relaunch is its second launch (its own log), although revival reset its attempts.
      assertThat(events.stream().filter(e -> e instanceof BatchLaunched l && l.table().equals(GAVEUP))
          .map(e -> ((BatchLaunched) e).attempt())).containsExactly(2);
      BatchLoadReport gaveupReport = committed(summary, GAVEUP).report();
      assertThat(gaveupReport.batchId()).isEqualTo(gaveup.batchId());
      assertThat(gaveupReport.alreadyCommitted()).isTrue();
      assertThat(gaveupReport.snapshotId()).isEqualTo(gaveupSnapshot);
      assertThat(landing.ledger.batch(gaveup.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
      assertThat(landing.ledger.batch(gaveup.batchId()).orElseThrow().snapshotId()).contains(gaveupSnapshot);

      for (String table : List.of(ORPHAN, HALFDONE, LOCKED, GAVEUP)) {
        assertThat(landing.ledger.tableStatus(table).partitionsByState()).containsOnlyKeys(PartitionState.INGESTED);
        assertThat(landing.ledger.tableStatus(table).inFlight()).isEmpty();
      }

      // Every row once, and one snapshot per batch: no batch was written twice.
      assertThat(TableRows.ids(landing, ORPHAN)).containsExactly(1L, 2L);
      assertThat(TableRows.ids(landing, HALFDONE)).containsExactly(10L, 11L);
      assertThat(TableRows.ids(landing, LOCKED)).containsExactly(20L);
      assertThat(TableRows.snapshots(landing, HALFDONE)).isEqualTo(1);
      assertThat(TableRows.snapshots(landing, LOCKED)).isEqualTo(1);
      assertThat(TableRows.ids(landing, GAVEUP)).containsExactly(30L, 31L);
      assertThat(TableRows.snapshots(landing, GAVEUP)).isEqualTo(1);
    }
  }

  /**
   * A revived batch counts as possibly committed although its attempts were reset: when its
   * relaunch cannot even start, it is left for recovery, its partitions never released to a new
   * batch (which could load its rows twice).
   */
  @Test
  void revivedBatchWhoseRelaunchFailsIsLeftForRecoveryNotReleased() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("gaveup", "");
      landing.land("gaveup", "p1", 1, 1);
      Duration lease = Duration.ofMinutes(10);
      BatchRecord batch = landing.ledger.claimPartitions(new ClaimPartitions(GAVEUP, 100, lease, true)).orElseThrow();
      landing.ledger.markRunning(batch.batchId(), lease);
      landing.ledger.failBatch(new FailBatch(batch.batchId(),
          "gave up after 3 attempt(s); " + UnknownOutcome.PHRASE + ": the job was killed", 1, true));
      landing.ledger.reviveBatch(batch.batchId());
      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> (manifest, uri, attempt) -> {
        throw new LaunchException("the cluster is unreachable", true);
      }).events(events::add).build();

      RunSummary summary = runner.runOnce();

      assertThat(summary.committed()).isEmpty();
      assertThat(events).filteredOn(BatchFailed.class::isInstance).singleElement()
          .extracting(e -> ((BatchFailed) e).after()).isEqualTo(AfterFailure.LEFT_FOR_RECOVERY);
      BatchRecord left = landing.ledger.batch(batch.batchId()).orElseThrow();
      assertThat(left.state()).isEqualTo(BatchState.RUNNING);
      assertThat(left.attempts()).isEqualTo(1);
      assertThat(landing.ledger.partition(GAVEUP, "p1").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
      assertThat(landing.ledger.findExpiredLeases()).isEmpty();
      landing.clock.advance(Duration.ofMillis(1));
      assertThat(landing.ledger.findExpiredLeases()).extracting(BatchRecord::batchId).containsExactly(batch.batchId());
    }
  }

  /**
   * The batcher is a process of its own ({@code batch run-once}) and is killed (SIGKILL) once its
   * job has started: the job, an orphan now, keeps running and logging to its file, and records
   * what it did in its result file. Recovery finds the orphan still running and waits for it
   * instead of launching a second job on the batch, then settles the batch from its result.
   */
  @Test
  void orphanedJobOfAKilledBatcherCommitsAndRecoveryWaitsForItsResult() throws Exception {
    try (Landing landing = new Landing(dir)) {
      // A JVM per batch, which outlives its batcher (WarmRunTest kills the batcher of a warm driver).
      landing.profile("orphan", "job.mode = per-batch\n");
      landing.land("orphan", "p1", 2, 1);
      Process batcher = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"), "-Xmx256m", "-XX:TieredStopAtLevel=1",
          "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "=" + Landing.SPARK_JOB_TARGET.toAbsolutePath().normalize(),
          "io.files2iceberg.batcher.cli.Files2Iceberg", "batch", "run-once", "--wait", "--config", landing.config.toString(),
          "--home", landing.home.root().toString())
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("batcher.out").toFile())
          .start();
      ProcessHandle job = null;
      try {
        job = startedJob(batcher, dir.resolve("batcher.out"), landing.home.metadata("orphan").resolve("logs"));
        batcher.destroyForcibly().waitFor();
        assertThat(job.isAlive()).as("the job outlives its batcher").isTrue();
        BatchRecord orphan = landing.ledger.tableStatus(ORPHAN).inFlight().get(0);
        String batchId = orphan.batchId();

        // The batcher's lease runs out; the next run recovers the batch while its job still runs.
        landing.clock.advance(Duration.ofHours(1));
        List<BatchEvent> events = new CopyOnWriteArrayList<>();
        LocalSparkLauncher launcher = landing.launcher();
        RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
            .options(new RunOptions(1, Duration.ofMinutes(5)))
            .events(events::add)
            .build()
            .runOnce();

        assertThat(summary.failed()).as(landing::jobLogs).isEmpty();
        // Recovery went on once the job's result was written; the job's JVM ends right after it
        // (seconds later when it is the build's first and writes its class-data archive as it exits).
        assertThat(job.onExit().get(60, TimeUnit.SECONDS).isAlive()).isFalse();
        assertThat(events).as("no second job on the batch").noneMatch(BatchLaunched.class::isInstance);
        assertThat(events).filteredOn(BatchEvent.BatchReattached.class::isInstance).singleElement()
            .extracting(e -> ((BatchEvent.BatchReattached) e).attempt()).isEqualTo(1);
        BatchLoadReport report = committed(summary, ORPHAN).report();
        assertThat(report.batchId()).isEqualTo(batchId);
        assertThat(report.alreadyCommitted()).isFalse();
        assertThat(report.metrics().rowsInserted()).isEqualTo(2);
        BatchRecord stored = landing.ledger.batch(batchId).orElseThrow();
        assertThat(stored.state()).isEqualTo(BatchState.COMMITTED);
        assertThat(stored.snapshotId()).contains(report.snapshotId());

        // The orphan's own record of what it did.
        Path resultFile = landing.home.metadata("orphan").resolve("batches").resolve(batchId + "-attempt1.result.json");
        AttemptResult result = AttemptResult.fromJson(Files.readString(resultFile), resultFile.toString());
        assertThat(result.exit()).isEqualTo(JobExit.LOADED);
        assertThat(result.attempt()).isEqualTo(1);
        assertThat(result.pid()).isEqualTo(job.pid());
        assertThat(result.report()).contains(report);
        Path log = landing.home.metadata("orphan").resolve("logs").resolve(batchId + "-attempt1.log");
        assertThat(Files.readString(log)).as("the orphan kept logging after its batcher died")
            .contains(report.toMetricsLine());

        // Every row once, in one snapshot.
        assertThat(TableRows.ids(landing, ORPHAN)).containsExactly(1L, 2L);
        assertThat(TableRows.snapshots(landing, ORPHAN)).isEqualTo(1);

        // inspect shows the attempt, its result and its log.
        StringWriter out = new StringWriter();
        CommandLine inspect = Files2Iceberg.newCommandLine();
        inspect.setOut(new PrintWriter(out, true));
        inspect.setErr(new PrintWriter(out, true));
        assertThat(inspect.execute("inspect", "--batch", batchId, "--config", landing.config.toString(), "--home",
            landing.home.root().toString())).as(out::toString).isZero();
        assertThat(out.toString()).contains("ATTEMPTS (1, oldest first)\n  attempt 1: exit 0 LOADED, committed snapshot "
            + report.snapshotId() + ", checkpoint committed, 2 row(s) inserted", "result " + resultFile, "log " + log);
        out.getBuffer().setLength(0);
        assertThat(inspect.execute("inspect", "--batch", batchId, "--json", "--config", landing.config.toString(),
            "--home", landing.home.root().toString())).as(out::toString).isZero();
        JsonNode attempt = JsonLinesOutput.one("attempt", JsonLinesOutput.parse(out.toString()));
        assertThat(attempt.get("attempt").asInt()).isEqualTo(1);
        assertThat(attempt.at("/result/exit").asText()).isEqualTo("loaded");
        assertThat(attempt.at("/result/report/snapshotId").textValue()).isEqualTo(String.valueOf(report.snapshotId()));
        assertThat(attempt.at("/result/report/rowsInserted").asLong()).isEqualTo(2);
        assertThat(attempt.get("resultLocation").asText()).isEqualTo(resultFile.toString());
        assertThat(attempt.get("log").asText()).isEqualTo(log.toString());
      } finally {
        batcher.destroyForcibly();
        if (job != null) {
          job.destroyForcibly();
        }
      }
    }
  }

  private static String commandLine(ProcessHandle process) {
    try {
      return Files.readString(Path.of("/proc", String.valueOf(process.pid()), "cmdline"));
    } catch (java.io.IOException e) {
      return process.info().commandLine().orElse("");
    }
  }

  /**
   * The batcher died after its job ended: the job's result is all that says what happened. A
   * result that has the batch in the table settles it (here the job's checkpoint had failed: the
   * checkpoint is written from the result); a rejected one fails it. Neither runs Spark again.
   */
  @Test
  void expiredBatchWhoseLatestAttemptLeftAResultIsSettledFromItWithoutAnotherJob() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("orphan", "");
      landing.profile("locked", "");
      landing.land("orphan", "p1", 1, 1);
      landing.land("locked", "p1", 1, 1);
      Duration lease = Duration.ofMinutes(10);
      BatchRecord committed = landing.ledger.claimPartitions(new ClaimPartitions(LOCKED, 100, lease, true)).orElseThrow();
      landing.ledger.markRunning(committed.batchId(), lease);
      BatchRecord rejected = landing.ledger.claimPartitions(new ClaimPartitions(ORPHAN, 100, lease, true)).orElseThrow();
      landing.ledger.markRunning(rejected.batchId(), lease);
      BatchLoadReport report = new BatchLoadReport(LOCKED, committed.batchId(), false, 4242L,
          BatchLoadReport.Checkpoint.FAILED, Optional.of("SQLITE_BUSY"),
          new io.files2iceberg.core.ledger.BatchMetrics(1, 10, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1), List.of(), Optional.empty(),
          Map.of(committed.fileIds().get(0), new FileRows(1, 0, 0, 0, Map.of("amount_positive", 1L))),
          Map.of("amount_positive", new ExpectationCounts("warn", 0, 1)));
      writeResult(landing, "locked", new AttemptResult(LOCKED, committed.batchId(), 1, 3, JobExit.CHECKPOINT_FAILED,
          Optional.of(report), Optional.of("files2iceberg: table " + LOCKED + " batch " + committed.batchId()
              + " is committed to Iceberg as snapshot 4242 but its ledger checkpoint failed: SQLITE_BUSY"), 1,
          Instant.now(), Instant.now()));
      String error = "files2iceberg: table " + ORPHAN + " batch " + rejected.batchId() + " rejected: column amount";
      writeResult(landing, "orphan", new AttemptResult(ORPHAN, rejected.batchId(), 1, 4, JobExit.REJECTED,
          Optional.empty(), Optional.of(error), 1, Instant.now(), Instant.now()));
      landing.clock.advance(lease.plusMinutes(1));
      List<BatchEvent> events = new CopyOnWriteArrayList<>();

      RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> (manifest, uri, attempt) -> {
        throw new AssertionError("launched " + manifest.batchId());
      }).events(events::add).build().runOnce();

      assertThat(events).noneMatch(BatchLaunched.class::isInstance);
      assertThat(committed(summary, LOCKED).report().snapshotId()).isEqualTo(4242L);
      BatchRecord settled = landing.ledger.batch(committed.batchId()).orElseThrow();
      assertThat(settled.state()).isEqualTo(BatchState.COMMITTED);
      assertThat(settled.snapshotId()).contains(4242L);
      // The file's counts come from the result too, with the rows that failed its expectations.
      FileRecord file = landing.ledger.file(committed.fileIds().get(0)).orElseThrow();
      assertThat(file.snapshotId()).contains(4242L);
      assertThat(file.rows()).contains(new FileRows(1, 0, 0, 0, Map.of("amount_positive", 1L)));
      assertThat(committed(summary, LOCKED).report().quality())
          .containsExactly(Map.entry("amount_positive", new ExpectationCounts("warn", 0, 1)));
      assertThat(landing.ledger.partition(LOCKED, "p1").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
      BatchFailed failed = (BatchFailed) events.stream().filter(BatchFailed.class::isInstance).findFirst().orElseThrow();
      assertThat(failed.batchId()).isEqualTo(rejected.batchId());
      assertThat(failed.error()).isEqualTo(error);
      assertThat(failed.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      assertThat(landing.ledger.batch(rejected.batchId()).orElseThrow().state()).isEqualTo(BatchState.FAILED);
      assertThat(landing.ledger.partition(ORPHAN, "p1").orElseThrow().state()).isEqualTo(PartitionState.FAILED);
    }
  }

  /** Writes a result where the job writes its first attempt's, beside the batch's manifest. */
  private static void writeResult(Landing landing, String profile, AttemptResult result) throws Exception {
    Path file = landing.home.metadata(profile).resolve("batches").resolve(result.batchId() + "-attempt1.result.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, result.toJson());
  }

  /** The Spark job the batcher started, once it runs; its batcher's output is in {@code out}. */
  /**
   * The batcher's job once the batcher has recorded it: the process is up and its pid is in the
   * attempt's {@code .pid} file in {@code logs}, where recovery looks for a job still running. (A
   * batcher killed before it writes that file leaves a job recovery cannot see: it launches the
   * batch again beside it. Seen here as a flaky run: the second job failed on the SQLite catalog's
   * lock while the first committed.)
   */
  private static ProcessHandle startedJob(Process batcher, Path out, Path logs) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<ProcessHandle> job = batcher.descendants()
          .filter(p -> commandLine(p).contains("io.files2iceberg.sparkjob.BatchJob"))
          .findFirst();
      if (job.isPresent() && pidRecorded(logs, job.get().pid())) {
        return job.get();
      }
      if (!batcher.isAlive()) {
        break;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the batcher started no job: " + Files.readString(out));
  }

  private static boolean pidRecorded(Path logs, long pid) throws java.io.IOException {
    if (!Files.isDirectory(logs)) {
      return false;
    }
    try (java.util.stream.Stream<Path> files = Files.list(logs)) {
      return files.filter(file -> file.getFileName().toString().endsWith("-attempt1.pid")).anyMatch(file -> {
        try {
          return Files.readString(file).strip().equals(Long.toString(pid));
        } catch (java.io.IOException e) {
          return false;
        }
      });
    }
  }

  /** Runs the batch's job without a checkpoint: it commits to Iceberg, the ledger never hears. */
  private static long commitWithoutCheckpoint(Landing landing, Launcher launcher, BatchRecord batch, Duration lease)
      throws Exception {
    landing.ledger.markRunning(batch.batchId(), lease);
    TableProfile profile = landing.registry().byTable(batch.table()).orElseThrow();
    BatchManifest withoutCheckpoint = BatchManifest.of(batch.batchId(), profile, landing.registry().deployment(), IngestionType.INCREMENTAL,
        false, batch.createdAt(), landing.ledger.filesOfBatch(batch.batchId()));
    String uri = new ManifestStore(() -> null).write(withoutCheckpoint);
    JobResult committedAlone = launcher.launch(withoutCheckpoint, uri, 1).await(Duration.ofMinutes(3)).orElseThrow();
    assertThat(committedAlone.exit()).as(landing::jobLogs).isEqualTo(JobExit.LOADED);
    assertThat(committedAlone.report().orElseThrow().checkpoint()).isEqualTo(BatchLoadReport.Checkpoint.SKIPPED);
    assertThat(landing.ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);
    return committedAlone.report().orElseThrow().snapshotId();
  }

  /**
   * The real launcher, except that during the first job it takes the ledger's write lock once the
   * job has started loading (it has opened the ledger and checked the batch by then) and holds it
   * until the job ends, so that the job's checkpoint times out.
   */
  private static Launcher lockingFirstCheckpoint(Landing landing, Launcher launcher, AtomicReference<JobResult> first) {
    return (manifest, uri, attempt) -> {
      LaunchedJob job = launcher.launch(manifest, uri, attempt);
      if (attempt != 1) {
        return job;
      }
      Path log = Path.of(job.log().orElseThrow());
      String loading = "Table " + manifest.table() + " batch " + manifest.batchId() + ": ";
      Connection lock = lockOnceLogged(landing.home.ledgerDb(), log, loading);
      return new LaunchedJob() {
        @Override
        public String jobId() {
          return job.jobId();
        }

        @Override
        public Optional<String> log() {
          return job.log();
        }

        @Override
        public Optional<JobResult> await(Duration timeout) throws InterruptedException {
          Optional<JobResult> result = job.await(timeout);
          if (result.isPresent()) {
            release(lock);
            first.compareAndSet(null, result.get());
          }
          return result;
        }

        @Override
        public void cancel() {
          job.cancel();
          release(lock);
        }
      };
    };
  }

  private static Connection lockOnceLogged(Path ledgerDb, Path log, String line) {
    try {
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (!(Files.exists(log) && Files.readString(log).contains(line))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the job never logged \"" + line + "\" in " + log);
        }
        Thread.sleep(10);
      }
      Connection connection = DriverManager.getConnection("jdbc:sqlite:" + ledgerDb);
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE IF NOT EXISTS test_lock (x INTEGER)");
      }
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.execute("INSERT INTO test_lock VALUES (1)"); // holds the write lock until rollback
      }
      return connection;
    } catch (Exception e) {
      throw new IllegalStateException("Cannot lock the ledger " + ledgerDb, e);
    }
  }

  private static void release(Connection lock) {
    try {
      if (!lock.isClosed()) {
        lock.rollback();
        lock.close();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static BatchCommitted committed(RunSummary summary, String table) {
    return summary.committed().stream().filter(c -> c.table().equals(table)).findFirst()
        .orElseThrow(() -> new AssertionError("no commit of " + table + " in " + summary));
  }
}
