package io.files2iceberg.batcher.cli;

import picocli.CommandLine.Option;

/**
 * {@code --json}, for the commands that report events as they happen ({@code batch run-once},
 * {@code local}, {@code demo}): the events' JSON form is {@code output.EventJson}, written as JSON
 * lines by {@code output.JsonLines}.
 */
public final class JsonEventsOption {
  @Option(
      names = "--json",
      description = "Print JSON lines on stdout instead of lines for people: one object per event, its kind in"
          + " \"event\" (claimed, launched, committed, failed, ..., the summary last), the rest named as the other"
          + " commands' --json name them (table, batchId, partitions, files, snapshotId as a string, rowsInserted"
          + " ...). Nothing else goes to stdout; errors stay on stderr.")
  boolean json;

  /** Whether {@code --json} was given. */
  public boolean json() {
    return json;
  }
}
