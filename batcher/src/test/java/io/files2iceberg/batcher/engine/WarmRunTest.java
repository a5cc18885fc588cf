package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.launch.WarmLocalLauncher;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code job.mode = warm}: batches run in one long-running driver, which the batcher starts, hands
 * work through request files, and watches as it watches a job of its own. The lease protocol is
 * the per-batch mode's, so a driver that is killed or a run that is cancelled leaves its batch to
 * recovery, and every row still lands exactly once.
 */
class WarmRunTest {
  private static final String CLICKS = "local.test.clicks";
  private static final String VIEWS = "lake.test.views";

  @TempDir Path dir;

  @Test
  void batchesOfTwoCatalogsRunInOneDriverWhichExitsWhenIdleAndTheNextBatchStartsAnother() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("clicks", "");
      landing.profile("views", """
          load.iceberg.table = "lake.test.views"
          catalog { type = hadoop, warehouse = "file://%s" }
          """.formatted(dir.resolve("lake").toAbsolutePath()));
      landing.land("clicks", "p1", 2, 1);
      landing.land("views", "p1", 1, 100);
      WarmLocalLauncher launcher = landing.warmLauncher(Duration.ofSeconds(3));
      try {
        RunSummary first = run(landing, launcher);

        assertThat(first.failed()).as(landing::jobLogs).isEmpty();
        assertThat(first.committed()).extracting(BatchCommitted::table).containsExactlyInAnyOrder(CLICKS, VIEWS);
        long clicksPid = resultOf(landing, "clicks", committed(first, CLICKS).batchId()).pid();
        assertThat(resultOf(landing, "views", committed(first, VIEWS).batchId()).pid())
            .as("both batches ran in one driver").isEqualTo(clicksPid);
        assertThat(clicksPid).isNotEqualTo(ProcessHandle.current().pid());

        // No batch for the idle timeout: the driver exits on its own.
        awaitExit(clicksPid, Duration.ofMinutes(1));
        assertThat(launcher.driverPid()).isEmpty();

        landing.land("clicks", "p2", 1, 3);
        RunSummary second = run(landing, launcher);

        assertThat(second.failed()).as(landing::jobLogs).isEmpty();
        String batchId = committed(second, CLICKS).batchId();
        long secondPid = resultOf(landing, "clicks", batchId).pid();
        assertThat(secondPid).as("a new driver").isNotEqualTo(clicksPid);
        assertThat(committed(second, CLICKS).report().metrics().rowsInserted()).isEqualTo(1);

        assertThat(TableRows.ids(landing, CLICKS)).containsExactly(1L, 2L, 3L);
        assertThat(TableRows.ids(landing, VIEWS)).containsExactly(100L);

        // A driver whose folder is deleted (a test's temporary home) exits at once.
        if (launcher.driverPid().isPresent()) {
          long pid = launcher.driverPid().get();
          deleteTree(launcher.driverFolder());
          awaitExit(pid, Duration.ofSeconds(30));
        }
      } finally {
        stopDriver(launcher);
      }
    }
  }

  @Test
  void cancelledAndKilledRunsLeaveTheirBatchesToRecoveryAndEveryRowLandsOnce() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("clicks", "");
      landing.land("clicks", "p1", 2, 1);
      WarmLocalLauncher launcher = landing.warmLauncher(Duration.ofMinutes(2));
      Duration lease = Duration.ofMinutes(10);
      try {
        // Cancelled once the driver has taken it: its job group is cancelled, the driver lives on.
        BatchRecord cancelled = claim(landing, lease);
        LaunchedJob job = launch(landing, launcher, cancelled, 1);
        long pid = awaitRunning(launcher, cancelled.batchId(), 1);
        job.cancel();
        JobResult result = job.await(Duration.ofMinutes(3)).orElseThrow();

        assertThat(result.exit()).isEqualTo(JobExit.FAILED);
        assertThat(result.fromJob()).as("the table decides").isFalse();
        assertThat(result.detail()).contains("cancelled", "job group " + cancelled.batchId() + "-attempt1");
        assertThat(launcher.driverPid()).as("cancelling a run keeps its driver").contains(pid);
        assertThat(Files.readString(launcher.driverFolder().resolve(WarmRequest.DRIVER_LOG)))
            .contains("cancelling job group " + cancelled.batchId() + "-attempt1");

        // Its lease runs out; recovery settles it from the result the driver wrote (the job's own
        // FAILED: nothing committed), and its rows are loaded again in the same driver.
        landing.clock.advance(lease.plusMinutes(1));
        RunSummary recovered = run(landing, launcher);
        assertThat(recovered.failed()).as(landing::jobLogs).isEmpty();
        assertThat(latestResultOf(landing, committed(recovered, CLICKS).batchId()).pid()).isEqualTo(pid);

        // Killed mid-batch: the run ends as a job that died.
        landing.land("clicks", "p2", 2, 3);
        BatchRecord killed = claim(landing, lease);
        LaunchedJob doomed = launch(landing, launcher, killed, 1);
        long running = awaitRunning(launcher, killed.batchId(), 1);
        ProcessHandle.of(running).orElseThrow().destroyForcibly();
        JobResult died = doomed.await(Duration.ofMinutes(1)).orElseThrow();

        assertThat(died.exit()).isEqualTo(JobExit.FAILED);
        assertThat(died.fromJob()).isFalse();
        assertThat(died.detail()).contains("the warm driver (pid " + running + ") ended while running attempt 1");
        assertThat(landing.ledger.batch(killed.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);

        landing.clock.advance(lease.plusMinutes(1));
        RunSummary afterKill = run(landing, launcher);
        assertThat(afterKill.failed()).as(landing::jobLogs).isEmpty();
        assertThat(committed(afterKill, CLICKS).batchId()).isEqualTo(killed.batchId());
        assertThat(latestResultOf(landing, killed.batchId()).pid()).as("a new driver").isNotEqualTo(running);
        assertThat(landing.ledger.tableStatus(CLICKS).partitionsByState()).containsOnlyKeys(PartitionState.INGESTED);

        assertThat(TableRows.ids(landing, CLICKS)).containsExactly(1L, 2L, 3L, 4L);
        assertThat(TableRows.snapshots(landing, CLICKS)).as("one snapshot per batch").isEqualTo(2);
      } finally {
        stopDriver(launcher);
      }
    }
  }

  /**
   * Spark's checked exceptions (here the SparkException of an action whose task failed) become the
   * job's result in the warm driver, classified, and the driver lives on; the batch is FAILED with
   * the error class in the ledger. An Error (out of memory) kills the driver: the run ends without a
   * result, its failure quoting the end of the driver's log.
   */
  @Test
  void aCheckedExceptionBecomesAClassifiedResultAndAnErrorKillsTheDriverNamingItsLog() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("clicks",
          "transform.filter = [\"CASE WHEN id = 1 THEN raise_error('refused in a task') IS NULL ELSE true END\"]\n");
      landing.land("clicks", "p1", 1, 1);
      WarmLocalLauncher launcher = landing.warmLauncher(Duration.ofMinutes(2));
      try {
        RunSummary failed = run(landing, launcher);

        assertThat(failed.failed()).hasSize(1);
        BatchRecord batch = landing.ledger.batch(failed.failed().get(0).batchId()).orElseThrow();
        assertThat(batch.state()).isEqualTo(BatchState.FAILED);
        assertThat(batch.error().orElseThrow()).contains(" failed: ").contains("refused in a task");
        assertThat(batch.cause().orElseThrow().errorClass()).isEqualTo(RuntimeException.class.getName());
        assertThat(landing.ledger.partition(CLICKS, "p1").orElseThrow().state()).as("released for a retry")
            .isEqualTo(PartitionState.READY);
        long pid = resultOf(landing, "clicks", batch.batchId()).pid();
        assertThat(launcher.driverPid()).as("the driver lives on").contains(pid);
        assertThat(Files.readString(launcher.driverFolder().resolve(WarmRequest.DRIVER_LOG)))
            .contains("attempt 1: ended with 1").doesNotContain("Exception in thread \"warm-batch-");

        // Out of memory on the driver's batch thread (an array larger than the VM allows, folded as a
        // constant there): the driver halts. (Out of memory in a task of local mode ends the JVM too,
        // through Spark's own handler, or fails the task: the job then says FAILED, retried.)
        landing.profile("clicks", "transform.filter = [\"length(repeat('x', 2147483646)) > 0\"]\n");
        BatchRecord doomed = landing.ledger.claimPartitions(new ClaimPartitions(CLICKS, 100, Duration.ofMinutes(10),
            true)).orElseThrow();
        landing.ledger.markRunning(doomed.batchId(), Duration.ofMinutes(10));
        JobResult died = launch(landing, launcher, doomed, 1).await(Duration.ofMinutes(2)).orElseThrow();

        assertThat(died.exit()).isEqualTo(JobExit.FAILED);
        assertThat(died.fromJob()).isFalse();
        assertThat(died.detail()).as(() -> driverLog(launcher))
            .contains("the warm driver (pid " + pid + ") ended while running attempt 1",
            "its log ends: ", "OutOfMemoryError");
        awaitExit(pid, Duration.ofMinutes(1));
      } finally {
        stopDriver(launcher);
      }
    }
  }

  /**
   * The batcher ({@code batch run-once}, a process of its own) is killed once its driver has taken
   * the batch: the driver lives on and writes the result; recovery finds the run with the live
   * driver and watches it instead of launching the batch again.
   */
  @Test
  void aDriverOutlivesItsKilledBatcherAndRecoveryWatchesItsRunInsteadOfAnother() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("clicks", "");
      landing.land("clicks", "p1", 2, 1);
      WarmLocalLauncher launcher = landing.warmLauncher(Duration.ofMinutes(2));
      Process batcher = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"), "-Xmx256m", "-XX:TieredStopAtLevel=1",
          "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "=" + Landing.SPARK_JOB_TARGET.toAbsolutePath().normalize(),
          "io.files2iceberg.batcher.cli.Files2Iceberg", "batch", "run-once", "--wait", "--config", landing.config.toString(),
          "--home", landing.home.root().toString())
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("batcher.out").toFile())
          .start();
      try {
        BatchRecord orphan = awaitInFlight(landing, batcher);
        long driver = awaitRunning(launcher, orphan.batchId(), 1);
        batcher.destroyForcibly().waitFor();
        assertThat(ProcessHandle.of(driver).map(ProcessHandle::isAlive)).as("the driver outlives its batcher")
            .contains(true);

        landing.clock.advance(Duration.ofHours(1));
        List<BatchEvent> events = new CopyOnWriteArrayList<>();
        RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
            .options(new RunOptions(1, Duration.ofMinutes(5)))
            .events(events::add)
            .build()
            .runOnce();

        assertThat(summary.failed()).as(landing::jobLogs).isEmpty();
        assertThat(events).as("no second run of the batch").noneMatch(BatchEvent.BatchLaunched.class::isInstance);
        assertThat(events).filteredOn(BatchEvent.BatchReattached.class::isInstance).singleElement()
            .extracting(e -> ((BatchEvent.BatchReattached) e).attempt()).isEqualTo(1);
        assertThat(committed(summary, CLICKS).batchId()).isEqualTo(orphan.batchId());
        assertThat(committed(summary, CLICKS).report().metrics().rowsInserted()).isEqualTo(2);
        assertThat(resultOf(landing, "clicks", orphan.batchId()).pid()).isEqualTo(driver);
        assertThat(TableRows.ids(landing, CLICKS)).containsExactly(1L, 2L);
        assertThat(TableRows.snapshots(landing, CLICKS)).isEqualTo(1);
      } finally {
        batcher.destroyForcibly();
        stopDriver(launcher);
      }
    }
  }

  /** The batch the batcher process has in flight, once it has one. */
  private BatchRecord awaitInFlight(Landing landing, Process batcher) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline && batcher.isAlive()) {
      List<BatchRecord> inFlight = landing.ledger.tableStatus(CLICKS).inFlight();
      if (!inFlight.isEmpty()) {
        return inFlight.get(0);
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the batcher claimed nothing: " + Files.readString(dir.resolve("batcher.out")));
  }

  private static RunSummary run(Landing landing, WarmLocalLauncher launcher) {
    return BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
        .options(new RunOptions(2, Duration.ofMinutes(5)))
        .build()
        .runOnce();
  }

  private static BatchRecord claim(Landing landing, Duration lease) {
    BatchRecord batch = landing.ledger.claimPartitions(new ClaimPartitions(CLICKS, 100, lease, true)).orElseThrow();
    landing.ledger.markRunning(batch.batchId(), lease);
    return batch;
  }

  private static LaunchedJob launch(Landing landing, WarmLocalLauncher launcher, BatchRecord batch, int attempt) {
    TableProfile profile = landing.registry().byTable(batch.table()).orElseThrow();
    BatchManifest manifest = BatchManifest.of(batch.batchId(), profile, landing.registry().deployment(),
        IngestionType.INCREMENTAL, true, batch.createdAt(), landing.ledger.filesOfBatch(batch.batchId()));
    String uri = new ManifestStore(() -> null).write(manifest);
    return launcher.launch(manifest, uri, attempt);
  }

  /** The pid of the driver once it has taken the attempt's request. */
  private static long awaitRunning(WarmLocalLauncher launcher, String batchId, int attempt) throws Exception {
    Path running = launcher.driverFolder().resolve(WarmRequest.RUNNING);
    String name = WarmRequest.name(batchId, attempt);
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.isDirectory(running)) {
        try (Stream<Path> files = Files.list(running)) {
          Optional<Path> taken = files.filter(f -> f.getFileName().toString().startsWith(name + ".")).findFirst();
          if (taken.isPresent()) {
            return Long.parseLong(taken.get().getFileName().toString().substring(name.length() + 1));
          }
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the driver never took " + name);
  }

  private static AttemptResult resultOf(Landing landing, String profile, String batchId) throws IOException {
    return resultOf(landing, profile, batchId, 1);
  }

  private static AttemptResult resultOf(Landing landing, String profile, String batchId, int attempt)
      throws IOException {
    Path file = landing.home.metadata(profile).resolve("batches").resolve(batchId + "-attempt" + attempt
        + ".result.json");
    return AttemptResult.fromJson(Files.readString(file), file.toString());
  }

  /** The result of the batch's latest launch. */
  private static AttemptResult latestResultOf(Landing landing, String batchId) throws IOException {
    BatchRecord batch = landing.ledger.batch(batchId).orElseThrow();
    return resultOf(landing, "clicks", batchId, batch.launches());
  }

  private static BatchCommitted committed(RunSummary summary, String table) {
    return summary.committed().stream().filter(c -> c.table().equals(table)).findFirst()
        .orElseThrow(() -> new AssertionError("no commit of " + table + " in " + summary));
  }

  private static void awaitExit(long pid, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("process " + pid + " is still alive after " + within);
      }
      Thread.sleep(50);
    }
  }

  private static String driverLog(WarmLocalLauncher launcher) {
    try {
      return Files.readString(launcher.driverFolder().resolve(WarmRequest.DRIVER_LOG));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static void stopDriver(WarmLocalLauncher launcher) {
    launcher.driverPid().flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
