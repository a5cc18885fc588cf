package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.Settlement.Commit;
import io.files2iceberg.batcher.engine.Settlement.ConfirmCommitted;
import io.files2iceberg.batcher.engine.Settlement.FailAndRelease;
import io.files2iceberg.batcher.engine.Settlement.FailPartitions;
import io.files2iceberg.batcher.engine.Settlement.GiveUp;
import io.files2iceberg.batcher.engine.Settlement.LeaveForRecovery;
import io.files2iceberg.batcher.engine.Settlement.Reported;
import io.files2iceberg.batcher.engine.Settlement.Settle;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link Settlement} decision about one table's batch to the ledger, and reports it as
 * a {@link BatchEvent}: the commit (then committed batches beyond {@code keep-checkpoints} are
 * pruned), the failure, the lease expired for recovery.
 */
record SettlementWriter(Ledger ledger, TableProfile profile, JobSettings job, RunEvents events) {
  private static final Logger LOG = LoggerFactory.getLogger(SettlementWriter.class);

  int maxAttempts() {
    return Math.max(1, job.maxAttempts());
  }

  private String table() {
    return profile.table();
  }

  /** Writes the decision; returns whether the batch is COMMITTED. */
  boolean apply(String batchId, Settle decision) {
    if (decision instanceof ConfirmCommitted confirm) {
      Settle confirmed = Settlement.confirm(confirm.result(), ledger.batch(batchId));
      if (!(confirmed instanceof Commit)) {
        LOG.error("Table {} batch {}: {}", table(), batchId, error(confirmed));
      }
      return apply(batchId, confirmed);
    }
    if (decision instanceof Commit commit) {
      events.emit(new BatchCommitted(table(), batchId, commit.report()));
      try {
        ledger.pruneCommitted(table(), profile.extract().keepCheckpoints());
      } catch (RuntimeException e) {
        LOG.warn("Table {}: cannot prune committed batches: {}", table(), e.toString());
      }
      return true;
    }
    if (decision instanceof FailAndRelease fail) {
      return fail(batchId, fail.error(), fail.exit(), fail.cause(), maxAttempts());
    }
    if (decision instanceof FailPartitions fail) {
      return fail(batchId, fail.error(), fail.exit(), fail.cause(), 1);
    }
    if (decision instanceof LeaveForRecovery leave) {
      return leaveForRecovery(batchId, leave);
    }
    if (decision instanceof GiveUp giveUp) {
      return giveUp(batchId, giveUp);
    }
    Reported reported = (Reported) decision;
    events.emit(new BatchFailed(table(), batchId, reported.error(), reported.exit(), afterFailure(ledger.batch(batchId))));
    return false;
  }

  /**
   * The latest attempt's result says the table holds the batch, but its batcher died before
   * settling it. After LOADED the job recorded the checkpoint, so the ledger has the batch
   * COMMITTED already; after CHECKPOINT_FAILED the checkpoint is written here, from the result's
   * snapshot id and metrics, as the job's "already committed" path would write it, without
   * running Spark again.
   */
  boolean commitFromResult(BatchRecord batch, AttemptResult latest) {
    BatchLoadReport report = latest.report().orElseThrow();
    LOG.info("Table {} batch {}: lease expired, and attempt {} left its result: {}; settling the batch from it",
        table(), batch.batchId(), latest.attempt(), latest.detail());
    JobResult result = new JobResult(JobExit.LOADED, Optional.of(report), latest.detail(), true, Optional.empty());
    boolean inLedger = ledger.batch(batch.batchId()).map(b -> b.state() == BatchState.COMMITTED).orElse(false);
    if (!inLedger) {
      try {
        boolean already = ledger.commitBatch(new CommitBatch(batch.batchId(), report.snapshotId(), report.metrics(),
            report.fileRows())).alreadyCommitted();
        BatchLoadReport finalized = report.withCheckpoint(already ? BatchLoadReport.Checkpoint.ALREADY_COMMITTED
            : BatchLoadReport.Checkpoint.COMMITTED, Optional.empty());
        result = new JobResult(JobExit.LOADED, Optional.of(finalized), latest.detail(), true, Optional.empty());
      } catch (RuntimeException e) {
        return apply(batch.batchId(), Settlement.leaveForRecoveryOrGiveUp("the table holds the batch ("
            + latest.detail() + ") but its checkpoint cannot be written: " + e.getMessage(),
            Optional.of(latest.exit()), batch.attempts(), maxAttempts()));
      }
    }
    return apply(batch.batchId(), new ConfirmCommitted(result));
  }

  /** Nothing was committed: FAILED, its partitions released with an attempt counted (FAILED at {@code attemptsAllowed}). */
  private boolean fail(String batchId, String error, Optional<JobExit> exit, Optional<FailureCause> cause,
      int attemptsAllowed) {
    BatchRecord failed = ledger.failBatch(new FailBatch(batchId, error, attemptsAllowed, false, cause));
    AfterFailure after = afterFailure(Optional.of(failed));
    LOG.warn("Table {} batch {}: failed ({}): {}", table(), batchId, after, error);
    events.emit(new BatchFailed(table(), batchId, error, exit, after, cause));
    return false;
  }

  /**
   * The table may hold the batch: never release its partitions (another batch would load them
   * again). Its lease is expired so that the next run's recovery launches it again.
   */
  private boolean leaveForRecovery(String batchId, LeaveForRecovery leave) {
    try {
      ledger.renewLease(batchId, Duration.ZERO);
    } catch (RuntimeException e) {
      LOG.warn("Table {} batch {}: cannot expire the lease ({}); recovery takes it when the lease runs out", table(),
          batchId, e.toString());
    }
    LOG.warn("Table {} batch {}: left for recovery after attempt {}: {}", table(), batchId, leave.attempts(),
        leave.error());
    events.emit(new BatchFailed(table(), batchId, leave.error(), leave.exit(), AfterFailure.LEFT_FOR_RECOVERY));
    return false;
  }

  /**
   * The one place that records an unknown outcome ({@link BatchRecord#outcomeUnknown}): the batch
   * FAILED, its partitions FAILED, and its error saying to the operator that the table may hold it.
   */
  private boolean giveUp(String batchId, GiveUp giveUp) {
    String error = UnknownOutcome.gaveUp(giveUp.attempts(), giveUp.why());
    ledger.failBatch(new FailBatch(batchId, error, 1, true));
    LOG.error("Table {} batch {}: {}", table(), batchId, error);
    events.emit(new BatchFailed(table(), batchId, error, giveUp.exit(), AfterFailure.PARTITIONS_FAILED));
    return false;
  }

  private AfterFailure afterFailure(Optional<BatchRecord> batch) {
    if (batch.isEmpty()) {
      return AfterFailure.NOTHING_CLAIMED;
    }
    for (String partition : batch.get().partitions()) {
      Optional<PartitionRecord> stored = ledger.partition(table(), partition);
      if (stored.isPresent() && stored.get().state() == PartitionState.FAILED) {
        return AfterFailure.PARTITIONS_FAILED;
      }
    }
    return AfterFailure.RETRIED_LATER;
  }

  private static String error(Settle decision) {
    if (decision instanceof FailAndRelease fail) {
      return fail.error();
    }
    return decision instanceof Reported reported ? reported.error() : decision.toString();
  }
}
