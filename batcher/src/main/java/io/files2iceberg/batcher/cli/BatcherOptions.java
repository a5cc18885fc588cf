package io.files2iceberg.batcher.cli;

import io.files2iceberg.batcher.engine.RunOptions;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;

/**
 * The options of the commands that run the batcher over every table of the profiles ({@code batch
 * run-once}, {@code batch serve}, {@code local}): the profiles ({@code -c/--config}, required),
 * {@code --concurrency} and {@code --job-timeout}. {@code local} passes its own default concurrency
 * ({@code new BatcherOptions(2)}).
 */
public final class BatcherOptions {
  @Mixin ConfigOption.Required config;

  @Mixin ConcurrencyOption concurrency;

  @Mixin JobTimeoutOption jobTimeout;

  /** With {@code batch}'s default concurrency. */
  public BatcherOptions() {
    this.concurrency = new ConcurrencyOption();
  }

  /** With another default concurrency than {@code batch}'s. */
  public BatcherOptions(int defaultConcurrency) {
    this.concurrency = new ConcurrencyOption(defaultConcurrency);
  }

  /** The profile file or folder. */
  public Path config() {
    return config.path();
  }

  /** Tables that may run a batch at the same time. */
  public int concurrency() {
    return concurrency.value();
  }

  /** How the batcher runs: the concurrency and the longest one job may run. */
  public RunOptions runOptions() {
    return new RunOptions(concurrency.value(), jobTimeout.value());
  }
}
