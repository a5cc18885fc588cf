package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --json}, for the commands that report events as they happen ({@code batch run-once},
 * {@code local}, {@code demo}): the events' JSON form is {@code output.EventJson}.
 */
public final class JsonEventsOption {
  @Option(
      names = "--json",
      description = "Print one JSON object per line on stdout for each event instead of lines for people: its kind"
          + " in \"event\" (claimed, launched, committed, failed, ..., then a summary), the rest named as the"
          + " other commands' --json name them (table, batchId, partitions, files, snapshotId, rowsInserted ...)."
          + " Nothing else goes to stdout; errors stay on stderr.")
  boolean json;

  /** Whether {@code --json} was given. */
  public boolean json() {
    return json;
  }
}
