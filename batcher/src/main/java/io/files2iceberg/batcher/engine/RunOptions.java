package io.files2iceberg.batcher.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * How one {@link BatchRunner} runs.
 *
 * @param concurrency how many tables run a batch at the same time; one table never runs two
 *     (concurrent MERGE commits to one table would conflict)
 * @param jobTimeout the longest one job may run; then it is cancelled and its batch failed
 */
public record RunOptions(int concurrency, Duration jobTimeout) {

  /** Four tables at a time, two hours per job. */
  public static final RunOptions DEFAULTS = new RunOptions(4, Duration.ofHours(2));

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
