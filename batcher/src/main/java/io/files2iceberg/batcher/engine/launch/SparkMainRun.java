package io.files2iceberg.batcher.engine.launch;

import java.util.List;
import java.util.Objects;

/**
 * A run of another main class of the job's build on a table, beside the batches: table maintenance
 * ({@code io.files2iceberg.sparkjob.maintain.MaintainMain}). Launched with {@link
 * Launcher#launchMain} where the table's jobs run.
 *
 * @param table the table it works on, for logs and labels
 * @param runId unique per run, such as {@code maintain-20261130T120000-1a2b3c4d}: names its log
 *     and its remote job
 * @param args its command line, as it is
 */
public record SparkMainRun(String table, String runId, String mainClass, List<String> args) {
  public SparkMainRun {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(mainClass, "mainClass");
    args = List.copyOf(args);
  }
}
