package io.files2iceberg.batcher.cli;

import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of the commands that read and repair the ledger ({@code retry}, {@code inspect},
 * {@code quarantine list}): the profiles naming the ledger ({@code --config}, else the embedded
 * ledger of the home), {@code --json} and {@code --home}.
 */
public final class LedgerOptions {
  @Option(names = {"-c", "--config"}, paramLabel = "FILE|DIR", description = "Profiles naming the ledger.")
  Path config;

  @Mixin JsonOption json;

  @Mixin HomeOption home;

  /** {@code --config}, or null for the embedded ledger of the home. */
  public Path config() {
    return config;
  }

  public boolean json() {
    return json.json();
  }

  public HomeOption home() {
    return home;
  }
}
