package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.Launch.Launched;
import io.files2iceberg.batcher.engine.Launch.Refused;
import io.files2iceberg.batcher.engine.Launch.SettledElsewhere;
import io.files2iceberg.batcher.engine.Launch.Started;
import io.files2iceberg.batcher.engine.Settlement.Action;
import io.files2iceberg.batcher.engine.Settlement.Ended;
import io.files2iceberg.batcher.engine.Settlement.Relaunch;
import io.files2iceberg.batcher.engine.Settlement.Settle;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.logging.LogLabels;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs a ledger batch until it is settled: launch, watch, {@link Settlement#decide}, {@link
 * SettlementWriter#apply}; once more at once when the job committed to the table but not to the
 * ledger.
 */
final class BatchAttempts {
  private static final Logger LOG = LoggerFactory.getLogger(BatchAttempts.class);

  private final Ledger ledger;
  private final Launch launch;
  private final JobWatcher watcher;
  private final SettlementWriter writer;
  private final String table;
  private final Duration lease;
  private final boolean waitForJobs;
  private final Runnable keepPermit;

  /**
   * @param waitForJobs false: a launched job is left running ({@link RunOptions#waitForJobs()})
   * @param keepPermit keeps the table's catalog permit taken for a job left running ({@link CatalogPermits#keep})
   */
  BatchAttempts(Ledger ledger, TableProfile profile, JobSettings job, Launch launch, JobWatcher watcher, SettlementWriter writer,
      boolean waitForJobs, Runnable keepPermit) {
    this.ledger = ledger;
    this.launch = launch;
    this.watcher = watcher;
    this.writer = writer;
    this.table = profile.table();
    this.lease = job.leaseTimeout();
    this.waitForJobs = waitForJobs;
    this.keepPermit = keepPermit;
  }

  /**
   * Whether the job is left running: without waiting for jobs, the run records it as in flight and
   * the table's turn ends there (its lease is not renewed; the job settles a batch it commits, and a
   * later run's recovery one it does not).
   */
  boolean leavesRunning(String batchId, LaunchedJob job) {
    if (waitForJobs) {
      return false;
    }
    launch.events().leftRunning(new RunSummary.InFlight(table, batchId, job.jobId()));
    keepPermit.run();
    return true;
  }

  /**
   * Launches the batch until it is settled; {@code mayHold}: an earlier launch may have written it
   * to the table. Returns whether it committed.
   */
  boolean run(BatchManifest manifest, boolean mayHold) {
    return settle(manifest, mayHold, Optional.empty());
  }

  /**
   * Settles the run of a reattached attempt, which an earlier launch may have committed, as if it
   * had been launched here; launches again when the decision says so.
   *
   * @param attempts the batch's attempts, that run counted
   */
  boolean settleWatched(BatchManifest manifest, JobResult watched, int attempts) {
    return settle(manifest, true, Optional.of(new Watched(watched, attempts)));
  }

  private boolean settle(BatchManifest manifest, boolean mayHold, Optional<Watched> watched) {
    try (MDC.MDCCloseable labelled = MDC.putCloseable(LogLabels.MDC_BATCH_ID, manifest.batchId())) {
      return settleLabelled(manifest, mayHold, watched);
    }
  }

  private boolean settleLabelled(BatchManifest manifest, boolean mayHold, Optional<Watched> watched) {
    String batchId = manifest.batchId();
    boolean checkpointRelaunched = false;
    while (true) {
      Ended ended;
      int attempts;
      if (watched.isPresent()) {
        ended = new Ended.JobEnded(watched.get().result());
        attempts = watched.get().attempts();
        watched = Optional.empty();
      } else {
        Started started = launch.start(manifest, lease);
        if (started instanceof SettledElsewhere elsewhere) {
          return elsewhere.committed();
        }
        if (started instanceof Refused refused) {
          ended = refused.why();
          attempts = ledger.batch(batchId).map(BatchRecord::attempts).orElse(0);
        } else {
          Launched launched = (Launched) started;
          if (leavesRunning(batchId, launched.job())) {
            return false;
          }
          ended = new Ended.JobEnded(watcher.watch(launched.job(), table, batchId, Optional.of(lease)));
          attempts = launched.attempts();
        }
      }
      Action action = Settlement.decide(
          new Settlement.Attempt(ended, attempts, writer.maxAttempts(), mayHold, checkpointRelaunched));
      if (action instanceof Relaunch relaunch) {
        LOG.warn("Table {} batch {}: committed to the table but not to the ledger ({}); launching it again to"
            + " finalize it", table, batchId, ((Ended.JobEnded) ended).result().describe());
        mayHold = relaunch.mayHold();
        checkpointRelaunched = true;
        continue;
      }
      return writer.apply(batchId, (Settle) action);
    }
  }

  /** The result of a run watched before settling began (a reattached attempt) and its batch's attempts. */
  private record Watched(JobResult result, int attempts) {}
}
