package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --json}, for the commands whose whole output has a JSON form ({@code retry}, {@code
 * inspect}, {@code quarantine}).
 */
public final class JsonOption {
  @Option(names = "--json", description = "Print JSON for scripts.")
  boolean json;

  /** Whether {@code --json} was given. */
  public boolean json() {
    return json;
  }
}
