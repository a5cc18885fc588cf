package io.files2iceberg.batcher.retry;

import static io.files2iceberg.batcher.cli.OperatorLedger.ERROR;
import static io.files2iceberg.batcher.cli.OperatorLedger.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.cli.OperatorLedger;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code retry} on an embedded ledger with one FAILED partition (d2) of one FAILED batch. */
class RetryCommandTest {
  @TempDir Path home;
  private OperatorLedger fixture;

  @BeforeEach
  void ledger() {
    fixture = new OperatorLedger(home).write();
  }

  private PartitionRecord partition(String token) {
    try (SqliteLedger ledger = fixture.open()) {
      return ledger.partition(TABLE, token).orElseThrow();
    }
  }

  @Test
  void retryOfAFailedBatchShowsTheErrorsThenRequeuesItsPartitionForTheNextClaim() {
    int exit = fixture.run("retry", "--batch", fixture.failedBatch);

    assertThat(exit).as(fixture.err.toString()).isZero();
    String out = fixture.out.toString();
    assertThat(out).startsWith("1 partition(s) to re-queue (batch " + fixture.failedBatch + "):\n  " + TABLE
        + " d2: FAILED, attempts 1, marker seen");
    assertThat(out).contains("last error: " + ERROR)
        .contains("    last batch " + fixture.failedBatch + " FAILED")
        .satisfies(text -> assertThat(text.split(ERROR, -1)).as("the error printed once").hasSize(2))
        .contains("Re-queued 1 partition(s): READY with attempts reset");
    PartitionRecord d2 = partition("d2");
    assertThat(d2.state()).isEqualTo(PartitionState.READY);
    assertThat(d2.attempts()).isZero();
    try (SqliteLedger ledger = fixture.open()) {
      assertThat(ledger.claimPartitions(new ClaimPartitions(TABLE, 2, Duration.ofMinutes(5), true))
          .orElseThrow().partitions()).containsExactly("d2");
    }
  }

  @Test
  void retryOfATableRequeuesItsFailedPartitionsAndJsonParses() throws Exception {
    int exit = fixture.run("retry", "--table", TABLE, "--json");

    assertThat(exit).as(fixture.err.toString()).isZero();
    // What is to re-queue, what was, then the summary.
    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("requeue", "requeued", "retry_summary");
    JsonNode summary = json.get(2);
    assertThat(summary.get("dryRun").asBoolean()).isFalse();
    assertThat(summary.get("batchId").isNull()).isTrue();
    assertThat(summary.get("toRequeue").asInt()).isEqualTo(1);
    assertThat(summary.get("requeued").asInt()).isEqualTo(1);
    JsonNode requeue = json.get(0);
    assertThat(requeue.get("partition").asText()).isEqualTo("d2");
    assertThat(requeue.get("state").asText()).isEqualTo("failed");
    assertThat(requeue.get("lastError").asText()).isEqualTo(ERROR);
    assertThat(requeue.at("/lastBatch/batchId").asText()).isEqualTo(fixture.failedBatch);
    assertThat(requeue.at("/lastBatch/error").asText()).isEqualTo(ERROR);
    assertThat(json.get(1).get("state").asText()).isEqualTo("ready");
    assertThat(json.get(1).get("attempts").asInt()).isZero();
    assertThat(partition("d2").state()).isEqualTo(PartitionState.READY);
  }

  @Test
  void dryRunShowsTheErrorsAndChangesNothing() {
    PartitionRecord before = partition("d2");

    int exit = fixture.run("retry", "--all", "--dry-run");

    assertThat(exit).as(fixture.err.toString()).isZero();
    assertThat(fixture.out.toString()).contains(TABLE + " d2: FAILED").contains(ERROR)
        .endsWith("Dry run: nothing re-queued.\n");
    assertThat(partition("d2")).isEqualTo(before);
  }

  @Test
  void nothingToRetryIsSaidAndExitsZero() {
    assertThat(fixture.run("retry", "--all")).isZero();
    assertThat(fixture.run("retry", "--all")).isZero();
    assertThat(fixture.out.toString()).isEqualTo("Nothing to retry: no FAILED partition.\n");
    assertThat(fixture.run("retry", "--table", TABLE, "--partition", "d1")).isZero();
    assertThat(fixture.out.toString()).isEqualTo("Nothing to retry: no FAILED partition.\n");
  }

  @Test
  void unknownBatchTableOrPartitionExitsTwoNamingIt() {
    assertThat(fixture.run("retry", "--batch", "20240101T000000-deadbeef")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no batch 20240101T000000-deadbeef in the ledger\n");
    assertThat(fixture.run("retry", "--table", "local.demo.nope")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no table local.demo.nope in the ledger\n");
    assertThat(fixture.run("retry", "--table", TABLE, "--partition", "d9")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no partition d9 of table " + TABLE + " in the ledger\n");
  }

  @Test
  void committedBatchIsNotRetried() {
    assertThat(fixture.run("retry", "--batch", fixture.committedBatch)).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: batch " + fixture.committedBatch + " of table " + TABLE
        + " is COMMITTED, not FAILED: only a failed batch is retried\n");
  }

  @Test
  void scopesAreMutuallyExclusiveAndOneIsRequired() {
    assertThat(fixture.run("retry", "--batch", fixture.failedBatch, "--all")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("mutually exclusive");
    assertThat(fixture.run("retry")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("error: missing required argument");
    assertThat(fixture.run("retry", "--all", "--partition", "d2")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("--partition needs --table");
    assertThat(partition("d2").state()).isEqualTo(PartitionState.FAILED);
  }

  /** A batch of table local.demo.unknown (partitions d1, d2) that gave up with an unknown outcome. */
  private String gaveUpWithAnUnknownOutcome() {
    String table = "local.demo.unknown";
    try (SqliteLedger ledger = fixture.open()) {
      for (String token : new String[] {"d1", "d2"}) {
        ledger.recordFile(new RecordFile(table, token, "", "unknown/" + token + "/a.csv", 1,
            "file:///unknown/" + token + "/a.csv", 1, "e-" + token, Instant.now(), Optional.empty(), true));
      }
      String batchId = ledger.claimPartitions(new ClaimPartitions(table, 10, Duration.ofMinutes(5), true))
          .orElseThrow().batchId();
      ledger.markRunning(batchId, Duration.ofMinutes(5));
      ledger.failBatch(new FailBatch(batchId, "gave up after 3 attempt(s); the table may hold the batch: the job was killed", 1, true));
      return batchId;
    }
  }

  private BatchRecord batch(String batchId) {
    try (SqliteLedger ledger = fixture.open()) {
      return ledger.batch(batchId).orElseThrow();
    }
  }

  @Test
  void batchThatGaveUpWithAnUnknownOutcomeIsRevivedUnderItsOwnIdForRecovery() {
    String batchId = gaveUpWithAnUnknownOutcome();

    int exit = fixture.run("retry", "--batch", batchId);

    assertThat(exit).as(fixture.err.toString()).isZero();
    assertThat(fixture.out.toString())
        .startsWith("1 batch(es) to revive:\n  batch " + batchId + ": its outcome is unknown; relaunched under its"
            + " own id by the next batcher run, which finds it in the table if it committed\n    " + batchId
            + " FAILED, table local.demo.unknown, partitions d1 d2, 2 file(s), attempts 1, outcome unknown (the table"
            + " may hold it),")
        .contains("    local.demo.unknown d1: FAILED, attempts 1")
        .contains("    local.demo.unknown d2: FAILED, attempts 1")
        .endsWith("Revived 1 batch(es): PLANNED again with attempts reset and the lease expired.\n")
        .doesNotContain("re-queue");
    BatchRecord revived = batch(batchId);
    assertThat(revived.state()).isEqualTo(BatchState.PLANNED);
    assertThat(revived.attempts()).isZero();
    assertThat(revived.launches()).as("its next launch is its second").isEqualTo(1);
    try (SqliteLedger ledger = fixture.open()) {
      assertThat(ledger.findExpiredLeases()).extracting(BatchRecord::batchId).containsExactly(batchId);
      assertThat(ledger.partition("local.demo.unknown", "d2").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
      assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::state).containsOnly(FileState.CLAIMED);
    }
  }

  @Test
  void retryOfAllRevivesTheBatchThatGaveUpAndRequeuesTheOthersAndJsonSaysWhich() throws Exception {
    String batchId = gaveUpWithAnUnknownOutcome();

    int exit = fixture.run("retry", "--all", "--json");

    assertThat(exit).as(fixture.err.toString()).isZero();
    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("revival", "requeue", "revived", "requeued", "retry_summary");
    JsonNode revival = json.get(0);
    assertThat(revival.at("/batch/batchId").asText()).isEqualTo(batchId);
    assertThat(revival.get("reason").asText()).startsWith("its outcome is unknown; relaunched under its own id");
    assertThat(revival.at("/partitionRecords/1/partition").asText()).isEqualTo("d2");
    JsonNode revived = json.get(2);
    assertThat(revived.get("state").asText()).isEqualTo("planned");
    assertThat(revived.get("attempts").asInt()).isZero();
    assertThat(revived.get("launches").asInt()).isEqualTo(1);
    assertThat(revival.at("/batch/outcomeUnknown").asBoolean()).isTrue();
    assertThat(revived.get("outcomeUnknown").asBoolean()).as("revival keeps the unknown outcome").isTrue();
    assertThat(json.get(1).get("table").asText()).isEqualTo(TABLE);
    assertThat(json.get(1).get("partition").asText()).isEqualTo("d2");
    assertThat(json.get(3).get("state").asText()).isEqualTo("ready");
    assertThat(json.get(4).get("toRevive").asInt()).isEqualTo(1);
    assertThat(json.get(4).get("toRequeue").asInt()).isEqualTo(1);
    assertThat(batch(batchId).state()).isEqualTo(BatchState.PLANNED);
    assertThat(batch(fixture.failedBatch).state()).isEqualTo(BatchState.FAILED);
    assertThat(partition("d2").state()).isEqualTo(PartitionState.READY);
  }

  @Test
  void dryRunSaysWhichBatchWouldBeRevivedAndChangesNothing() {
    String batchId = gaveUpWithAnUnknownOutcome();
    BatchRecord before = batch(batchId);

    int exit = fixture.run("retry", "--table", "local.demo.unknown", "--partition", "d1", "--dry-run");

    assertThat(exit).as(fixture.err.toString()).isZero();
    assertThat(fixture.out.toString()).startsWith("1 batch(es) to revive:\n  batch " + batchId
        + ": its outcome is unknown;").endsWith("Dry run: nothing revived or re-queued.\n");
    assertThat(batch(batchId)).isEqualTo(before);
  }

  @Test
  void batchWhoseFileWasClaimedSinceIsNotRevivedAndExitsOneNamingTheFile() {
    String batchId = gaveUpWithAnUnknownOutcome();
    try (SqliteLedger ledger = fixture.open()) {
      // An earlier retry re-queued d2 and a new batch took it.
      ledger.retryPartition("local.demo.unknown", "d2");
      ledger.claimPartitions(new ClaimPartitions("local.demo.unknown", 10, Duration.ofMinutes(5), true)).orElseThrow();
    }
    BatchRecord before = batch(batchId);

    int exit = fixture.run("retry", "--batch", batchId);

    assertThat(exit).isEqualTo(1);
    assertThat(fixture.err.toString()).isEqualTo("error: cannot revive batch " + batchId + ": its file "
        + before.fileIds().get(1) + " (file:///unknown/d2/a.csv) was claimed or loaded since: expected state"
        + " RECORDED, actual CLAIMED\n");
    assertThat(batch(batchId)).isEqualTo(before);
  }

  @Test
  void retryOfManyPartitionsShowsProgressOnStderr() {
    String table = "local.demo.many";
    try (SqliteLedger ledger = fixture.open()) {
      for (int i = 0; i < 60; i++) {
        String token = String.format("p%02d", i);
        ledger.recordFile(new RecordFile(table, token, "", "many/" + token + "/a.csv", 1, "file:///many/" + token
            + "/a.csv", 1, "e" + i, Instant.now(), Optional.empty(), true));
      }
      Optional<BatchRecord> batch;
      while ((batch = ledger.claimPartitions(new ClaimPartitions(table, 100, Duration.ofMinutes(5), true))).isPresent()) {
        ledger.failBatch(new FailBatch(batch.get().batchId(), "rejected", 1, false));
      }
    }

    int exit = fixture.run("retry", "--table", table);

    assertThat(exit).as(fixture.err.toString()).isZero();
    assertThat(fixture.err.toString())
        .isEqualTo("[retry] revived or re-queued 50/60\n[retry] revived or re-queued 60/60\n");
    assertThat(fixture.out.toString()).endsWith("Re-queued 60 partition(s): READY with attempts reset; the next batch"
        + " run loads them.\n");
  }

  @Test
  void helpDescribesTheCommand() {
    assertThat(fixture.run("retry", "--help")).isZero();
    assertThat(fixture.out.toString()).contains("--batch=ID").contains("--dry-run").contains("--json");
  }
}
