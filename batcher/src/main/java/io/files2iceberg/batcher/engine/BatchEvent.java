package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Expectation.OnViolation;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link BatchRunner} did, as facts in the order they happened for one table (tables run in
 * parallel, so events of different tables interleave). The CLI prints them; tests assert on them.
 * Every event names its table and batch.
 */
public sealed interface BatchEvent {

  /** The qualified Iceberg table. */
  String table();

  /** The batch; for modes {@code full} and backfills a generated id the ledger does not hold. */
  String batchId();

  /** One line for people, naming the table and the batch: what the CLI prints. */
  String describe();

  /**
   * A batch was planned: READY partitions claimed in the ledger, or (mode {@code full}, {@code
   * save-checkpoint = false}) the files listed from storage.
   *
   * @param saveCheckpoint false: the job writes nothing to the ledger
   * @param partitions the partition tokens, sorted
   * @param files how many files the batch reads
   */
  record BatchClaimed(
      String table, String batchId, IngestionType mode, boolean saveCheckpoint, List<String> partitions, int files)
      implements BatchEvent {
    public BatchClaimed {
      partitions = List.copyOf(partitions);
    }

    @Override
    public String describe() {
      return "claimed   " + table + " " + batchId + ": " + files + " file(s) of " + partitions.size()
          + " partition(s) " + partitions + ", mode " + mode.code() + (saveCheckpoint ? "" : ", listed, no checkpoint");
    }
  }

  /**
   * Mode {@code last}: older READY partitions will not be loaded; {@code batchId} loads the newest.
   */
  record PartitionsSuperseded(String table, String batchId, List<String> partitions) implements BatchEvent {
    public PartitionsSuperseded {
      partitions = List.copyOf(partitions);
    }

    @Override
    public String describe() {
      return "superseded " + table + " " + partitions + ": batch " + batchId + " loads a newer partition";
    }
  }

  /**
   * The job was started on the batch.
   *
   * @param attempt the launch of this batch, from 1
   * @param jobId the launcher's id of the run (a process id, a Dataproc batch id)
   * @param log where the run's output goes
   */
  record BatchLaunched(String table, String batchId, int attempt, String jobId, Optional<String> log)
      implements BatchEvent {
    @Override
    public String describe() {
      return "launched  " + table + " " + batchId + ": attempt " + attempt + ", " + jobId
          + log.map(where -> ", log " + where).orElse("");
    }
  }

  /**
   * A batch whose lease had expired (its batcher died) was taken over; it is launched again, and
   * the job finalizes it without writing when the table already holds it.
   *
   * @param attempt the launch about to be made
   */
  record BatchRecovered(String table, String batchId, int attempt) implements BatchEvent {
    @Override
    public String describe() {
      return "recovered " + table + " " + batchId + ": its lease expired; launching it again (attempt " + attempt
          + ")";
    }
  }

  /**
   * A batch whose lease had expired was taken over while the job of its latest attempt was still
   * running (its batcher died, its job did not): recovery watches that job instead of launching a
   * second one on the batch, and settles the batch by its result.
   *
   * @param attempt the launch being watched
   * @param jobId the launcher's id of the run
   */
  record BatchReattached(String table, String batchId, int attempt, String jobId, Optional<String> log)
      implements BatchEvent {
    @Override
    public String describe() {
      return "reattached " + table + " " + batchId + ": its lease expired but attempt " + attempt + " (" + jobId
          + ") is still running; waiting for it" + log.map(where -> ", log " + where).orElse("");
    }
  }

  /** The batch is in the table, and (with a checkpoint) COMMITTED in the ledger. */
  record BatchCommitted(String table, String batchId, BatchLoadReport report) implements BatchEvent {
    public BatchCommitted {
      Objects.requireNonNull(report, "report");
    }

    @Override
    public String describe() {
      if (report.alreadyCommitted()) {
        return "committed " + table + " " + batchId + ": already in snapshot " + report.snapshotId()
            + "; ledger finalized";
      }
      return "committed " + table + " " + batchId + ": snapshot " + report.snapshotId() + ", "
          + report.metrics().files() + " file(s), " + report.metrics().rowsInserted() + " row(s) inserted, "
          + report.metrics().rowsUpdated() + " updated"
          + (report.quarantinedFiles().isEmpty() ? "" : ", " + report.quarantinedFiles().size() + " file(s) quarantined")
          + (report.metrics().rowsRejected() == 0 ? "" : ", " + report.metrics().rowsRejected() + " row(s) rejected")
          + expectationsFailed(report);
    }

    /**
     * {@code ; expectation amount_positive: 3 of 16 failed, rejected} for each expectation that
     * some rows (partitions, for min-rows and max-null-fraction) failed, in the profile's order;
     * empty text when all passed.
     */
    private static String expectationsFailed(BatchLoadReport report) {
      StringBuilder text = new StringBuilder();
      report.quality().forEach((name, counts) -> {
        if (counts.failed() > 0) {
          text.append("; expectation ").append(name).append(": ").append(counts.failed()).append(" of ")
              .append(counts.passed() + counts.failed()).append(" failed").append(action(counts.onViolation()));
        }
      });
      return text.toString();
    }

    /** What the action did with the failed rows, as the line says it. */
    private static String action(String onViolation) {
      return Arrays.stream(OnViolation.values()).filter(action -> action.code().equals(onViolation)).findFirst()
          .map(action -> switch (action) {
            case REJECT -> ", rejected";
            case DROP -> ", dropped";
            case WARN -> ", loaded (warn)";
            // Fails the batch: a committed batch has none of these failed.
            case FAIL -> " (on-violation fail)";
          })
          .orElse(" (on-violation " + onViolation + ")");
    }
  }

  /**
   * The batch did not commit.
   *
   * @param error what went wrong, with where the job's log is
   * @param exit the job's outcome; empty when no job ran to an end (it could not be started, it
   *     timed out, the ledger failed)
   * @param after what becomes of its partitions
   * @param cause the error class and the file at fault, when the job classified the failure
   */
  record BatchFailed(String table, String batchId, String error, Optional<JobExit> exit, AfterFailure after,
      Optional<FailureCause> cause) implements BatchEvent {
    public BatchFailed {
      Objects.requireNonNull(cause, "cause");
      Objects.requireNonNull(error, "error");
      Objects.requireNonNull(exit, "exit");
      Objects.requireNonNull(after, "after");
    }

    /** A failure the job did not classify. */
    public BatchFailed(String table, String batchId, String error, Optional<JobExit> exit, AfterFailure after) {
      this(table, batchId, error, exit, after, Optional.empty());
    }

    @Override
    public String describe() {
      String then = switch (after) {
        case RETRIED_LATER -> "partitions released for a later attempt";
        case PARTITIONS_FAILED -> "partitions FAILED until an operator retries them";
        case LEFT_FOR_RECOVERY -> "left RUNNING for recovery";
        case NOTHING_CLAIMED -> "nothing to release";
      };
      return "failed    " + table + " " + batchId + exit.map(e -> " (exit " + e.code() + " " + e.name() + ")").orElse("")
          + ": " + error + " [" + then + "]";
    }
  }

  /** What becomes of a batch's partitions when it does not commit. */
  enum AfterFailure {
    /** Released READY with one more attempt counted; a later run claims them again. */
    RETRIED_LATER,
    /** FAILED with the error (attempts exhausted, or input the job rejects): an operator's turn. */
    PARTITIONS_FAILED,
    /**
     * The rows are in the table but the ledger checkpoint is not: the batch stays RUNNING and
     * recovery finalizes it once its lease expires.
     */
    LEFT_FOR_RECOVERY,
    /** Nothing: the batch had no ledger record (mode {@code full}, backfills). */
    NOTHING_CLAIMED
  }
}
