package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --concurrency}, for the commands that run the batcher over every table ({@code batch run-once},
 * {@code batch serve}, {@code local}), through {@link BatcherOptions}. The default is {@code batch}'s;
 * {@code local} passes its own by initialising the mixin ({@code new BatcherOptions(2)} creates {@code
 * new ConcurrencyOption(2)}), which picocli uses and shows as the default. Its wording is its entry {@code files2iceberg.local.concurrency} in {@code
 * OptionText.properties}.
 */
public final class ConcurrencyOption {
  @Option(
      names = "--concurrency",
      paramLabel = "N",
      descriptionKey = "concurrency",
      description = "Tables running a batch at the same time (one batch per table at most). Default: ${DEFAULT-VALUE}.")
  int value = 4;

  public ConcurrencyOption() {}

  /** With another default than {@code batch}'s. */
  public ConcurrencyOption(int defaultValue) {
    this.value = defaultValue;
  }

  /** Tables that may run a batch at the same time. */
  public int value() {
    return value;
  }
}
