package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.local.LandingNotifier.Outcome;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.status.StatusCommand;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator's repair on the embedded default, with real files and real Spark: a corrupt file
 * fails its batch (the job rejects it, so its partition is FAILED at once and the file
 * quarantined), {@code status} and {@code inspect} show why, the user rewrites the file (a new
 * generation, which the notifier records), {@code retry} re-queues the partition, and the next
 * batch run loads every row exactly once.
 */
class RetryEndToEndTest {
  private static final String TABLE = "local.e2e.repair";
  private static final String PARTITION = "2026-11-28";

  @TempDir static Path root;
  static EmbeddedDeployment deployment;

  @BeforeAll
  static void start() throws Exception {
    deployment = new EmbeddedDeployment(root, Map.of("repair", """
        extract {
          path = "file://LANDING/repair/dt=*/*.json"
          format = json
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = "yyyy-MM-dd"
          }
        }
        load {
          iceberg.table = local.e2e.repair
          primary-key = [id]
          partition-by = [dt]
        }
        job.spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
        """));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  /** Runs {@code bin/files2iceberg <args> --home <the deployment's home>}: the exit code and what it printed. */
  private record Run(int exit, String out, String err) {}

  private static Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] withHome = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
        java.util.stream.Stream.of("--home", deployment.home.root().toString())).toArray(String[]::new);
    int exit = commandLine.execute(withHome);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void corruptFileFailsItsPartitionAndAfterTheFixRetryLoadsEveryRowOnce() throws Exception {
    deployment.write("repair/dt=2026-11-28/part-0.json", "{\"id\":\"r1\",\"amount\":1}\n{\"id\":\"r2\",\"amount\":2}\n");
    Path corrupt = deployment.write("repair/dt=2026-11-28/part-1.json", "\u0000\u0001 this is not JSON\n");
    deployment.write("repair/dt=2026-11-28/_SUCCESS", "");
    assertThat(deployment.notifyListener().count(Outcome.PARTITION_READY)).isEqualTo(1);

    // 1. The batch fails: the job rejects the unreadable file, the partition is FAILED at once.
    List<BatchEvent> failedRun = EmbeddedDeployment.events();
    deployment.runner("repair", failedRun).runOnce();
    BatchFailed failed = failedRun.stream().filter(BatchFailed.class::isInstance).map(BatchFailed.class::cast)
        .findFirst().orElseThrow(() -> new AssertionError("no batch failed: " + failedRun));
    assertThat(deployment.ledger.partition(TABLE, PARTITION).orElseThrow().state()).isEqualTo(PartitionState.FAILED);
    BatchRecord failedBatch = deployment.ledger.batch(failed.batchId()).orElseThrow();
    assertThat(failedBatch.state()).isEqualTo(BatchState.FAILED);
    assertThat(failedBatch.error().orElseThrow()).contains("rejected").contains(corrupt.toString());

    // 2. What the operator sees: status names the failure, inspect the file and the reason.
    Run status = cli("status");
    assertThat(status.exit()).as(status.err()).isEqualTo(ExitCode.ATTENTION);
    assertThat(status.err()).contains("attention: 1 partition(s) FAILED (" + TABLE + " " + PARTITION + ")");
    assertThat(status.out()).contains("FAILED PARTITIONS").contains(TABLE + " " + PARTITION + ": failed after 1");
    Run inspect = cli("inspect", "--table", TABLE, "--partition", PARTITION);
    assertThat(inspect.exit()).as(inspect.err()).isZero();
    assertThat(inspect.out()).startsWith("PARTITION " + TABLE + " " + PARTITION + ": FAILED, attempts 1")
        .contains("file://" + corrupt + " generation ").contains(": QUARANTINED")
        .contains("quarantined: no line is a valid json record")
        .contains(failed.batchId() + " FAILED");
    // A dry run shows the same and changes nothing.
    Run dryRun = cli("retry", "--table", TABLE, "--dry-run");
    assertThat(dryRun.out()).contains("1 partition(s) to re-queue").endsWith("Dry run: nothing re-queued.\n");
    assertThat(deployment.ledger.partition(TABLE, PARTITION).orElseThrow().state()).isEqualTo(PartitionState.FAILED);

    // 3. The fix, as a user makes it: the file is written again with its real content, a new
    // generation of the same name, which the notifier records; the corrupt one stays quarantined.
    deployment.write("repair/dt=2026-11-28/part-1.json", "{\"id\":\"r3\",\"amount\":3}\n{\"id\":\"r4\",\"amount\":4}\n");
    assertThat(deployment.notifyListener().count(Outcome.RECORDED)).isEqualTo(1);
    Run generations = cli("inspect", "--file", corrupt.toString(), "--json");
    assertThat(generations.exit()).as(generations.err()).isZero();
    List<JsonNode> files = JsonLinesOutput.of("file", JsonLinesOutput.parse(generations.out()));
    assertThat(files).hasSize(2);
    assertThat(files.get(0).get("state").asText()).isEqualTo("quarantined");
    assertThat(files.get(1).get("state").asText()).isEqualTo("recorded");

    // 4. retry shows the recorded error, then re-queues the partition.
    Run retry = cli("retry", "--batch", failed.batchId());
    assertThat(retry.exit()).as(retry.err()).isZero();
    assertThat(retry.out()).contains(TABLE + " " + PARTITION + ": FAILED, attempts 1")
        .contains("last error: " + failedBatch.error().orElseThrow())
        .contains("Re-queued 1 partition(s)");
    assertThat(deployment.ledger.partition(TABLE, PARTITION).orElseThrow().state()).isEqualTo(PartitionState.READY);

    // 5. The next batch run commits; every row is in the table once.
    List<BatchEvent> rerun = EmbeddedDeployment.events();
    deployment.runner("repair", rerun).runOnce();
    assertThat(rerun).filteredOn(BatchCommitted.class::isInstance).hasSize(1);
    assertThat(deployment.ledger.partition(TABLE, PARTITION).orElseThrow().state())
        .isEqualTo(PartitionState.INGESTED);
    assertThat(deployment.ledger.filesOfPartition(TABLE, PARTITION)).extracting(FileRecord::state)
        .containsExactlyInAnyOrder(FileState.INGESTED, FileState.QUARANTINED, FileState.INGESTED);
    List<Map<String, Object>> rows = IcebergRows.rows(deployment.home, TABLE);
    assertThat(rows).hasSize(4);
    assertThat(IcebergRows.distinct(rows, "id")).isEqualTo(4);
    assertThat(IcebergRows.joined(rows, row -> row.get("id") + "=" + row.get("amount"))).isEqualTo("r1=1,r2=2,r3=3,r4=4");
    Run nothing = cli("retry", "--all");
    assertThat(nothing.out()).isEqualTo("Nothing to retry: no FAILED partition.\n");
  }
}
