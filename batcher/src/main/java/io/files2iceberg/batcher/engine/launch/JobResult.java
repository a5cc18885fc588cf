package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.JobExit;
import java.util.Objects;
import java.util.Optional;

/**
 * How one run of the job ended.
 *
 * @param exit the job's exit code as its outcome (a crash or a kill is {@link JobExit#FAILED})
 * @param report the job's report, from its result file (or, without one, its metrics line):
 *     always with {@link JobExit#LOADED} when the launcher has it, and with {@link
 *     JobExit#CHECKPOINT_FAILED} when the job got that far
 * @param detail one line saying what happened: the job's own {@code files2iceberg:} line from its
 *     result file (or its log) when it wrote one, else what the launcher saw (the exit code, a
 *     signal, the remote state); never blank
 * @param fromJob whether the job itself decided the outcome (it printed its {@code files2iceberg:}
 *     line, or its metrics line): only then does {@link JobExit#FAILED} mean "nothing was
 *     committed". False for a crash, a kill, a lost remote run: the table may or may not hold the
 *     batch, so the planner relaunches it (the job checks the snapshot ancestry first) instead of
 *     releasing its partitions.
 * @param log where the run's full output is: a local file path or a console/logging URL
 * @param cause the error class and file at fault the job classified, from its result file
 */
public record JobResult(
    JobExit exit, Optional<BatchLoadReport> report, String detail, boolean fromJob, Optional<String> log,
    Optional<FailureCause> cause) {

  public JobResult {
    Objects.requireNonNull(exit, "exit");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(report, "report");
    Objects.requireNonNull(detail, "detail");
    Objects.requireNonNull(log, "log");
    if (detail.isBlank()) {
      throw new IllegalArgumentException("detail must not be blank");
    }
  }

  /** A result without a classified cause (no result file, or the job did not classify one). */
  public JobResult(JobExit exit, Optional<BatchLoadReport> report, String detail, boolean fromJob,
      Optional<String> log) {
    this(exit, report, detail, fromJob, log, Optional.empty());
  }

  /**
   * A result whose {@code fromJob} is inferred conservatively: any exit but {@link JobExit#FAILED}
   * is the job's own (only the job exits 2, 3 or 4), and so is a FAILED run that printed a
   * report; any other FAILED run counts as a crash.
   */
  public JobResult(JobExit exit, Optional<BatchLoadReport> report, String detail, Optional<String> log) {
    this(exit, report, detail, exit != JobExit.FAILED || report.isPresent(), log);
  }

  /** The detail, followed by where the log is: what the ledger and {@code status} show. */
  public String describe() {
    return log.map(where -> detail + " (log: " + where + ")").orElse(detail);
  }
}
