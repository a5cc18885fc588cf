package io.files2iceberg.core.ledger.rules;

import io.files2iceberg.core.ledger.BatchIds;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.States;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/**
 * What each ledger call does to a batch, decided once for every store: the stored record in, the
 * record to write out. What the same call does to the batch's files and partitions is {@link
 * FileRules}' and {@link PartitionRules}'.
 */
public final class BatchRules {
  private BatchRules() {}

  /** A new batch's id ({@link BatchIds#ledger}). */
  public static String newBatchId(Instant now) {
    return BatchIds.ledger(now);
  }

  /** A claim's new batch: PLANNED with a lease, its partitions sorted. */
  public static BatchRecord planned(String batchId, String table, List<String> partitions, List<String> fileIds,
      List<String> eventIds, Duration lease, Instant now) {
    return new BatchRecord(batchId, table, BatchState.PLANNED, partitions.stream().sorted().toList(), fileIds,
        eventIds, 0, 0, false, Optional.of(now.plus(lease)), Optional.empty(), Optional.empty(), Optional.empty(),
        now, now);
  }

  /** A launch: PLANNED or RUNNING to RUNNING, counting the attempt and the launch, with a new lease. */
  public static BatchRecord running(BatchRecord batch, Duration lease, Instant now) {
    States.requireTransition("Cannot mark batch " + batch.batchId() + " running", batch.state(), BatchState.RUNNING,
        BatchState::next);
    return with(batch, BatchState.RUNNING, batch.attempts() + 1, batch.launches() + 1, batch.outcomeUnknown(),
        Optional.of(now.plus(lease)), batch.snapshotId(), batch.metrics(), batch.error(), now);
  }

  /**
   * A new lease for a batch in flight; with {@code onlyExpired} (recovery's take-over), only once
   * the old one has run out.
   */
  public static BatchRecord leased(BatchRecord batch, Duration lease, boolean onlyExpired, String action, Instant now) {
    States.requireOneOf(action, batch.state(), EnumSet.of(BatchState.PLANNED, BatchState.RUNNING));
    if (onlyExpired) {
      States.requireLeaseExpired(action, batch, now);
    }
    return with(batch, batch.state(), batch.attempts(), batch.launches(), batch.outcomeUnknown(),
        Optional.of(now.plus(lease)), batch.snapshotId(), batch.metrics(), batch.error(), now);
  }

  /**
   * The checkpoint: COMMITTED with the snapshot and metrics, the lease and the unknown outcome
   * cleared. Empty when the batch is already committed with this snapshot (idempotent for the
   * snapshot that wrote it, and only for that one: a second snapshot for one batch would mean its
   * rows were written twice).
   */
  public static Optional<BatchRecord> committed(BatchRecord batch, CommitBatch command, Instant now) {
    String action = "Cannot commit batch " + batch.batchId();
    if (batch.state() == BatchState.COMMITTED) {
      if (batch.snapshotId().equals(Optional.of(command.snapshotId()))) {
        return Optional.empty();
      }
      throw new IllegalTransitionException(action + " with snapshot " + command.snapshotId()
          + ": it is already committed with snapshot " + batch.snapshotId().map(String::valueOf).orElse("none"));
    }
    States.requireTransition(action, batch.state(), BatchState.COMMITTED, BatchState::next);
    BatchMetrics metrics = command.metrics();
    return Optional.of(with(batch, BatchState.COMMITTED, batch.attempts(), batch.launches(), false, Optional.empty(),
        Optional.of(command.snapshotId()), Optional.of(metrics), batch.error(), now));
  }

  /** PLANNED or RUNNING to FAILED with the error and the command's unknown outcome, the lease cleared. */
  public static BatchRecord failed(BatchRecord batch, FailBatch command, Instant now) {
    States.requireTransition("Cannot fail batch " + batch.batchId(), batch.state(), BatchState.FAILED,
        BatchState::next);
    return with(batch, BatchState.FAILED, batch.attempts(), batch.launches(), command.outcomeUnknown(),
        Optional.empty(), batch.snapshotId(), batch.metrics(), Optional.of(command.error()), command.cause(), now);
  }

  /**
   * {@code retry} of a batch that gave up: FAILED to PLANNED with a fresh count of attempts (the
   * launches go on counting, so the relaunch gets a job of its own), its error and unknown outcome
   * kept, and a lease that has already run out, so recovery's take-over accepts it at once.
   */
  public static BatchRecord revived(BatchRecord batch, String action, Instant now) {
    States.requireTransition(action, batch.state(), BatchState.PLANNED, BatchState::next);
    return with(batch, BatchState.PLANNED, 0, batch.launches(), batch.outcomeUnknown(),
        Optional.of(now.minusMillis(1)), batch.snapshotId(), batch.metrics(), batch.error(), now);
  }

  /** {@code retry --batch}: only a FAILED batch's partitions are re-queued. */
  public static void requireRetryable(BatchRecord batch, String action) {
    States.requireOneOf(action, batch.state(), EnumSet.of(BatchState.FAILED));
  }

  private static BatchRecord with(BatchRecord b, BatchState state, int attempts, int launches, boolean outcomeUnknown,
      Optional<Instant> leaseUntil, Optional<Long> snapshotId, Optional<BatchMetrics> metrics, Optional<String> error,
      Instant now) {
    return with(b, state, attempts, launches, outcomeUnknown, leaseUntil, snapshotId, metrics, error, b.cause(), now);
  }

  /** As above with the failure cause: a batch keeps its latest failure's cause beside its error. */
  private static BatchRecord with(BatchRecord b, BatchState state, int attempts, int launches, boolean outcomeUnknown,
      Optional<Instant> leaseUntil, Optional<Long> snapshotId, Optional<BatchMetrics> metrics, Optional<String> error,
      Optional<FailureCause> cause, Instant now) {
    return new BatchRecord(b.batchId(), b.table(), state, b.partitions(), b.fileIds(), b.eventIds(), attempts,
        launches, outcomeUnknown, leaseUntil, snapshotId, metrics, error, cause, b.createdAt(), now);
  }
}
