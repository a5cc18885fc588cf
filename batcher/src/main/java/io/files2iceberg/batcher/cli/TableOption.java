package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --table} of the commands that act on one table or on every table of the profiles; a command's
 * own wording is its entry {@code files2iceberg.<command>.table} in {@code OptionText.properties}.
 */
public final class TableOption {
  @Option(names = "--table", paramLabel = "TABLE", descriptionKey = "table",
      description = "Only this table (catalog.namespace.table).")
  String table;

  /** The table, or null for every table. */
  public String table() {
    return table;
  }

  /** {@code --table}, required: the commands that act on one table ({@code replay}, {@code backfill}). */
  public static final class Required {
    @Option(names = "--table", required = true, paramLabel = "TABLE", description = "The table (catalog.namespace.table).")
    String table;

    public String table() {
      return table;
    }
  }
}
