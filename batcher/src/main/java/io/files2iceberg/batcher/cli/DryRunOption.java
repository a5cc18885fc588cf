package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --dry-run}: say what would change, change nothing. What each command would change differs,
 * so its wording is the command's entry {@code files2iceberg.<command>.dry-run} in {@code
 * OptionText.properties}.
 */
public final class DryRunOption {
  @Option(names = "--dry-run", descriptionKey = "dry-run", description = "Change nothing.")
  boolean dryRun;

  /** Whether {@code --dry-run} was given. */
  public boolean dryRun() {
    return dryRun;
  }
}
