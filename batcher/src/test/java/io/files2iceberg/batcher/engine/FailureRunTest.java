package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.status.StatusFormat;
import io.files2iceberg.batcher.status.StatusReport;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.JobExit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Batches that do not commit, with real jobs: what becomes of their partitions. */
class FailureRunTest {
  private static final String BROKEN = "broken.test.broken";
  private static final String REJECTED = "local.test.rejected";

  @TempDir Path dir;

  @Test
  void failedJobReleasesPartitionsWithAnAttemptAndRejectedInputFailsThemAtOnce() throws Exception {
    try (Landing landing = new Landing(dir)) {
      // A catalog whose SQLite file cannot be created (its folder would be under a plain file): the
      // job fails, and says why (exit 1).
      Path missing = java.nio.file.Files.writeString(dir.resolve("a-file"), "not a folder").resolve("catalog-home");
      landing.profile("broken", """
          load.iceberg.table = "broken.test.broken"
          catalog { type = jdbc, uri = "jdbc:sqlite:%s/catalog.db", warehouse = "%s/warehouse" }
          job.max-attempts = 2
          """.formatted(missing, missing));
      // One deployment, one job.max-attempts: rejected input fails at once whatever it is.
      landing.profile("rejected", "job.max-attempts = 2\n");
      landing.land("broken", "p1", 1, 1);
      // amount is cast to INT and on-bad-record is fail: the job rejects the batch (exit 4).
      String badFile = landing.record(landing.write("rejected", "p1", "part-0.csv", "1,10", "2,not-a-number"));
      landing.markReady("rejected", "p1");

      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      LocalSparkLauncher launcher = landing.launcher();
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .options(new RunOptions(2, Duration.ofMinutes(5)))
          .events(events::add)
          .build();

      RunSummary first = runner.runOnce();

      assertThat(first.committed()).as(landing::jobLogs).isEmpty();
      BatchFailed broken = failure(first, BROKEN);
      assertThat(broken.exit()).contains(JobExit.FAILED);
      assertThat(broken.after()).isEqualTo(AfterFailure.RETRIED_LATER);
      assertThat(broken.error()).startsWith("files2iceberg: table " + BROKEN + " batch " + broken.batchId() + " failed:")
          .contains("(log: " + landing.home.metadata("broken").resolve("logs")
              .resolve(broken.batchId() + "-attempt1.log") + ")");
      // The job recorded its classified error beside its manifest; that is what the batcher reports.
      AttemptResult brokenResult = result(landing, "broken", broken.batchId());
      assertThat(brokenResult.exit()).isEqualTo(JobExit.FAILED);
      assertThat(brokenResult.exitCode()).isEqualTo(1);
      assertThat(brokenResult.report()).isEmpty();
      assertThat(brokenResult.error().orElseThrow())
          .startsWith("files2iceberg: table " + BROKEN + " batch " + broken.batchId() + " failed:");
      assertThat(broken.error()).isEqualTo(brokenResult.error().get() + " (log: "
          + landing.home.metadata("broken").resolve("logs").resolve(broken.batchId() + "-attempt1.log") + ")");
      assertThat(brokenResult.endedAt()).isAfterOrEqualTo(brokenResult.startedAt());
      PartitionRecord retried = landing.ledger.partition(BROKEN, "p1").orElseThrow();
      assertThat(retried.state()).isEqualTo(PartitionState.READY);
      assertThat(retried.attempts()).isEqualTo(1);
      assertThat(retried.lastError()).contains(broken.error());
      assertThat(landing.ledger.batch(broken.batchId()).orElseThrow().state()).isEqualTo(BatchState.FAILED);
      assertThat(landing.ledger.tableStatus(BROKEN).filesByState()).containsEntry(FileState.RECORDED, 1L);

      BatchFailed rejected = failure(first, REJECTED);
      assertThat(rejected.exit()).contains(JobExit.REJECTED);
      assertThat(rejected.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      assertThat(rejected.error()).contains("rejected:", "not-a-number");
      AttemptResult rejectedResult = result(landing, "rejected", rejected.batchId());
      assertThat(rejectedResult.exit()).isEqualTo(JobExit.REJECTED);
      assertThat(rejectedResult.exitCode()).isEqualTo(4);
      assertThat(rejectedResult.error().orElseThrow()).contains("rejected:", "not-a-number");
      assertThat(rejected.error()).startsWith(rejectedResult.error().get() + " (log: ");
      PartitionRecord failedAtOnce = landing.ledger.partition(REJECTED, "p1").orElseThrow();
      assertThat(failedAtOnce.state()).isEqualTo(PartitionState.FAILED);
      assertThat(failedAtOnce.attempts()).isEqualTo(1);
      assertThat(failedAtOnce.lastError()).contains(rejected.error());
      assertThat(landing.ledger.file(badFile).orElseThrow().state()).isEqualTo(FileState.RECORDED);

      // The next run tries the released partition again; its second failure is its last. The
      // rejected partition waits for an operator.
      landing.clock.advance(Duration.ofMinutes(1)); // the ledger's clock stands still otherwise
      RunSummary second = runner.runOnce();

      assertThat(second.failed()).extracting(BatchFailed::table).containsExactly(BROKEN);
      BatchFailed last = failure(second, BROKEN);
      assertThat(last.batchId()).isNotEqualTo(broken.batchId());
      assertThat(last.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      PartitionRecord exhausted = landing.ledger.partition(BROKEN, "p1").orElseThrow();
      assertThat(exhausted.state()).isEqualTo(PartitionState.FAILED);
      assertThat(exhausted.attempts()).isEqualTo(2);
      assertThat(exhausted.lastError()).contains(last.error());

      RunSummary third = runner.runOnce();
      assertThat(third.failed()).isEmpty();
      assertThat(third.committed()).isEmpty();

      // status shows both failures with their errors.
      StatusReport report = StatusReport.read(landing.ledger, Optional.of(landing.registry()), Optional.empty(),
          Clock.systemUTC());
      String human = StatusFormat.human(report);
      assertThat(human).contains("FAILED PARTITIONS",
          "  " + BROKEN + " p1: failed after 2 attempt(s): " + last.error(),
          "  " + REJECTED + " p1: failed after 1 attempt(s): " + rejected.error(),
          "FAILED BATCHES", broken.batchId(), last.batchId());
      assertThat(human.lines().filter(line -> line.startsWith(BROKEN + " ")).findFirst().orElseThrow())
          .contains("failed 1", "recorded 1");
      JsonNode brokenJson = JsonLinesOutput.of("table_status", JsonLinesOutput.parse(StatusFormat.json(report))).get(0);
      assertThat(brokenJson.get("table").asText()).isEqualTo(BROKEN);
      assertThat(brokenJson.at("/partitions/failed").asLong()).isEqualTo(1);
      assertThat(brokenJson.at("/failedPartitions/0/partition").asText()).isEqualTo("p1");
      assertThat(brokenJson.at("/failedPartitions/0/attempts").asInt()).isEqualTo(2);
      assertThat(brokenJson.at("/failedPartitions/0/error").asText()).isEqualTo(last.error());
      assertThat(brokenJson.get("failedBatches")).hasSize(2);
      assertThat(brokenJson.at("/failedBatches/0/batchId").asText()).isEqualTo(last.batchId());
    }
  }

  @Test
  void jobOverItsTimeoutIsCancelledAndRelaunchedUntilItsAttemptsAreSpent() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("slow", "job.max-attempts = 2\n");
      landing.land("slow", "p1", 1, 1);
      LocalSparkLauncher launcher = landing.launcher();
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .options(new RunOptions(1, Duration.ofSeconds(2)))
          .build();

      // Cancelled: whether it committed is unknown, so the batch stays, its lease expired, and
      // the next run's recovery launches it again.
      RunSummary first = runner.runOnce();
      BatchFailed timedOut = failure(first, "local.test.slow");
      assertThat(timedOut.exit()).contains(JobExit.FAILED);
      assertThat(timedOut.after()).isEqualTo(AfterFailure.LEFT_FOR_RECOVERY);
      assertThat(timedOut.error()).contains("ran longer than the job timeout PT2S and was cancelled");
      assertThat(landing.ledger.batch(timedOut.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);
      landing.clock.advance(Duration.ofMillis(1)); // the lease ends "now"; the ledger's clock stands still
      assertThat(landing.ledger.findExpiredLeases()).extracting(b -> b.batchId()).containsExactly(timedOut.batchId());
      assertThat(landing.ledger.partition("local.test.slow", "p1").orElseThrow().state())
          .isEqualTo(PartitionState.CLAIMED);

      RunSummary second = runner.runOnce();
      assertThat(second.recovered()).extracting(r -> r.batchId()).containsExactly(timedOut.batchId());
      BatchFailed gaveUp = failure(second, "local.test.slow");
      assertThat(gaveUp.batchId()).isEqualTo(timedOut.batchId());
      assertThat(gaveUp.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      assertThat(gaveUp.error()).startsWith("gave up after 2 attempt(s); the table may hold the batch:");
      assertThat(landing.ledger.partition("local.test.slow", "p1").orElseThrow().state())
          .isEqualTo(PartitionState.FAILED);
      assertThat(Files.list(landing.home.metadata("slow").resolve("logs")).map(p -> p.getFileName().toString())
              .filter(name -> name.endsWith(".log")))
          .containsExactlyInAnyOrder(timedOut.batchId() + "-attempt1.log", timedOut.batchId() + "-attempt2.log");
      // Both were stopped before they loaded anything. A job stopped once its Spark context is up
      // writes a result as it stops (on a fast machine, within the 2 s): never one that says it loaded.
      Path firstResult = landing.home.metadata("slow").resolve("batches")
          .resolve(timedOut.batchId() + "-attempt1.result.json");
      if (Files.exists(firstResult)) {
        assertThat(AttemptResult.fromJson(Files.readString(firstResult), firstResult.toString()).exit())
            .isNotEqualTo(JobExit.LOADED);
      }
    }
  }

  /** The result the job wrote of the batch's first attempt, beside its manifest. */
  private static AttemptResult result(Landing landing, String profile, String batchId) throws Exception {
    Path file = landing.home.metadata(profile).resolve("batches").resolve(batchId + "-attempt1.result.json");
    assertThat(file).as(landing::jobLogs).exists();
    return AttemptResult.fromJson(Files.readString(file), file.toString());
  }

  private static BatchFailed failure(RunSummary summary, String table) {
    return summary.failed().stream().filter(f -> f.table().equals(table)).findFirst()
        .orElseThrow(() -> new AssertionError("no failure of " + table + " in " + summary));
  }
}
