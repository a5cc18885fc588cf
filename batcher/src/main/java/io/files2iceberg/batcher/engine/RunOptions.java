package io.files2iceberg.batcher.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * How one {@link BatchRunner} runs.
 *
 * @param concurrency how many tables run a batch at the same time; one table never runs two
 *     (concurrent MERGE commits to one table would conflict)
 * @param jobTimeout the longest one job may run; then it is cancelled and its batch failed
 * @param waitForJobs whether a table's turn waits for each job it launches and settles its batch
 *     (then claims the next); without, the turn ends once its job is launched, the job settles a
 *     batch it commits itself, and a batch it does not commit is settled by a later run once its
 *     lease expires ({@code batch run-once} without {@code --wait})
 */
public record RunOptions(int concurrency, Duration jobTimeout, boolean waitForJobs) {

  /** Four tables at a time, two hours per job, each job waited for. */
  public static final RunOptions DEFAULTS = new RunOptions(4, Duration.ofHours(2));

  /** Every job waited for and its batch settled. */
  public RunOptions(int concurrency, Duration jobTimeout) {
    this(concurrency, jobTimeout, true);
  }

  /** These options, waiting for the jobs or not. */
  public RunOptions waitingForJobs(boolean wait) {
    return new RunOptions(concurrency, jobTimeout, wait);
  }

  public RunOptions {
    Objects.requireNonNull(jobTimeout, "jobTimeout");
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
    }
    if (jobTimeout.isNegative() || jobTimeout.isZero()) {
      throw new IllegalArgumentException("jobTimeout must be positive, was " + jobTimeout);
    }
  }
}
