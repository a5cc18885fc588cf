package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.PartitionState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of a scheduler-driven run (docs/recipes.md, "Any orchestrator"), driven exactly as
 * the recipes call it: {@code files2iceberg batch run-once --config DIR --table T --json [--wait]}
 * in a process of its own, its exit code and its last stdout line read as a scheduler's task reads
 * them.
 */
class RunOnceContractTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void withWaitABatchThatFailsExitsOneAndTheSummaryAndStderrSayWhich() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("badcast", "job.mode = per-batch\n");
      landing.record(landing.write("badcast", "p1", "part-0.csv", "1,10", "2,not-a-number"));
      landing.markReady("badcast", "p1");

      Run run = runOnce(landing, "--table", "local.test.badcast", "--json", "--wait");

      assertThat(run.code()).as(run.toString()).isEqualTo(1);
      JsonNode summary = run.summary();
      assertThat(summary.path("failed").asInt()).isEqualTo(1);
      assertThat(summary.path("committed").asInt()).isZero();
      assertThat(run.events()).contains("failed");
      assertThat(run.err()).contains("local.test.badcast").contains("not-a-number");
      assertThat(landing.ledger.partition("local.test.badcast", "p1").orElseThrow().state())
          .isEqualTo(PartitionState.FAILED);
    }
  }

  /**
   * Without {@code --wait} the run returns once the job is launched and the job settles its batch
   * itself; with it, the run returns once the batch is settled; an idle run exits 0 saying so.
   */
  @Test
  void withoutWaitTheJobSettlesTheBatchItselfWithWaitTheRunDoesAndAnIdleRunSaysNothingToDo() throws Exception {
    try (Landing landing = new Landing(dir)) {
      // The local default, job.mode = warm: the run hands the batch to the home's warm driver,
      // which outlives the run that started it.
      landing.profile("contract", "");
      landing.land("contract", "p1", 2, 1);

      Run launched = runOnce(landing, "--table", "local.test.contract", "--json");

      assertThat(launched.code()).as(launched.toString()).isZero();
      assertThat(launched.summary().path("batches").asInt()).isEqualTo(1);
      assertThat(launched.summary().path("inFlight").asInt()).isEqualTo(1);
      assertThat(launched.summary().path("committed").asInt()).isZero();
      assertThat(launched.events()).contains("claimed", "launched").doesNotContain("committed", "failed");
      String batchId = landing.ledger.tableStatus("local.test.contract").inFlight().get(0).batchId();
      // Its lease is not renewed: once it expires, a run that does not wait either finds the job
      // still running, takes the batch over and leaves it running: no second job.
      landing.clock.advance(Duration.ofHours(1));
      List<BatchEvent> recovery = new CopyOnWriteArrayList<>();
      // The recovering batcher's launcher for the profile's mode; closing the landing stops the driver.
      Launcher launcher = landing.warmLauncher(Duration.ofMinutes(1));
      RunSummary recovered = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .options(new RunOptions(1, Duration.ofMinutes(5), false))
          .events(recovery::add)
          .build()
          .runOnce();
      assertThat(recovered.inFlight()).extracting(RunSummary.InFlight::batchId).as(landing::jobLogs)
          .containsExactly(batchId);
      assertThat(recovery).filteredOn(BatchEvent.BatchReattached.class::isInstance).hasSize(1);
      assertThat(recovery).noneMatch(BatchEvent.BatchLaunched.class::isInstance);
      // The job outlives the run that launched it and commits the batch and its checkpoint.
      Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
      while (landing.ledger.batch(batchId).orElseThrow().state() != BatchState.COMMITTED
          && Instant.now().isBefore(deadline)) {
        Thread.sleep(200);
      }
      assertThat(landing.ledger.batch(batchId).orElseThrow().state()).as(landing::jobLogs)
          .isEqualTo(BatchState.COMMITTED);
      assertThat(landing.ledger.partition("local.test.contract", "p1").orElseThrow().state())
          .isEqualTo(PartitionState.INGESTED);
      assertThat(IcebergRows.rows(landing.home, "local.test.contract")).hasSize(2);

      landing.land("contract", "p2", 1, 3);
      Run waited = runOnce(landing, "--table", "local.test.contract", "--json", "--wait");

      assertThat(waited.code()).as(waited.toString()).isZero();
      JsonNode summary = waited.summary();
      assertThat(summary.path("event").asText()).isEqualTo("run_finished");
      assertThat(summary.path("batches").asInt()).isEqualTo(1);
      assertThat(summary.path("committed").asInt()).isEqualTo(1);
      assertThat(summary.path("failed").asInt()).isZero();
      assertThat(summary.path("inFlight").asInt()).isZero();
      assertThat(summary.path("rowsWritten").asLong()).isEqualTo(1);
      assertThat(waited.events()).contains("claimed", "launched", "committed");
      assertThat(landing.ledger.partition("local.test.contract", "p2").orElseThrow().state())
          .as("settled when the run returned").isEqualTo(PartitionState.INGESTED);
      assertThat(IcebergRows.rows(landing.home, "local.test.contract")).hasSize(3);

      Run idle = runOnce(landing, "--table", "local.test.contract", "--json", "--wait");

      assertThat(idle.code()).as(idle.toString()).isZero();
      assertThat(idle.events()).containsExactly("run_finished");
      assertThat(idle.summary().path("batches").asInt()).isZero();
    }
  }

  private Run runOnce(Landing landing, String... options) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "-Xmx256m", "-XX:TieredStopAtLevel=1",
        "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "=" + Landing.SPARK_JOB_TARGET.toAbsolutePath().normalize(),
        "io.files2iceberg.batcher.cli.Files2Iceberg", "batch", "run-once", "--config", landing.config.toString(),
        "--home", landing.home.root().toString()));
    command.addAll(List.of(options));
    Path out = Files.createTempFile(dir, "run", ".out");
    Path err = Files.createTempFile(dir, "run", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().remove("FILES2ICEBERG_LOG_FORMAT");
    Process process = builder.start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("run-once did not end in 3 minutes:\n" + Files.readString(err));
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** What the run printed: every stdout line one JSON object, the summary last. */
  private record Run(int code, String out, String err) {
    List<JsonNode> lines() {
      List<JsonNode> lines = new ArrayList<>();
      for (String line : out.strip().split("\n")) {
        try {
          lines.add(JSON.readTree(line));
        } catch (Exception e) {
          throw new AssertionError("stdout holds a line that is not JSON: " + line, e);
        }
      }
      return lines;
    }

    List<String> events() {
      return lines().stream().map(line -> line.path("event").asText()).toList();
    }

    JsonNode summary() {
      List<JsonNode> lines = lines();
      return lines.get(lines.size() - 1);
    }

    @Override
    public String toString() {
      return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }
}
