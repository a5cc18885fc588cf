package io.files2iceberg.batcher.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads Iceberg tables back through the job's own SQL entry point ({@code
 * io.files2iceberg.sparkjob.sql.SqlMain --json}) in a child JVM started as the local launcher starts
 * the job: one JVM for all the queries of a test.
 */
final class TableRows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TableRows() {}

  /** Each query's rows as JSON objects, in query order. Queries run in one session. */
  static List<List<JsonNode>> query(Path home, Path config, String... queries) throws IOException, InterruptedException {
    // The job's own build and JVM start (class-data sharing included), as sql runs it.
    LocalSparkLauncher launcher = new LocalSparkLauncher(Landing.SPARK_JOB_TARGET, home.resolve("logs"),
        List.of("-Xmx768m", "-XX:TieredStopAtLevel=1", "-Dspark.master=local[1]", "-Dspark.ui.enabled=false"));
    List<String> command = new ArrayList<>(launcher.commandFor("io.files2iceberg.sparkjob.sql.SqlMain"));
    command.addAll(List.of("--home", home.toString(), "--config", config.toString(), "--json", "--max-rows", "0"));
    // A marker row between queries splits the output.
    for (int i = 0; i < queries.length; i++) {
      command.add(queries[i]);
      command.add("SELECT 'end-of-query' AS marker");
    }
    Path out = Files.createTempFile("rows", ".jsonl");
    Path err = Files.createTempFile("rows", ".log");
    try {
      Process process = launcher.startJvm(command,
          builder -> builder.redirectOutput(out.toFile()).redirectError(err.toFile()));
      if (!process.waitFor(3, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("SqlMain did not end in 3 minutes");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException("SqlMain exited " + process.exitValue() + ": "
            + Files.readString(err, StandardCharsets.UTF_8));
      }
      List<List<JsonNode>> results = new ArrayList<>();
      List<JsonNode> current = new ArrayList<>();
      for (String line : Files.readAllLines(out)) {
        if (line.isBlank() || !line.startsWith("{")) {
          continue;
        }
        JsonNode row = JSON.readTree(line);
        if ("end-of-query".equals(row.path("marker").asText(null))) {
          results.add(current);
          current = new ArrayList<>();
        } else {
          current.add(row);
        }
      }
      return results;
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
