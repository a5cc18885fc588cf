package io.files2iceberg.batcher.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.core.profile.Home;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Reads tables back as a user does: {@code sql --json} in a Spark child JVM. */
final class SqlQueries {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SqlQueries() {}

  /**
   * Runs the statements against the home's embedded catalog and returns every row of every
   * statement, in order; statements that return one row each give one answer per statement.
   */
  static List<JsonNode> sql(Home home, String... statements) throws Exception {
    List<String> args = new ArrayList<>(List.of("--home", home.root().toString(), "--json", "--"));
    args.addAll(List.of(statements));
    SparkMain.Result result = SparkMain.locate(System.getenv(), home.root())
        .run(SparkMain.SQL, args, Duration.ofMinutes(3));
    if (!result.isSuccess()) {
      throw new AssertionError("sql failed with " + result.exitCode() + ": " + result.stderr());
    }
    List<JsonNode> rows = new ArrayList<>();
    for (String line : result.stdout().split("\\R")) {
      if (!line.isBlank()) {
        rows.add(JSON.readTree(line));
      }
    }
    return rows;
  }
}
