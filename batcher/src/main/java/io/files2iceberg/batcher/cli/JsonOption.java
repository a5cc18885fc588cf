package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --json}, for the commands whose whole output has a JSON form ({@code retry}, {@code
 * inspect}, {@code history}, {@code quarantine}, and in their own words {@code status}, {@code maintain},
 * {@code sql}: their entries {@code files2iceberg.<command>.json} in {@code OptionText.properties}): JSON
 * lines, as docs/reference/json-output.md says.
 */
public final class JsonOption {
  @Option(names = "--json", descriptionKey = "json",
      description = "Print JSON lines for scripts: one object a line, its kind in \"kind\", the summary last,"
          + " snapshot ids as strings.")
  boolean json;

  /** Whether {@code --json} was given. */
  public boolean json() {
    return json;
  }
}
