package io.files2iceberg.batcher.engine;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.JobExit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What becomes of a ledger batch: one pure decision over what its launch came to (or, for a batch
 * whose lease expired, what its latest attempt left), its attempts and whether the table may hold
 * it already. {@link SettlementWriter} applies the decision to the ledger.
 *
 * <p>After a launch ({@link #decide}), by the job's {@link JobExit} as its result file (else its
 * exit code) says, classified by {@link JobExit#isRetryable()} and {@link
 * io.files2iceberg.batcher.engine.launch.LaunchException#isRetryable()}:
 *
 * <ul>
 *   <li>{@code LOADED}: the job wrote the checkpoint; the ledger must show the batch COMMITTED
 *       ({@link #confirm}), else it is failed, naming the state.
 *   <li>{@code CHECKPOINT_FAILED}: the rows are in the table. The batch is launched again at once
 *       (the job only finalizes it); if that fails too, it is left for recovery. Its partitions are
 *       never released: that would load them twice.
 *   <li>{@code REJECTED}: the input or the profile must change first; the batch fails with its
 *       partitions FAILED at once, until an operator retries them.
 *   <li>{@code FAILED}, {@code INVALID_MANIFEST}, reported by the job of a batch no earlier launch
 *       may have committed: nothing was committed; the batch fails and its partitions are released
 *       with one more attempt counted (FAILED after {@code job.max-attempts}), for a new batch
 *       with a new manifest.
 *   <li>No job ran (the manifest could not be written, the launcher refused): as {@code FAILED}
 *       when a later try may succeed; when something must be fixed first (a missing build, a
 *       setting Dataproc refuses), the partitions fail at once, since a new batch would fail the
 *       same way.
 *   <li>A run that ended without the job's word (a crash, a kill, the timeout, a run the watcher
 *       lost), and any failure of a batch that an earlier launch may have committed: whether the
 *       table holds it is unknown. When the same batch may succeed when run again, it is left for
 *       recovery (its lease expired) and launched again next run, until its attempts reach {@code
 *       job.max-attempts}; then, or at once when it may not, it gives up with an unknown outcome
 *       ({@link BatchRecord#outcomeUnknown()}): FAILED, its partitions FAILED, revived by {@code retry}.
 * </ul>
 *
 * <p>A batch whose lease expired ({@link #recover}): its latest attempt comes first, since its
 * batcher may have died while its job did not. A result that has the batch in the table settles
 * it from that result; a job of that attempt still running is waited for; one that may be running
 * (the launcher cannot tell) leaves the batch as it is: a second job beside a live one could
 * commit it twice. A rejected result fails it; a batch out of attempts gives up with an unknown
 * outcome; any other is launched again.
 */
final class Settlement {

  private Settlement() {}

  /** How one launch of a batch ended, as far as the batcher saw. */
  sealed interface Ended {
    /** A job ran and ended (or was cancelled, or lost): its result. */
    record JobEnded(JobResult result) implements Ended {
      public JobEnded {
        Objects.requireNonNull(result, "result");
      }
    }

    /**
     * No job ran: the manifest could not be written or the launcher refused.
     *
     * @param retryable whether a later try may succeed without a fix
     */
    record NotLaunched(String error, boolean retryable) implements Ended {
      public NotLaunched {
        Objects.requireNonNull(error, "error");
      }
    }
  }

  /**
   * One launch of a ledger batch, to settle.
   *
   * @param attempts the batch's attempts, this launch counted
   * @param maxAttempts the table's {@code job.max-attempts}, at least 1
   * @param mayHold whether an earlier launch may have committed the batch (a recovered batch that
   *     ran before, a revived one, one whose checkpoint failed, a reattached run)
   * @param checkpointRelaunched whether this launch is the one made at once after a failed checkpoint
   */
  record Attempt(Ended ended, int attempts, int maxAttempts, boolean mayHold, boolean checkpointRelaunched) {
    Attempt {
      Objects.requireNonNull(ended, "ended");
    }
  }

  /** Whether the latest attempt of an expired batch still runs, as its launcher says. */
  enum Liveness {
    /** Ended, never started, or its result was read: nothing runs. */
    ENDED,
    /** Still running: its batcher died, its job did not. */
    RUNNING,
    /** The launcher cannot tell. */
    UNKNOWN
  }

  /**
   * A batch whose lease expired, with what its latest attempt left.
   *
   * @param latest the result file of its latest launch, when that launch wrote one
   * @param liveness whether that launch's job still runs ({@link Liveness#ENDED} when it left a result)
   */
  record Expired(BatchRecord batch, Optional<AttemptResult> latest, Liveness liveness, int maxAttempts) {
    Expired {
      Objects.requireNonNull(batch, "batch");
      Objects.requireNonNull(latest, "latest");
      Objects.requireNonNull(liveness, "liveness");
    }
  }

  /** What to do with the batch. */
  sealed interface Action permits Settle, Relaunch, WaitForLiveJob, LeaveAsIs, CommitFromResult {}

  /** Launch the same batch again now. {@code mayHold}: the table may hold it already. */
  record Relaunch(boolean mayHold) implements Action {}

  /** Watch the latest attempt's job, still running, and settle the batch by its result. */
  record WaitForLiveJob() implements Action {}

  /** Change nothing this run: the latest attempt's job may still run. */
  record LeaveAsIs(String why) implements Action {}

  /** The latest attempt's result has the batch in the table: write its checkpoint from the result. */
  record CommitFromResult(AttemptResult result) implements Action {}

  /** What {@link SettlementWriter} writes to the ledger. */
  sealed interface Settle extends Action
      permits ConfirmCommitted, Commit, FailAndRelease, FailPartitions, LeaveForRecovery, GiveUp, Reported {}

  /** The job says it loaded the batch and wrote the checkpoint: read the ledger and {@link #confirm}. */
  record ConfirmCommitted(JobResult result) implements Settle {}

  /** The ledger has the batch COMMITTED: report it, prune old checkpoints. */
  record Commit(BatchLoadReport report) implements Settle {}

  /**
   * Nothing was committed: FAILED, partitions released with an attempt counted. {@code cause}: the
   * error class and file at fault the job classified.
   */
  record FailAndRelease(String error, Optional<JobExit> exit, Optional<FailureCause> cause) implements Settle {
    FailAndRelease(String error, Optional<JobExit> exit) {
      this(error, exit, Optional.empty());
    }
  }

  /** Nothing was committed and trying again cannot help: FAILED, partitions FAILED at once. */
  record FailPartitions(String error, Optional<JobExit> exit, Optional<FailureCause> cause) implements Settle {
    FailPartitions(String error, Optional<JobExit> exit) {
      this(error, exit, Optional.empty());
    }
  }

  /** The table may hold the batch: keep it in flight, lease expired, for the next run's recovery. */
  record LeaveForRecovery(String error, Optional<JobExit> exit, int attempts) implements Settle {}

  /** The table may hold the batch and it is not run again: FAILED with an unknown outcome. */
  record GiveUp(String why, Optional<JobExit> exit, int attempts) implements Settle {}

  /** The ledger already has the batch settled otherwise: nothing to write, the failure is reported. */
  record Reported(String error, Optional<JobExit> exit) implements Settle {}

  /** Settles one launch of a ledger batch (see the class comment). */
  static Action decide(Attempt launch) {
    if (launch.ended() instanceof Ended.NotLaunched none) {
      if (!launch.mayHold()) {
        return none.retryable() ? new FailAndRelease(none.error(), Optional.empty())
            : new FailPartitions(none.error(), Optional.empty());
      }
      return unknownOutcome(none.error(), Optional.empty(), none.retryable(), launch);
    }
    JobResult result = ((Ended.JobEnded) launch.ended()).result();
    Optional<JobExit> exit = Optional.of(result.exit());
    return switch (result.exit()) {
      case LOADED -> new ConfirmCommitted(result);
      case CHECKPOINT_FAILED -> launch.checkpointRelaunched()
          ? unknownOutcome(result.describe(), exit, true, launch) : new Relaunch(true);
      // The job checks the table's ancestry before it reads a file: a rejected batch is not in the table.
      case REJECTED -> new FailPartitions(result.describe(), exit, result.cause());
      case FAILED, INVALID_MANIFEST -> result.fromJob() && !launch.mayHold()
          ? new FailAndRelease(result.describe(), exit, result.cause())
          : unknownOutcome(result.describe(), exit, result.exit().isRetryable(), launch);
    };
  }

  /** The job said LOADED; {@code stored} is the batch as the ledger has it now. */
  static Settle confirm(JobResult result, Optional<BatchRecord> stored) {
    if (stored.isPresent() && stored.get().state() == BatchState.COMMITTED) {
      BatchRecord batch = stored.get();
      return new Commit(result.report().orElseGet(() -> new BatchLoadReport(batch.table(), batch.batchId(), false,
          batch.snapshotId().orElse(0L), BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(),
          batch.metrics().orElse(BatchMetrics.EMPTY), List.of(), Optional.empty())));
    }
    String state = stored.map(b -> b.state().name()).orElse("missing");
    String error = "the job exited 0 but the ledger has the batch " + state + " (expected COMMITTED): "
        + result.describe();
    Optional<JobExit> exit = Optional.of(JobExit.LOADED);
    return stored.isPresent() && stored.get().state().isInFlight() ? new FailAndRelease(error, exit)
        : new Reported(error, exit);
  }

  /** Recovers a batch whose lease expired (see the class comment). */
  static Action recover(Expired expired) {
    BatchRecord batch = expired.batch();
    Optional<AttemptResult> latest = expired.latest();
    // A result without a checkpoint to write (saveCheckpoint = false) is not a run of the ledger's batch.
    if (latest.isPresent() && latest.get().isInTable()
        && latest.get().report().orElseThrow().checkpoint() != BatchLoadReport.Checkpoint.SKIPPED) {
      return new CommitFromResult(latest.get());
    }
    if (expired.liveness() == Liveness.RUNNING) {
      return new WaitForLiveJob();
    }
    if (latest.isPresent() && latest.get().exit() == JobExit.REJECTED) {
      // The job's own word that this batch cannot be loaded as it is; its batcher died before
      // settling it. Running it again would fail the same way.
      return new FailPartitions(latest.get().detail(), Optional.of(JobExit.REJECTED), latest.get().cause());
    }
    if (batch.attempts() >= expired.maxAttempts()) {
      return new GiveUp("the lease expired without a result" + batch.error().map(e -> "; " + e).orElse(""),
          Optional.empty(), batch.attempts());
    }
    if (expired.liveness() == Liveness.UNKNOWN) {
      return new LeaveAsIs("cannot tell whether attempt " + batch.launches() + " still runs");
    }
    // The batch may have been RUNNING when its batcher died, or it is one that gave up with an
    // unknown outcome and retry revived (attempts reset, error kept): the table may hold it already.
    return new Relaunch(batch.attempts() > 0 || batch.outcomeUnknown());
  }

  /**
   * The table may hold the batch, and running it again may settle it: launched again next run
   * while attempts remain, else given up with an unknown outcome.
   */
  static Settle leaveForRecoveryOrGiveUp(String error, Optional<JobExit> exit, int attempts, int maxAttempts) {
    return attempts >= maxAttempts ? new GiveUp(error, exit, attempts)
        : new LeaveForRecovery(error, exit, attempts);
  }

  private static Settle unknownOutcome(String error, Optional<JobExit> exit, boolean retryable, Attempt launch) {
    if (!retryable) {
      return new GiveUp(error, exit, launch.attempts());
    }
    return leaveForRecoveryOrGiveUp(error, exit, launch.attempts(), launch.maxAttempts());
  }
}
