package io.files2iceberg.batcher.cli;

import java.nio.file.Path;
import picocli.CommandLine.Mixin;

/**
 * The options of the commands that read and repair the ledger ({@code retry}, {@code inspect},
 * {@code quarantine list}): the profiles naming the ledger ({@code --config}, else the embedded
 * ledger of the home), {@code --json} and {@code --home}.
 */
public final class LedgerOptions {
  @Mixin ConfigOption config;

  @Mixin JsonOption json;

  @Mixin HomeOption home;

  /** {@code --config}, or null for the embedded ledger of the home. */
  public Path config() {
    return config.path();
  }

  public boolean json() {
    return json.json();
  }

  public HomeOption home() {
    return home;
  }
}
