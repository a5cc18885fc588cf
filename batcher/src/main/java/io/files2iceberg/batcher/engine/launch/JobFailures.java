package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.manifest.JobExit;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the text a remote run leaves when it fails says about its outcome: a Dataproc batch's state
 * message, the end of a Kubernetes driver pod's log. The launchers that cannot read the job's exit
 * directly classify with these rules, and only when the job wrote no result object:
 *
 * <ol>
 *   <li>the job's own line decides: {@code files2iceberg: table T batch B rejected: ...} is {@link
 *       JobExit#REJECTED}, {@code ... but its ledger checkpoint failed: ...} {@link
 *       JobExit#CHECKPOINT_FAILED}, {@code ... failed: ...} {@link JobExit#FAILED};
 *   <li>without it, an exit code ({@code exit code 4}, {@code exitCode=4}, {@code exit status: 4}):
 *       as {@link #ofFailedExitCode} maps it;
 *   <li>anything else: {@link JobExit#FAILED}.
 * </ol>
 *
 * The job's line comes first because Spark's text may quote other processes' exit codes (an
 * executor's {@code Exit status: 143}). Only the job's line, or an exit code only the job uses (2,
 * 3, 4), makes a FAILED run the job's own outcome; anything else counts as a crash, after which the
 * table may or may not hold the batch.
 */
public final class JobFailures {

  private static final Pattern JOB_LINE =
      Pattern.compile("files2iceberg: table \\S+ batch \\S+ (rejected|failed|is committed to Iceberg)[^\\n]*");
  private static final Pattern REJECTED_LINE = Pattern.compile("files2iceberg: table \\S+ batch \\S+ rejected: ");
  private static final Pattern CHECKPOINT_LINE = Pattern.compile("but its ledger checkpoint failed");
  /** "exit code 4", "exitCode=4", "exited with code 4", "exited with exit code 4", "exit status: 4". */
  private static final Pattern EXIT_CODE =
      Pattern.compile("(?i)\\bexit(?:ed)?(?: with)?(?: exit)?[ _]?(?:code|status)\\s*[=:]?\\s*(\\d{1,3})\\b");
  private static final int MAX_DETAIL_LENGTH = 2000;

  private JobFailures() {}

  /** The exit a failed run's text stands for (see the class comment). */
  public static JobExit classify(String text) {
    if (REJECTED_LINE.matcher(text).find()) {
      return JobExit.REJECTED;
    }
    if (CHECKPOINT_LINE.matcher(text).find()) {
      return JobExit.CHECKPOINT_FAILED;
    }
    if (JOB_LINE.matcher(text).find()) {
      return JobExit.FAILED;
    }
    Matcher exit = EXIT_CODE.matcher(text);
    if (exit.find()) {
      return ofFailedExitCode(Integer.parseInt(exit.group(1)));
    }
    return JobExit.FAILED;
  }

  /**
   * The exit of a run that failed with this exit code, as {@link JobExit#fromCode} maps it (4
   * REJECTED, 3 CHECKPOINT_FAILED, 2 INVALID_MANIFEST), but never LOADED: a failed run is not loaded,
   * whatever code it names.
   */
  public static JobExit ofFailedExitCode(int code) {
    JobExit exit = JobExit.fromCode(code);
    return exit == JobExit.LOADED ? JobExit.FAILED : exit;
  }

  /** The job's own {@code files2iceberg:} line in the text, if it carries one (the first). */
  public static Optional<String> jobLine(String text) {
    Matcher own = JOB_LINE.matcher(text);
    return own.find() ? Optional.of(own.group()) : Optional.empty();
  }

  /**
   * Whether the job decided the outcome of a failed run that left this text and ended with {@code
   * exit}: it wrote its own line, or the exit is one only the job uses.
   */
  public static boolean isJobsOwn(String text, JobExit exit) {
    return JOB_LINE.matcher(text).find() || exit != JobExit.FAILED;
  }

  /** The text on one line (runs of white space become one space), cut at 2000 characters. */
  public static String oneLine(String text) {
    String line = text.replaceAll("\\s+", " ").strip();
    return line.length() <= MAX_DETAIL_LENGTH ? line : line.substring(0, MAX_DETAIL_LENGTH) + "...";
  }
}
