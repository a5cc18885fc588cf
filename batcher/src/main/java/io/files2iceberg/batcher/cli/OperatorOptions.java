package io.files2iceberg.batcher.cli;

import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options {@code replay}, {@code backfill} and {@code reconcile} share: the profiles, the
 * partition range, {@code --json} and {@code --home}.
 */
public final class OperatorOptions {
  @Mixin ConfigOption.Required config;

  @Mixin HomeOption home;

  @Option(names = "--from", paramLabel = "VALUE",
      description = "First partition value (inclusive): a date in the profile's date-format (or yyyy-MM-dd) for "
          + "date partitions, else compared as a string.")
  public String from;

  @Option(names = "--to", paramLabel = "VALUE", description = "Last partition value (inclusive), as --from.")
  public String to;

  @Option(names = "--json", description = "Print JSON lines for scripts: one object a line, its kind in"
      + " \"kind\", the summary last (with --run, the run's run_finished event after it).")
  public boolean json;

  /** The profiles: the table's glob and partitioning; the ledger is the deployment file's beside them. */
  public Path config() {
    return config.path();
  }

  public HomeOption home() {
    return home;
  }
}
