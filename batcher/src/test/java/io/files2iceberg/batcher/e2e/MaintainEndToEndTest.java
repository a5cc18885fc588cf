package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.BatchManifestCodec;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code maintain} on the embedded default, with real Spark child JVMs: a batch whose job died
 * after its Iceberg commit but before its ledger checkpoint is protected through compaction and an
 * expiry with retention 0, so its recovery finds it in the table and does not commit it twice. The
 * table has no primary key (append): a second commit would show as duplicate rows. A second
 * profile is never loaded: maintenance over both skips its table and succeeds.
 */
class MaintainEndToEndTest {
  private static final String TABLE = "local.e2e.maint";
  /** A second profile no batch ever loads: its table is never created. */
  private static final String NEVER_LOADED = "never";

  @TempDir static Path root;
  static EmbeddedDeployment deployment;

  @BeforeAll
  static void start() throws Exception {
    deployment = new EmbeddedDeployment(root, Map.of("maint", """
        extract {
          path = "file://LANDING/maint/dt=*/*.json"
          format = json
          max-batch-size = 2
          keep-checkpoints = 1
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = "yyyy-MM-dd"
          }
        }
        load {
          iceberg.table = local.e2e.maint
          partition-by = [dt]
        }
        job.spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
        """, NEVER_LOADED, """
        extract.path = "file://LANDING/never/*.json"
        extract.format = json
        load.iceberg.table = local.e2e.never
        """));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  /** {@code maintain} of the maint profile as a user runs it; returns the exit code, stdout and stderr. */
  private static String[] maintain(String... options) {
    return maintain(deployment.profiles.resolve("maint.conf"), options);
  }

  private static String[] maintain(Path config, String... options) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    List<String> args = new ArrayList<>(List.of("maintain", "--config", config.toString(), "--home",
        deployment.home.root().toString()));
    args.addAll(List.of(options));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  private static String row(String id, int amount) {
    return "{\"id\":\"" + id + "\",\"amount\":" + amount + "}\n";
  }

  @Test
  void maintainFollowedByTheRecoveryOfABatchCommittedBeforeItsJobDiedDoesNotCommitItTwice() throws Exception {
    deployment.write("maint/dt=2026-11-25/part-0.json", row("a1", 1) + row("a2", 2));
    deployment.write("maint/dt=2026-11-25/part-1.json", row("a3", 3));
    deployment.write("maint/dt=2026-11-25/_SUCCESS", "");
    deployment.write("maint/dt=2026-11-26/part-0.json", row("b1", 10));
    deployment.write("maint/dt=2026-11-26/_SUCCESS", "");
    deployment.notifyListener();
    List<BatchEvent> loaded = EmbeddedDeployment.events();
    deployment.runner("maint", loaded).runOnce();
    List<BatchCommitted> first = loaded.stream().filter(BatchCommitted.class::isInstance)
        .map(BatchCommitted.class::cast).toList();
    assertThat(first).hasSize(2);

    // Batch C: its job commits to Iceberg and dies before the ledger checkpoint (a manifest that
    // writes none stands for it), so the ledger still has it in flight.
    // A late file of B's partition: C's data file lands beside B's, so compaction rewrites both.
    deployment.write("maint/dt=2026-11-26/part-1.json", row("c1", 100) + row("c2", 200));
    deployment.notifyListener();
    ProfileRegistry registry = deployment.profile("maint");
    TableProfile profile = registry.profiles().get(0);
    BatchRecord claimed = deployment.ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5),
        true)).orElseThrow();
    BatchManifest dying = BatchManifest.of(claimed.batchId(), profile, registry.deployment(), IngestionType.INCREMENTAL, false,
        claimed.createdAt(), deployment.ledger.filesOfBatch(claimed.batchId()));
    Path manifestFile = root.resolve("dying-manifest.json");
    Files.writeString(manifestFile, BatchManifestCodec.toJson(dying));
    JobResult died = deployment.launcher(registry).launch(dying, manifestFile.toString(), 1).await(Duration.ofMinutes(3))
        .orElseThrow();
    assertThat(died.exit()).as(died.describe()).isEqualTo(JobExit.LOADED);
    long snapshotOfC = died.report().orElseThrow().snapshotId();
    assertThat(died.report().orElseThrow().checkpoint()).isEqualTo(BatchLoadReport.Checkpoint.SKIPPED);
    Instant leaseEnd = deployment.ledger.markRunning(claimed.batchId(), Duration.ofSeconds(4)).leaseUntil()
        .orElseThrow();

    // While its lease holds, its job may still be writing (files not committed yet, which orphan
    // removal must not touch): maintain refuses, naming the batch.
    String[] refused = maintain("--retention", "0", "--remove-orphan-files", "--orphan-older-than", "1d");
    assertThat(refused[0]).as(refused[2]).isEqualTo("1");
    assertThat(refused[2]).contains("error: table " + TABLE + ": batch " + claimed.batchId() + " is RUNNING with its"
        + " lease until ");
    // Its batch files are still pruned (by each batch's own state): none is old enough yet.
    assertThat(refused[1]).startsWith(TABLE + ": deleted 0 batch file(s) of batches settled before ")
        .doesNotContain("protected");
    String[] refusedJson = maintain("--retention", "0", "--dry-run", "--json");
    assertThat(refusedJson[0]).isEqualTo("1");
    List<JsonNode> refusal = JsonLinesOutput.parse(refusedJson[1]);
    assertThat(JsonLinesOutput.kinds(refusal)).containsExactly("maintain_refused", "maintain_batch_files",
        "maintain_summary");
    assertThat(refusal.get(0).path("table").asText()).isEqualTo(TABLE);
    assertThat(refusal.get(0).path("batchId").asText()).isEqualTo(claimed.batchId());

    TimeUnit.MILLISECONDS.sleep(Math.max(0, Duration.between(Instant.now(), leaseEnd).toMillis()) + 300);
    String[] dry = maintain("--retention", "0", "--dry-run", "--min-input-files", "2", "--target-file-size", "1m",
        "--json");
    assertThat(dry[0]).as(dry[2]).isEqualTo("0");
    JsonNode planned = JsonLinesOutput.one("maintained", JsonLinesOutput.parse(dry[1]));
    assertThat(planned.path("dryRun").asBoolean()).isTrue();
    assertThat(planned.path("compaction").path("rewrittenFiles").asLong()).isEqualTo(2);
    assertThat(planned.path("expiredSnapshots").size()).isEqualTo(1);

    // Over every profile: the table no batch has loaded is skipped, and the run still succeeds.
    // The files of A (pruned from the ledger) and B (COMMITTED) go; C, in flight, has none in batches/.
    Path batches = deployment.home.root().resolve("metadata").resolve("maint").resolve("batches");
    assertThat(batches.resolve(first.get(1).batchId() + ".json")).exists();
    String[] done = maintain(deployment.profiles, "--retention", "0", "--min-input-files", "2", "--target-file-size",
        "1m", "--batch-files-retention", "1s");
    assertThat(done[0]).as(done[2]).isEqualTo("0");
    assertThat(done[1])
        .contains("local.e2e.never: skipped, not created yet (no batch has loaded it)\n",
            TABLE + "\n  protected 2 snapshot(s)","snapshot " + snapshotOfC + " of batch " + claimed.batchId(), "RUNNING with its lease expired",
            "snapshot " + first.get(1).report().snapshotId() + " of batch " + first.get(1).batchId(),
            "compacted 2 file(s) into 1",
            "expired 1 snapshot(s) older than ", ": " + first.get(0).report().snapshotId() + "\n",
            // The dry run changed nothing: the real run started from the same three snapshots.
            "snapshots: 3 before, 3 after");
    assertThat(done[2]).contains("maintain " + TABLE + ": started pid ", "maintain local.e2e.never: started pid ")
        .doesNotContain("error:");
    assertThat(done[1]).containsPattern(TABLE + ": deleted [1-9][0-9]* batch file\\(s\\)")
        .contains("local.e2e.never: deleted 0 batch file(s)");
    try (var left = Files.list(batches)) {
      assertThat(left.map(f -> f.getFileName().toString()))
          .noneMatch(name -> name.startsWith(first.get(0).batchId()) || name.startsWith(first.get(1).batchId()));
    }

    // Recovery relaunches batch C: its job finds the marker through the compaction and only finalizes.
    List<BatchEvent> events = EmbeddedDeployment.events();
    RunSummary recovery = deployment.runner("maint", events).runOnce();
    assertThat(recovery.isClean()).as(recovery.toString()).isTrue();
    assertThat(events).first().isEqualTo(new BatchRecovered(TABLE, claimed.batchId(), 2));
    BatchCommitted finalized = events.stream().filter(BatchCommitted.class::isInstance).map(BatchCommitted.class::cast)
        .findFirst().orElseThrow();
    assertThat(finalized.report().alreadyCommitted()).isTrue();
    assertThat(finalized.report().snapshotId()).isEqualTo(snapshotOfC);
    assertThat(deployment.ledger.batch(claimed.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
    List<Map<String, Object>> rows = IcebergRows.rows(deployment.home, TABLE);
    assertThat(rows).hasSize(6);
    assertThat(IcebergRows.distinct(rows, "id")).isEqualTo(6);
    assertThat(IcebergRows.sum(rows, "amount")).isEqualTo(316);

    // The other actions, asked for as a user asks: each comes back on the table's line; the table
    // has no sort order, so the sort is a line saying what to set; the rows stay.
    Instant asked = Instant.now();
    String[] all = maintain("--no-compact", "--sort", "--rewrite-position-deletes", "--rewrite-manifests",
        "--remove-orphan-files", "--orphan-older-than", "3d", "--json");
    assertThat(all[0]).as(all[2]).isEqualTo("0");
    JsonNode actions = JsonLinesOutput.one("maintained", JsonLinesOutput.parse(all[1]));
    assertThat(actions.path("sort").path("skipped").asText()).isEqualTo("table " + TABLE + " has no sort order: set"
        + " maintain.sort-by (or maintain.z-order-by) in its profile, or give the table one with ALTER TABLE " + TABLE
        + " WRITE ORDERED BY ...");
    assertThat(actions.path("compaction").isNull()).isTrue();
    assertThat(actions.path("positionDeletes").path("rewrittenFiles").isIntegralNumber()).isTrue();
    assertThat(actions.path("manifests").path("rewrittenFiles").isIntegralNumber()).isTrue();
    assertThat(actions.at("/orphanFiles/removedFiles").asLong()).isZero();
    assertThat(Instant.parse(actions.at("/orphanFiles/olderThan").asText()))
        .isBetween(asked.minus(Duration.ofDays(3)).minusSeconds(5), Instant.now().minus(Duration.ofDays(3)));
    List<Map<String, Object>> after = IcebergRows.rows(deployment.home, TABLE);
    assertThat(after).hasSize(6);
    assertThat(IcebergRows.sum(after, "amount")).isEqualTo(316);
  }
}
