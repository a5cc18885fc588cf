package io.files2iceberg.batcher.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.EventLines;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.metrics.PrometheusText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code batch run-once} and {@code batch serve} without a batch to run: no Spark here. */
class BatchCommandTest {
  private static final Path SPARK_JOB_TARGET = Path.of("..", "spark-job", "target").toAbsolutePath().normalize();

  @TempDir Path home;
  @TempDir Path config;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private CommandLine commandLine;

  @BeforeEach
  void jobBuild() {
    System.setProperty(LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY, SPARK_JOB_TARGET.toString());
  }

  @AfterEach
  void forgetJobBuild() {
    System.clearProperty(LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY);
  }

  private int run(String... args) {
    commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  private void profile(String name, String body) throws Exception {
    Files.writeString(config.resolve(name + ".conf"), body);
  }

  private void validProfile() throws Exception {
    profile("clicks", """
        extract { path = "file://%s/landing/clicks/*/*.csv", format = csv }
        load.iceberg.table = "local.test.clicks"
        """.formatted(home));
  }

  @Test
  void runOnceWithNothingReadyExitsZero() throws Exception {
    validProfile();

    int exit = run("batch", "run-once", "--config", config.toString(), "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("run: 0 committed (0 rows), 0 failed, 0 recovered in ");
    assertThat(home.resolve("ledger.db")).isRegularFile();
  }

  @Test
  void runOnceWithJsonAndNothingReadyPrintsOnlyTheRunFinishedEventWithNoBatchesAndExitsZero() throws Exception {
    validProfile();

    int exit = run("batch", "run-once", "--json", "--config", config.toString(), "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    List<JsonNode> events = EventLines.parse(out.toString());
    assertThat(EventLines.kinds(events)).containsExactly("run_finished");
    JsonNode run = events.get(0);
    assertThat(run.get("batches").isInt()).as(run.toString()).isTrue();
    assertThat(run.get("batches").asInt()).isZero();
    assertThat(run.get("committed").asInt()).isZero();
    assertThat(run.get("failed").asInt()).isZero();
    assertThat(run.get("recovered").asInt()).isZero();
    assertThat(run.get("inFlight").asInt()).isZero();
    assertThat(run.get("rowsWritten").asLong()).isZero();
    assertThat(run.get("errors").isArray() && run.get("errors").isEmpty()).isTrue();
    assertThat(run.get("elapsedMillis").canConvertToLong()).isTrue();
  }

  @Test
  void runOnceWithJsonKeepsStdoutEmptyOnConfigurationAndUsageErrors() throws Exception {
    validProfile();

    int unknownTable = run("batch", "run-once", "--json", "--config", config.toString(), "--home", home.toString(),
        "--table", "local.test.nope");

    assertThat(unknownTable).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).isEqualTo("error: --table local.test.nope: no profile in " + config + " loads it\n");
  }

  @Test
  void configurationErrorsExitTwoListingEveryOne() throws Exception {
    profile("clicks", """
        extract { path = "file:///data/clicks/*/*.csv", max-batch-sise = 3 }
        load.iceberg.table = "clicks"
        """);

    int exit = run("batch", "run-once", "--config", config.toString(), "--home", home.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).startsWith("error: 2 problem(s) in " + config + ":")
        .contains("clicks.conf: extract.max-batch-sise: unknown key")
        .contains("clicks.conf: load.iceberg.table");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void missingJobBuildIsAConfigurationError() throws Exception {
    validProfile();
    System.setProperty(LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY, home.resolve("no-build").toString());

    int exit = run("batch", "serve", "--config", config.toString(), "--home", home.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).startsWith("error: 1 problem(s) in " + config + ":")
        .contains("clicks.conf: The Spark job is not built: " + home.resolve("no-build").resolve("classpath.txt")
            + " is missing; build the job first: mvn -pl spark-job -am package -DskipTests");
  }

  @Test
  void badDurationIsAUsageError() throws Exception {
    validProfile();

    int exit = run("batch", "run-once", "--config", config.toString(), "--job-timeout", "90");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--job-timeout", "expected a duration with a unit, such as 90s, 30m or 2h");
  }

  @Test
  void serveRunsEveryIntervalAndStopsAfterTheCurrentRun() throws Exception {
    validProfile();
    commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    BatchCommand.Serve serve = commandLine.getSubcommands().get("batch").getSubcommands().get("serve").getCommand();
    serve.handleSignals = false;

    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> commandLine.execute(
        "batch", "serve", "--config", config.toString(), "--home", home.toString(), "--interval", "100ms",
        "--metrics-port", "0"));
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (out.toString().lines().filter(line -> line.startsWith("run: ")).count() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    // /prometheus while serving: the table's gauges, read from the ledger (nothing in it yet).
    String serving = out.toString().lines().findFirst().orElseThrow();
    URI metrics = URI.create(serving.substring(serving.indexOf("metrics at ") + "metrics at ".length(),
        serving.indexOf(", health at ")));
    PrometheusText scraped = PrometheusText.scrape(metrics);
    PrometheusText elsewhere = PrometheusText.scrape(metrics.resolve("/metrics"));
    HttpResponse<String> health = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(metrics.resolve("/health")).GET().build(), HttpResponse.BodyHandlers.ofString());
    serve.requestStop();

    assertThat(exit.get(30, TimeUnit.SECONDS)).as(err.toString()).isZero();
    // Without --metrics-address (and without Cloud Run's PORT) only this machine reaches it.
    assertThat(serving).matches("serving 1 table\\(s\\), a run every PT0\\.1S, metrics at"
        + " http://127\\.0\\.0\\.1:\\d+/prometheus, health at http://127\\.0\\.0\\.1:\\d+/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("{\"status\":\"UP\"}");
    assertThat(scraped.status()).isEqualTo(200);
    assertThat(scraped.value("files2iceberg_batcher_files", "state", "recorded", "table", "local.test.clicks"))
        .isZero();
    assertThat(scraped.value("files2iceberg_batcher_oldest_ready_partition_age_seconds", "table",
        "local.test.clicks")).isZero();
    assertThat(elsewhere.status()).isEqualTo(404);
    assertThat(out.toString()).endsWith("stopped\n");
    assertThat(out.toString().lines().filter(line -> line.startsWith("run: ")).count()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void theMetricsAddressIsEveryInterfaceOnlyWhereCloudRunSetsPort() {
    assertThat(BatchCommand.Serve.metricsAddress(null, Map.of())).isEqualTo("127.0.0.1");
    assertThat(BatchCommand.Serve.metricsAddress(null, Map.of("PORT", "8080"))).isEqualTo("0.0.0.0");
    assertThat(BatchCommand.Serve.metricsAddress("10.0.0.7", Map.of("PORT", "8080"))).isEqualTo("10.0.0.7");
  }

  @Test
  void aMetricsPortInUseIsAConfigurationErrorNamingTheOptionAndThePort() throws Exception {
    validProfile();
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int exit = run("batch", "serve", "--config", config.toString(), "--home", home.toString(),
          "--metrics-address", "127.0.0.1", "--metrics-port", String.valueOf(taken.getLocalPort()));

      assertThat(exit).isEqualTo(2);
      assertThat(err.toString()).startsWith("error: --metrics-port: Cannot serve /prometheus on 127.0.0.1:"
          + taken.getLocalPort() + ": ");
      assertThat(out.toString()).isEmpty();
    }
  }

  @Test
  void everyCommandHasHelp() {
    for (String[] args : new String[][] {{"batch", "--help"}, {"batch", "run-once", "--help"},
        {"batch", "serve", "--help"}, {"status", "--help"}}) {
      out.getBuffer().setLength(0);
      assertThat(run(args)).isZero();
      assertThat(out.toString()).contains("Usage: files2iceberg " + String.join(" ", args).replace(" --help", ""));
    }
    assertThat(out.toString()).contains("--home=DIR", "--json", "--table=TABLE");
  }
}
