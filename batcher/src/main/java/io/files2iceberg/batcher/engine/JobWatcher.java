package io.files2iceberg.batcher.engine;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.JobExit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every run of the job until it ends, whoever started it: a job just launched, the job of
 * an earlier attempt that recovery reattached, a listed batch's job. While a ledger batch's job
 * runs, its lease is renewed every third of {@code job.lease-timeout}; past {@link
 * RunOptions#jobTimeout()} the run is cancelled. A run it loses track of, or is interrupted
 * watching, ends without the job's word ({@link JobResult#fromJob()} false): the table may hold
 * the batch.
 */
record JobWatcher(Ledger ledger, Clock clock, Duration jobTimeout) {
  private static final Logger LOG = LoggerFactory.getLogger(JobWatcher.class);
  private static final Duration MIN_RENEWAL = Duration.ofMillis(50);
  /** How long a cancelled run is given to end, so that its log can be named. */
  private static final Duration CANCEL_GRACE = Duration.ofSeconds(30);

  /**
   * Waits for the run to end.
   *
   * @param lease the batch's lease, renewed while the run goes on; empty for a batch the ledger
   *     does not hold
   */
  JobResult watch(LaunchedJob job, String table, String batchId, Optional<Duration> lease) {
    Instant deadline = clock.instant().plus(jobTimeout);
    Duration renewEvery = lease.map(l -> max(MIN_RENEWAL, l.dividedBy(3))).orElse(jobTimeout);
    try {
      while (true) {
        Duration left = Duration.between(clock.instant(), deadline);
        if (left.isNegative() || left.isZero()) {
          LOG.error("Table {} batch {}: {} ran longer than {}; cancelling it", table, batchId, job.jobId(), jobTimeout);
          job.cancel();
          Optional<JobResult> ended = job.await(CANCEL_GRACE);
          String detail = "the job ran longer than the job timeout " + jobTimeout + " and was cancelled";
          return new JobResult(JobExit.FAILED, Optional.empty(), detail, false, ended.flatMap(JobResult::log).or(job::log));
        }
        Optional<JobResult> result = job.await(min(renewEvery, left));
        if (result.isPresent()) {
          return result.get();
        }
        if (lease.isPresent()) {
          renewLease(table, batchId, lease.get());
        }
      }
    } catch (InterruptedException e) {
      LOG.warn("Table {} batch {}: interrupted; cancelling {} and leaving the batch for recovery", table, batchId,
          job.jobId());
      job.cancel();
      Thread.currentThread().interrupt();
      return new JobResult(JobExit.FAILED, Optional.empty(), "the batcher was interrupted", false, Optional.empty());
    } catch (LaunchException e) {
      // The watcher lost the run; the job may still be running or may have committed.
      return new JobResult(JobExit.FAILED, Optional.empty(), "lost track of " + job.jobId() + ": " + e.getMessage(),
          false, Optional.empty());
    }
  }

  private void renewLease(String table, String batchId, Duration lease) {
    try {
      ledger.renewLease(batchId, lease);
    } catch (RuntimeException e) {
      // The job goes on. If renewals keep failing, recovery takes the batch over, finds this job
      // still running and watches it rather than starting a second one.
      LOG.warn("Table {} batch {}: cannot renew the lease: {}", table, batchId, e.toString());
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
