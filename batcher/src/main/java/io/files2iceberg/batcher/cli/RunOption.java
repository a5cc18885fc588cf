package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --run}, for the commands that record partitions and can then run the batcher for the table
 * ({@code replay}, {@code backfill}); its wording per command is {@code files2iceberg.<command>.run}
 * in {@code OptionText.properties}.
 */
public final class RunOption {
  @Option(names = "--run", descriptionKey = "run", description = "Run the batcher for the table until nothing is READY.")
  boolean run;

  /** Whether {@code --run} was given. */
  public boolean run() {
    return run;
  }
}
