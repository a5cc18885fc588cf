package io.files2iceberg.batcher.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --job-timeout}, for every command that runs the batcher ({@code batch run-once}, {@code batch
 * serve}, {@code local}, and {@code replay} and {@code backfill} with {@code --run}). The description
 * below is {@code batch}'s; the others' is their entry {@code files2iceberg.<command>.job-timeout} in
 * {@code OptionText.properties}.
 */
public final class JobTimeoutOption {
  @Option(
      names = "--job-timeout",
      paramLabel = "DURATION",
      defaultValue = "2h",
      converter = DurationConverter.class,
      descriptionKey = "job-timeout",
      description = "The longest one job may run before it is cancelled (90s, 30m, 2h). Default: ${DEFAULT-VALUE}.")
  Duration value;

  /** The longest one job may run; then it is cancelled and its batch failed. */
  public Duration value() {
    return value;
  }
}
