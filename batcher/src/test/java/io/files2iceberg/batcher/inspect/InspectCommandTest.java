package io.files2iceberg.batcher.inspect;

import static io.files2iceberg.batcher.cli.OperatorLedger.ERROR;
import static io.files2iceberg.batcher.cli.OperatorLedger.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.cli.OperatorLedger;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code inspect} of a partition, a batch and a file of an embedded ledger. */
class InspectCommandTest {
  @TempDir Path home;
  private OperatorLedger fixture;

  @BeforeEach
  void ledger() {
    fixture = new OperatorLedger(home).write();
  }

  @Test
  void failedPartitionShowsItsErrorFilesAndTheBatchThatFailedIt() {
    int exit = fixture.run("inspect", "--table", TABLE, "--partition", "d2");

    assertThat(exit).as(fixture.err.toString()).isZero();
    String out = fixture.out.toString();
    assertThat(out).startsWith("PARTITION " + TABLE + " d2: FAILED, attempts 1, marker seen")
        .contains("last error: " + ERROR)
        .contains("  folder file:///landing/clicks/d2/\n")
        .contains("FILES (2)\n  " + OperatorLedger.uri("d2", 0) + " generation 1: RECORDED, 10 bytes, event evt-d20")
        .contains("BATCHES (1, oldest first; pruned ones are gone)\n  " + fixture.failedBatch + " FAILED")
        .contains("error: " + ERROR + ", error class org.apache.parquet.io.ParquetDecodingException, file at fault "
            + OperatorLedger.uri("d2", 1));
  }

  @Test
  void committedBatchShowsItsSnapshotMetricsEventsAndFilesAsJson() throws Exception {
    int exit = fixture.run("inspect", "--batch", fixture.committedBatch, "--json");

    assertThat(exit).as(fixture.err.toString()).isZero();
    // The batch, its files, its attempts (none in this ledger), then the summary.
    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("batch", "file", "file", "inspect_summary");
    JsonNode batch = json.get(0);
    assertThat(batch.get("state").asText()).isEqualTo("committed");
    assertThat(batch.get("snapshotId").textValue()).isEqualTo("4242");
    assertThat(batch.at("/metrics/rowsInserted").asLong()).isEqualTo(3);
    assertThat(batch.at("/partitions/0").asText()).isEqualTo("d1");
    assertThat(batch.get("eventIds").toString()).isEqualTo("[\"evt-d10\",\"evt-d11\"]");
    assertThat(json.get(2).get("uri").asText()).isEqualTo(OperatorLedger.uri("d1", 1));
    assertThat(json.get(2).get("state").asText()).isEqualTo("ingested");
    assertThat(json.get(2).get("batchId").asText()).isEqualTo(fixture.committedBatch);
    JsonNode summary = json.get(3);
    assertThat(summary.get("subject").asText()).isEqualTo("batch");
    assertThat(summary.get("batchId").asText()).isEqualTo(fixture.committedBatch);
    assertThat(summary.get("files").asInt()).isEqualTo(2);
  }

  @Test
  void fileShowsEveryGenerationAndTheBatchesThatTookIt() throws Exception {
    try (SqliteLedger ledger = fixture.open()) {
      ledger.recordFile(new RecordFile(TABLE, "d1", "", "landing/clicks/d1/part-0.csv", 2, OperatorLedger.uri("d1", 0),
          12, "evt-rewrite", Instant.now(), Optional.of(1L), false));
    }

    int exit = fixture.run("inspect", "--file", "/landing/clicks/d1/part-0.csv", "--json");

    assertThat(exit).as(fixture.err.toString()).isZero();
    // Each generation, oldest first, the batches that took it, then the summary.
    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("file", "file", "batch", "inspect_summary");
    assertThat(json.get(3).get("subject").asText()).isEqualTo("file");
    assertThat(json.get(3).get("uri").asText()).isEqualTo(OperatorLedger.uri("d1", 0));
    JsonNode first = json.get(0);
    assertThat(first.get("generation").asLong()).isEqualTo(1);
    assertThat(first.get("state").asText()).isEqualTo("ingested");
    assertThat(first.get("batchId").asText()).isEqualTo(fixture.committedBatch);
    assertThat(first.get("snapshotId").textValue()).isEqualTo("4242");
    assertThat(first.get("rowsRead").asLong()).isEqualTo(3);
    assertThat(first.get("rowsRejected").asLong()).isEqualTo(1);
    assertThat(first.get("expectationsFailed").toString()).isEqualTo("{\"amount_positive\":1,\"email_set\":2}");
    JsonNode second = json.get(1);
    assertThat(second.get("snapshotId").isNull()).isTrue();
    assertThat(second.get("rowsRead").isNull()).isTrue();
    assertThat(second.get("expectationsFailed").isNull()).isTrue();
    assertThat(second.get("generation").asLong()).isEqualTo(2);
    assertThat(second.get("overwroteGeneration").asLong()).isEqualTo(1);
    assertThat(second.get("state").asText()).isEqualTo("recorded");
    assertThat(json.get(2).get("batchId").asText()).isEqualTo(fixture.committedBatch);

    assertThat(fixture.run("inspect", "--file", OperatorLedger.uri("d1", 0), "--generation", "2")).isZero();
    assertThat(fixture.out.toString()).contains("GENERATIONS (1, oldest first)\n  " + OperatorLedger.uri("d1", 0)
        + " generation 2: RECORDED").contains("overwrote generation 1").contains("BATCHES (0");
  }

  @Test
  void eachLoadedGenerationShowsItsBatchSnapshotAndRowsAndUnknownCountsSayUnknown() {
    assertThat(fixture.run("inspect", "--file", OperatorLedger.uri("d1", 0))).isZero();
    assertThat(fixture.out.toString()).contains(OperatorLedger.uri("d1", 0) + " generation 1: INGESTED")
        .contains(", batch " + fixture.committedBatch + ", snapshot 4242, rows read 3 rejected 1 rescued 0,"
            + " expectations failed: amount_positive 1, email_set 2\n");

    assertThat(fixture.run("inspect", "--file", OperatorLedger.uri("d1", 1))).isZero();
    assertThat(fixture.out.toString()).contains(", snapshot 4242, rows unknown\n").doesNotContain("rows read 0");
  }

  @Test
  void supersededGenerationIsShownWithItsReason() {
    try (SqliteLedger ledger = fixture.open()) {
      ledger.recordFile(new RecordFile(TABLE, "d3", "", "landing/clicks/d3/part-0.csv", 2, OperatorLedger.uri("d3", 0),
          12, "evt-rewrite", Instant.now(), Optional.of(1L), false));
      ledger.supersedeFile(ledger.filesNamed("", "landing/clicks/d3/part-0.csv").get(0).fileId(),
          "rewritten: generation 2 is live now");
    }

    int exit = fixture.run("inspect", "--file", OperatorLedger.uri("d3", 0));

    assertThat(exit).as(fixture.err.toString()).isZero();
    assertThat(fixture.out.toString())
        .contains(OperatorLedger.uri("d3", 0) + " generation 1: SUPERSEDED")
        .contains("superseded: rewritten: generation 2 is live now")
        .contains(OperatorLedger.uri("d3", 0) + " generation 2: RECORDED");
  }

  @Test
  void anAttemptOfACommittedBatchWithoutItsResultSaysMaintainMayHaveDeletedIt() throws Exception {
    Path profile = Files.writeString(home.resolve("clicks.conf"), """
        extract.path = "file:///landing/clicks/*/*.csv"
        extract.format = csv
        load.iceberg.table = local.demo.clicks
        """);

    int exit = fixture.run("inspect", "--batch", fixture.committedBatch, "--config", profile.toString());

    assertThat(exit).as(fixture.err.toString()).isZero();
    assertThat(fixture.out.toString()).contains("ATTEMPTS (1, oldest first)\n  attempt 1: no result (the job died"
        + " before writing it, or maintain deleted it once the batch was settled)\n");
  }

  @Test
  void unknownPartitionBatchOrFileExitsTwoNamingIt() {
    assertThat(fixture.run("inspect", "--table", TABLE, "--partition", "d9")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no partition d9 of table " + TABLE + " in the ledger\n");
    assertThat(fixture.run("inspect", "--batch", "nope")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no batch nope in the ledger\n");
    assertThat(fixture.run("inspect", "--file", "gs://landing/x.csv")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no file gs://landing/x.csv in the ledger\n");
    assertThat(fixture.run("inspect", "--file", OperatorLedger.uri("d1", 0), "--generation", "7")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no file " + OperatorLedger.uri("d1", 0)
        + " generation 7 in the ledger\n");
    assertThat(fixture.run("inspect", "--file", "s3://bucket/x.csv")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("\"s3://bucket/x.csv\" is not a gs:// or file:// URI");
  }

  @Test
  void subjectsAreMutuallyExclusiveAndPartitionNeedsTable() {
    assertThat(fixture.run("inspect", "--batch", "x", "--file", "/a")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("mutually exclusive");
    assertThat(fixture.run("inspect", "--partition", "d1")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("--partition and --table go together");
    assertThat(fixture.run("inspect", "--batch", "x", "--generation", "1")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("--generation needs --file");
  }
}
