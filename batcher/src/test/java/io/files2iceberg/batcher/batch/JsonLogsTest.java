package io.files2iceberg.batcher.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batcher's logs in a process of its own, as on Cloud Run and on a terminal: JSON lines for
 * Cloud Logging with the table as a label, or the plain text lines. A table of mode full with no
 * files runs without Spark.
 */
class JsonLogsTest {
  private static final String TABLE = "local.test.snapshot";

  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  @Test
  void onCloudRunTheLogIsJsonLinesWithTheTableAsALabelAndTheOutputStaysText() throws Exception {
    Run run = runOnce(Map.of("CLOUD_RUN_JOB", "f2i-batcher", "GOOGLE_CLOUD_PROJECT", "p-1"));

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).startsWith("run: 0 committed (0 rows), 0 failed, 0 recovered in ");
    List<JsonNode> lines = new ArrayList<>();
    ObjectMapper mapper = new ObjectMapper();
    for (String line : run.err().split("\n")) {
      assertThat(line).as("every line of stderr is a JSON object:\n%s", run.err()).startsWith("{").endsWith("}");
      lines.add(mapper.readTree(line));
    }
    JsonNode nothing = lines.stream()
        .filter(line -> line.get("message").asText().startsWith("Table " + TABLE + ": no files match"))
        .findFirst().orElseThrow(() -> new AssertionError("no line of the table in " + run.err()));
    assertThat(nothing.get("severity").asText()).isEqualTo("INFO");
    assertThat(nothing.get("logger").asText()).isEqualTo("io.files2iceberg.batcher.engine.TableTurn");
    assertThat(nothing.get("time").asText()).endsWith("Z");
    assertThat(nothing.at("/logging.googleapis.com~1labels/table").asText()).isEqualTo(TABLE);
    // No request, no trace.
    assertThat(nothing.has("logging.googleapis.com/trace")).isFalse();
  }

  @Test
  void onATerminalTheLogIsPlainTextAndTheSettingSwitchesItToJson() throws Exception {
    Run text = runOnce(Map.of());
    Run json = runOnce(Map.of("FILES2ICEBERG_LOG_FORMAT", "JSON"));

    assertThat(text.err()).contains("] INFO io.files2iceberg.batcher.engine.TableTurn - Table " + TABLE
        + ": no files match");
    assertThat(json.err().lines()).isNotEmpty().allSatisfy(line -> assertThat(line).startsWith("{\"severity\":"));
  }

  private Run runOnce(Map<String, String> env) throws Exception {
    Path config = Files.createDirectories(dir.resolve("profiles"));
    Files.writeString(config.resolve("snapshot.conf"), """
        extract { path = "file://%s/landing/snapshot/*/*.csv", format = csv, batch-file.ingestion-type = full }
        load.iceberg.table = "%s"
        """.formatted(dir, TABLE));
    List<String> command = List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "="
            + LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")),
        "-cp", System.getProperty("java.class.path"),
        "io.files2iceberg.batcher.cli.Files2Iceberg",
        "batch", "run-once", "--config", config.toString(), "--home", dir.resolve("home").toString(), "--table", TABLE);
    Path out = Files.createTempFile(dir, "run", ".out");
    Path err = Files.createTempFile(dir, "run", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().remove("K_SERVICE");
    builder.environment().remove("CLOUD_RUN_JOB");
    builder.environment().remove("FILES2ICEBERG_LOG_FORMAT");
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("run-once did not end in 2 minutes:\n" + Files.readString(err));
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }
}
