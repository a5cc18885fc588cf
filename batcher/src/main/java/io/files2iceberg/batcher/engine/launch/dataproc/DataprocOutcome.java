package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.cloud.dataproc.v1.Batch;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.core.manifest.JobExit;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The result a Dataproc batch's state stands for.
 *
 * <p>Dataproc reports a state and a free-text state message, not the driver's exit code. A FAILED
 * batch is therefore classified from its message, trusting only what the job itself writes or an
 * explicit exit code:
 *
 * <ol>
 *   <li>the job's own line decides: {@code files2iceberg: table T batch B rejected: ...} is {@link
 *       JobExit#REJECTED}, {@code ... but its ledger checkpoint failed: ...} {@link
 *       JobExit#CHECKPOINT_FAILED}, {@code ... failed: ...} {@link JobExit#FAILED};
 *   <li>without it, an exit code ({@code exit code 4}, {@code exitCode=4}, {@code exit status: 4}):
 *       as {@link JobExit#fromCode} maps it (4 REJECTED, 3 CHECKPOINT_FAILED, 2 INVALID_MANIFEST),
 *       but never LOADED;
 *   <li>anything else: {@link JobExit#FAILED}.
 * </ol>
 *
 * The job's line comes first because a Spark message may quote other processes' exit codes (an
 * executor's {@code Exit status: 143}).
 *
 * The message is not a contract: when it carries neither, a rejected or checkpoint-failed run reads
 * as a FAILED run that the job did not decide ({@code fromJob = false}), as a crash does. That errs
 * on the safe side: such a batch is launched again, the job's snapshot walk keeps a committed batch
 * from being written twice, and a batch that keeps failing gives up after {@code job.max-attempts}.
 * Only the job's own {@code failed:} line makes a FAILED run mean "nothing was committed".
 */
final class DataprocOutcome {

  private static final Pattern JOB_LINE =
      Pattern.compile("files2iceberg: table \\S+ batch \\S+ (rejected|failed|is committed to Iceberg)[^\\n]*");
  private static final Pattern REJECTED_LINE = Pattern.compile("files2iceberg: table \\S+ batch \\S+ rejected: ");
  private static final Pattern CHECKPOINT_LINE = Pattern.compile("but its ledger checkpoint failed");
  /** "exit code 4", "exitCode=4", "exited with code 4", "exited with exit code 4", "exit status: 4". */
  private static final Pattern EXIT_CODE =
      Pattern.compile("(?i)\\bexit(?:ed)?(?: with)?(?: exit)?[ _]?(?:code|status)\\s*[=:]?\\s*(\\d{1,3})\\b");
  /** Dataproc closes its message with where to look; the log field says that already. */
  private static final Pattern DATAPROC_TRAILER = Pattern.compile("\\]?\\.?\\s*Additional details can be found at:.*$",
      Pattern.DOTALL);
  private static final int MAX_DETAIL_LENGTH = 2000;

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
          "Dataproc batch " + jobId + " was cancelled" + (message.isEmpty() ? "" : ": " + oneLine(message)), false,
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
    boolean fromJob = JOB_LINE.matcher(message).find() || exit != JobExit.FAILED;
    return new JobResult(exit, Optional.empty(), failureDetail(jobId, message), fromJob, Optional.of(log));
  }

  /** The exit a FAILED batch's state message stands for (see the class comment). */
  static JobExit classifyFailure(String stateMessage) {
    if (REJECTED_LINE.matcher(stateMessage).find()) {
      return JobExit.REJECTED;
    }
    if (CHECKPOINT_LINE.matcher(stateMessage).find()) {
      return JobExit.CHECKPOINT_FAILED;
    }
    if (JOB_LINE.matcher(stateMessage).find()) {
      return JobExit.FAILED;
    }
    Matcher exit = EXIT_CODE.matcher(stateMessage);
    if (exit.find()) {
      // A FAILED batch never counts as loaded, whatever code its message names.
      JobExit code = JobExit.fromCode(Integer.parseInt(exit.group(1)));
      return code == JobExit.LOADED ? JobExit.FAILED : code;
    }
    return JobExit.FAILED;
  }

  /** The job's own error line when the message carries it, else the message; one line. */
  static String failureDetail(String jobId, String stateMessage) {
    Matcher own = JOB_LINE.matcher(stateMessage);
    if (own.find()) {
      return oneLine(DATAPROC_TRAILER.matcher(own.group()).replaceFirst(""));
    }
    if (stateMessage.isEmpty()) {
      return "Dataproc batch " + jobId + " failed without a state message";
    }
    return "Dataproc batch " + jobId + " failed: " + oneLine(stateMessage);
  }

  private static String driverOutput(Batch batch) {
    String uri = batch.getRuntimeInfo().getOutputUri();
    return uri.isEmpty() ? "" : "; driver output " + uri;
  }

  private static String oneLine(String s) {
    String line = s.replaceAll("\\s+", " ").strip();
    return line.length() <= MAX_DETAIL_LENGTH ? line : line.substring(0, MAX_DETAIL_LENGTH) + "...";
  }
}
