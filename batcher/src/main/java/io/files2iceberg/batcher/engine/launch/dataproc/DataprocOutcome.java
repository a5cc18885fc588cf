package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.cloud.dataproc.v1.Batch;
import io.files2iceberg.batcher.engine.launch.JobFailures;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.core.manifest.JobExit;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The result a Dataproc batch's state stands for.
 *
 * <p>Dataproc reports a state and a free-text state message, not the driver's exit code. A FAILED
 * batch is therefore classified from its message by {@link JobFailures}, trusting only what the job
 * itself writes or an explicit exit code.
 *
 * The message is not a contract: when it carries neither, a rejected or checkpoint-failed run reads
 * as a FAILED run that the job did not decide ({@code fromJob = false}), as a crash does. That errs
 * on the safe side: such a batch is launched again, the job's snapshot walk keeps a committed batch
 * from being written twice, and a batch that keeps failing gives up after {@code job.max-attempts}.
 * Only the job's own {@code failed:} line makes a FAILED run mean "nothing was committed".
 */
final class DataprocOutcome {

  /** Dataproc closes its message with where to look; the log field says that already. */
  private static final Pattern DATAPROC_TRAILER = Pattern.compile("\\]?\\.?\\s*Additional details can be found at:.*$",
      Pattern.DOTALL);

  private DataprocOutcome() {}

  /**
   * The result of a batch in a terminal state; empty while it is PENDING, RUNNING, CANCELLING or in
   * a state this client does not know.
   *
   * @param jobId the Dataproc batch id, for the detail
   * @param log where the batch's output is shown
   */
  static Optional<JobResult> of(Batch batch, String jobId, String log) {
    String message = batch.getStateMessage().strip();
    return switch (batch.getState()) {
      // The driver exited 0: the job's own outcome, its metrics are in the ledger.
      case SUCCEEDED -> Optional.of(new JobResult(JobExit.LOADED, Optional.empty(),
          "Dataproc batch " + jobId + " succeeded" + driverOutput(batch), true, Optional.of(log)));
      case FAILED -> Optional.of(failed(jobId, message, log));
      // A kill: the job may have committed before it stopped.
      case CANCELLED -> Optional.of(new JobResult(JobExit.FAILED, Optional.empty(),
          "Dataproc batch " + jobId + " was cancelled" + (message.isEmpty() ? "" : ": " + JobFailures.oneLine(message)),
          false,
          Optional.of(log)));
      case PENDING, RUNNING, CANCELLING, STATE_UNSPECIFIED, UNRECOGNIZED -> Optional.empty();
    };
  }

  /**
   * A FAILED batch. It is the job's own outcome ({@code fromJob}) when the message carries the
   * job's {@code files2iceberg:} line or an exit code only the job uses (2, 3, 4); otherwise it
   * counts as a crash, after which the table may or may not hold the batch.
   */
  static JobResult failed(String jobId, String message, String log) {
    JobExit exit = classifyFailure(message);
    boolean fromJob = JobFailures.isJobsOwn(message, exit);
    return new JobResult(exit, Optional.empty(), failureDetail(jobId, message), fromJob, Optional.of(log));
  }

  /** The exit a FAILED batch's state message stands for ({@link JobFailures#classify}). */
  static JobExit classifyFailure(String stateMessage) {
    return JobFailures.classify(stateMessage);
  }

  /** The job's own error line when the message carries it, else the message; one line. */
  static String failureDetail(String jobId, String stateMessage) {
    Optional<String> own = JobFailures.jobLine(stateMessage);
    if (own.isPresent()) {
      return JobFailures.oneLine(DATAPROC_TRAILER.matcher(own.get()).replaceFirst(""));
    }
    if (stateMessage.isEmpty()) {
      return "Dataproc batch " + jobId + " failed without a state message";
    }
    return "Dataproc batch " + jobId + " failed: " + JobFailures.oneLine(stateMessage);
  }

  private static String driverOutput(Batch batch) {
    String uri = batch.getRuntimeInfo().getOutputUri();
    return uri.isEmpty() ? "" : "; driver output " + uri;
  }
}
