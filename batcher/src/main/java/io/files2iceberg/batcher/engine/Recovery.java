package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.BatchEvent.BatchReattached;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.engine.Settlement.Action;
import io.files2iceberg.batcher.engine.Settlement.CommitFromResult;
import io.files2iceberg.batcher.engine.Settlement.Expired;
import io.files2iceberg.batcher.engine.Settlement.GiveUp;
import io.files2iceberg.batcher.engine.Settlement.LeaveAsIs;
import io.files2iceberg.batcher.engine.Settlement.Liveness;
import io.files2iceberg.batcher.engine.Settlement.Relaunch;
import io.files2iceberg.batcher.engine.Settlement.Settle;
import io.files2iceberg.batcher.engine.Settlement.WaitForLiveJob;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.logging.LogLabels;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Recovers one table's batches whose lease expired (a batcher died, or a run left them for
 * recovery). What the latest attempt left is gathered first: its result file ({@code
 * AttemptResult}, which the job writes beside its manifest whoever watches it), else whether its
 * job still runs. {@link Settlement#recover} decides; every step that acts on the batch first
 * takes its lease over, so of two batchers recovering it at once only one goes on.
 */
final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private final Ledger ledger;
  private final TableProfile profile;
  private final String table;
  private final Duration lease;
  private final Launcher launcher;
  private final AttemptResults results;
  private final Planner planner;
  private final JobWatcher watcher;
  private final BatchAttempts attempts;
  private final SettlementWriter writer;
  private final RunEvents events;

  Recovery(Ledger ledger, TableProfile profile, JobSettings job, Launcher launcher, AttemptResults results, Planner planner,
      JobWatcher watcher, BatchAttempts attempts, SettlementWriter writer, RunEvents events) {
    this.ledger = ledger;
    this.profile = profile;
    this.table = profile.table();
    this.lease = job.leaseTimeout();
    this.launcher = launcher;
    this.results = results;
    this.planner = planner;
    this.watcher = watcher;
    this.attempts = attempts;
    this.writer = writer;
    this.events = events;
  }

  /** Recovers the batch; false when the table keeps a batch in flight (claims wait for it). */
  boolean recover(BatchRecord batch) {
    try (MDC.MDCCloseable labelled = MDC.putCloseable(LogLabels.MDC_BATCH_ID, batch.batchId())) {
      return recoverLabelled(batch);
    }
  }

  private boolean recoverLabelled(BatchRecord batch) {
    String batchId = batch.batchId();
    BatchManifest manifest = planner.recovered(batch);
    String manifestUri = ManifestStore.location(profile, batchId);
    int latest = batch.launches();
    Optional<AttemptResult> result = latest < 1 ? Optional.empty()
        : results.read(AttemptResult.locationBeside(manifestUri, latest));
    Optional<LaunchedJob> running = Optional.empty();
    Liveness liveness = Liveness.ENDED;
    if (result.isEmpty() && latest >= 1) {
      try {
        running = launcher.reattach(manifest, manifestUri, latest);
        liveness = running.isPresent() ? Liveness.RUNNING : Liveness.ENDED;
      } catch (LaunchException e) {
        LOG.warn("Table {} batch {}: cannot tell whether attempt {} still runs: {}", table, batchId, latest,
            e.getMessage());
        liveness = Liveness.UNKNOWN;
      }
    }
    Action action = Settlement.recover(new Expired(batch, result, liveness, writer.maxAttempts()));
    if (action instanceof LeaveAsIs leave) {
      LOG.warn("Table {} batch {}: {}; launching nothing beside it, the next run asks again", table, batchId,
          leave.why());
      return false;
    }
    if (action instanceof GiveUp giveUp) {
      writer.apply(batchId, giveUp);
      return true;
    }
    if (!takeOver(batch)) {
      return action instanceof CommitFromResult && isCommitted(batchId);
    }
    if (action instanceof CommitFromResult commit) {
      return writer.commitFromResult(batch, commit.result());
    }
    if (action instanceof WaitForLiveJob) {
      LaunchedJob job = running.orElseThrow();
      LOG.info("Table {} batch {}: lease expired at {}, but attempt {} still runs as {}; watching it", table,
          batchId, batch.leaseUntil().orElse(null), latest, job.jobId());
      events.emit(new BatchReattached(table, batchId, latest, job.jobId(), job.log()));
      if (attempts.leavesRunning(batchId, job)) {
        return false;
      }
      JobResult watched = watcher.watch(job, table, batchId, Optional.of(lease));
      return attempts.settleWatched(manifest, watched, batch.attempts());
    }
    if (action instanceof Relaunch relaunch) {
      LOG.info("Table {} batch {}: lease expired at {} after {} attempt(s); launching it again", table, batchId,
          batch.leaseUntil().orElse(null), batch.attempts());
      events.emit(new BatchRecovered(table, batchId, latest + 1));
      return attempts.run(manifest, relaunch.mayHold());
    }
    writer.apply(batchId, (Settle) action);
    return true;
  }

  /** Recovery's compare-and-set on the lease; false when another batcher took the batch first. */
  private boolean takeOver(BatchRecord batch) {
    try {
      ledger.takeOverExpiredLease(batch.batchId(), lease);
      return true;
    } catch (IllegalTransitionException e) {
      // Another batcher (an overlapping scheduled run) recovered it first, or it settled.
      LOG.info("Table {} batch {}: not recovered here: {}", table, batch.batchId(), e.getMessage());
      return false;
    }
  }

  private boolean isCommitted(String batchId) {
    return ledger.batch(batchId).map(b -> b.state() == BatchState.COMMITTED).orElse(false);
  }
}
