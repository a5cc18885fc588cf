package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.retry.RetryPlan;
import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.engine.BatchEvent.BatchReattached;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs whose launcher is a stand-in (no Spark): launches that cannot start, and recovery of a batch
 * whose latest attempt still runs, or may.
 */
class SettlementRunTest {
  private static final String NEEDS_FIX = "local.test.needsfix";
  private static final String TRANSIENT = "local.test.transient";
  private static final String ORPHAN = "local.test.orphan";
  private static final Duration LEASE = Duration.ofMinutes(10);

  @TempDir Path dir;

  /**
   * A launch error that something must be fixed for (a missing build, a setting Dataproc refuses)
   * fails the partitions at once: a new batch would fail the same way. One that a later try may
   * get past releases them with an attempt counted.
   */
  @Test
  void launchThatNeedsAFixFailsThePartitionsAtOnceAndARetryableOneReleasesThem() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("needsfix", "job.max-attempts = 3\n");
      landing.profile("transient", "job.max-attempts = 3\n");
      landing.land("needsfix", "p1", 1, 1);
      landing.land("transient", "p1", 1, 1);
      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> (manifest, uri, attempt) -> {
        throw new LaunchException("Table " + manifest.table() + " batch " + manifest.batchId() + ": "
            + (profile.table().equals(NEEDS_FIX) ? "Dataproc refused: INVALID_ARGUMENT" : "Dataproc: UNAVAILABLE"),
            !profile.table().equals(NEEDS_FIX));
      }).events(events::add).build();

      RunSummary summary = runner.runOnce();

      BatchFailed needsFix = failure(summary, NEEDS_FIX);
      assertThat(needsFix.exit()).isEmpty();
      assertThat(needsFix.error()).isEqualTo("the job could not be started: Table " + NEEDS_FIX + " batch "
          + needsFix.batchId() + ": Dataproc refused: INVALID_ARGUMENT");
      assertThat(needsFix.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      PartitionRecord failed = landing.ledger.partition(NEEDS_FIX, "p1").orElseThrow();
      assertThat(failed.state()).isEqualTo(PartitionState.FAILED);
      assertThat(failed.attempts()).isEqualTo(1);
      assertThat(failed.lastError()).contains(needsFix.error());

      BatchFailed later = failure(summary, TRANSIENT);
      assertThat(later.after()).isEqualTo(AfterFailure.RETRIED_LATER);
      PartitionRecord released = landing.ledger.partition(TRANSIENT, "p1").orElseThrow();
      assertThat(released.state()).isEqualTo(PartitionState.READY);
      assertThat(released.attempts()).isEqualTo(1);
    }
  }

  /**
   * A batch whose lease expired with its attempts spent and no result may be in the table: it
   * gives up saying so, and {@code retry} revives it under its own id instead of loading its files
   * in a new batch (which could put an Append table's rows in twice).
   */
  @Test
  void expiredBatchOutOfAttemptsGivesUpWithAnUnknownOutcomeThatRetryRevives() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("orphan", "job.max-attempts = 1\n");
      landing.land("orphan", "p1", 1, 1);
      BatchRecord batch = landing.ledger.claimPartitions(new ClaimPartitions(ORPHAN, 100, LEASE, true)).orElseThrow();
      landing.ledger.markRunning(batch.batchId(), LEASE);
      landing.clock.advance(LEASE.plusMinutes(1));
      List<BatchEvent> events = new CopyOnWriteArrayList<>();

      RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> (manifest, uri, attempt) -> {
        throw new AssertionError("launched " + manifest.batchId());
      }).events(events::add).build().runOnce();

      BatchFailed gaveUp = failure(summary, ORPHAN);
      assertThat(gaveUp.error()).isEqualTo("gave up after 1 attempt(s); the table may hold the batch: the lease"
          + " expired without a result");
      assertThat(gaveUp.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      assertThat(landing.ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.FAILED);
      RetryPlan retry = RetryPlan.ofBatch(landing.ledger, batch.batchId());
      assertThat(retry.revivals()).extracting(r -> r.batch().batchId()).containsExactly(batch.batchId());
      assertThat(retry.targets()).isEmpty();
    }
  }

  /**
   * The latest attempt's job outlived its batcher: recovery watches it, renewing the lease, and
   * settles the batch by its result; it never starts a second job on the batch, whose rows the two
   * jobs could then both commit.
   */
  @Test
  void recoveryNeverLaunchesASecondJobWhileTheLatestAttemptStillRuns() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("orphan", "");
      landing.land("orphan", "p1", 1, 1);
      BatchRecord batch = landing.ledger.claimPartitions(new ClaimPartitions(ORPHAN, 100, LEASE, true)).orElseThrow();
      landing.ledger.markRunning(batch.batchId(), LEASE);
      landing.clock.advance(LEASE.plusMinutes(1));
      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      AtomicInteger polls = new AtomicInteger();
      LaunchedJob live = new LaunchedJob() {
        @Override
        public String jobId() {
          return "4242";
        }

        @Override
        public Optional<JobResult> await(Duration timeout) {
          if (polls.incrementAndGet() < 3) {
            // Still running; the recovering batcher holds the lease while it watches.
            assertThat(landing.ledger.findExpiredLeases()).isEmpty();
            return Optional.empty();
          }
          landing.ledger.commitBatch(new CommitBatch(batch.batchId(), 7L, BatchMetrics.EMPTY));
          return Optional.of(new JobResult(JobExit.LOADED, Optional.of(new BatchLoadReport(ORPHAN, batch.batchId(),
              false, 7L, BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(), BatchMetrics.EMPTY, List.of(),
              Optional.empty())), "committed snapshot 7, checkpoint committed", true, Optional.empty()));
        }

        @Override
        public void cancel() {
          throw new AssertionError("cancelled the live job");
        }
      };
      Launcher launcher = new Launcher() {
        @Override
        public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
          throw new AssertionError("launched attempt " + attempt + " while attempt 1 runs");
        }

        @Override
        public Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
          return attempt == 1 ? Optional.of(live) : Optional.empty();
        }
      };

      RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .options(new RunOptions(1, Duration.ofMinutes(5)))
          .events(events::add).build().runOnce();

      assertThat(summary.failed()).isEmpty();
      assertThat(events).noneMatch(BatchLaunched.class::isInstance);
      assertThat(events).filteredOn(BatchReattached.class::isInstance).singleElement()
          .extracting(e -> ((BatchReattached) e).jobId()).isEqualTo("4242");
      assertThat(summary.committed()).extracting(c -> c.batchId()).containsExactly(batch.batchId());
      assertThat(landing.ledger.batch(batch.batchId()).orElseThrow().snapshotId()).contains(7L);
    }
  }

  /**
   * When the launcher cannot tell whether the latest attempt still runs (its API is unavailable),
   * recovery launches nothing: a second job beside a live one could commit the batch twice. The
   * batch waits, its lease still expired, for a run that can tell.
   */
  @Test
  void recoveryThatCannotTellWhetherTheLatestAttemptRunsLaunchesNothing() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("orphan", "");
      landing.land("orphan", "p1", 1, 1);
      BatchRecord batch = landing.ledger.claimPartitions(new ClaimPartitions(ORPHAN, 100, LEASE, true)).orElseThrow();
      landing.ledger.markRunning(batch.batchId(), LEASE);
      landing.clock.advance(LEASE.plusMinutes(1));
      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      Launcher launcher = new Launcher() {
        @Override
        public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
          throw new AssertionError("launched attempt " + attempt + " while attempt 1 may run");
        }

        @Override
        public Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
          throw new LaunchException("Table " + ORPHAN + " batch " + manifest.batchId() + ": cannot read Dataproc"
              + " batch: UNAVAILABLE", true);
        }
      };

      RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .events(events::add).build().runOnce();

      assertThat(events).noneMatch(BatchLaunched.class::isInstance);
      assertThat(summary.committed()).isEmpty();
      BatchRecord waiting = landing.ledger.batch(batch.batchId()).orElseThrow();
      assertThat(waiting.state()).isEqualTo(BatchState.RUNNING);
      assertThat(waiting.launches()).isEqualTo(1);
      assertThat(landing.ledger.findExpiredLeases()).extracting(BatchRecord::batchId).containsExactly(batch.batchId());
      assertThat(landing.ledger.partition(ORPHAN, "p1").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    }
  }

  /**
   * While a run's job goes on, its batcher renews the lease: a second run in the meantime (an
   * overlapping schedule) finds nothing expired and nothing to claim, and starts no job, even when
   * the job outlasts the lease it started with.
   */
  @Test
  void aRunWhileAnotherRunsTheTablesJobStartsNoSecondJob() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("orphan", "job.lease-timeout = 1s\n");
      landing.land("orphan", "p1", 1, 1);
      CountDownLatch finish = new CountDownLatch(1);
      AtomicInteger launches = new AtomicInteger();
      Launcher launcher = (manifest, uri, attempt) -> {
        launches.incrementAndGet();
        return new LaunchedJob() {
          @Override
          public String jobId() {
            return "job-" + attempt;
          }

          @Override
          public Optional<JobResult> await(Duration timeout) throws InterruptedException {
            if (!finish.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
              return Optional.empty();
            }
            landing.ledger.commitBatch(new CommitBatch(manifest.batchId(), 7L, BatchMetrics.EMPTY));
            return Optional.of(new JobResult(JobExit.LOADED, Optional.empty(), "committed snapshot 7", true,
                Optional.empty()));
          }

          @Override
          public void cancel() {}
        };
      };
      List<BatchEvent> second = new CopyOnWriteArrayList<>();
      CompletableFuture<RunSummary> first = CompletableFuture.supplyAsync(
          () -> BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher).build().runOnce());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (launches.get() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      String batchId = landing.ledger.tableStatus(ORPHAN).inFlight().get(0).batchId();
      // The job outlasts its first lease; the batcher renews it (every third of the lease).
      landing.clock.advance(Duration.ofSeconds(5));
      while (landing.ledger.batch(batchId).orElseThrow().leaseUntil().orElseThrow().isBefore(landing.clock.instant())
          && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }

      RunSummary overlapping = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .events(second::add).build().runOnce();
      finish.countDown();

      assertThat(second).isEmpty();
      assertThat(overlapping.recovered()).isEmpty();
      assertThat(launches.get()).isEqualTo(1);
      assertThat(first.get(30, TimeUnit.SECONDS).committed()).extracting(c -> c.batchId()).containsExactly(batchId);
      assertThat(landing.ledger.batch(batchId).orElseThrow().launches()).isEqualTo(1);
    }
  }

  private static BatchFailed failure(RunSummary summary, String table) {
    return summary.failed().stream().filter(f -> f.table().equals(table)).findFirst()
        .orElseThrow(() -> new AssertionError("no failure of " + table + " in " + summary));
  }
}
