package io.files2iceberg.batcher.history;

import static io.files2iceberg.batcher.cli.OperatorLedger.ERROR;
import static io.files2iceberg.batcher.cli.OperatorLedger.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.cli.OperatorLedger;
import io.files2iceberg.batcher.status.StatusCommand;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code history} and {@code status --files} over an embedded ledger written through the ledger's API. */
class HistoryCommandTest {
  @TempDir Path home;
  private OperatorLedger fixture;

  @BeforeEach
  void ledger() {
    fixture = new OperatorLedger(home).write();
  }

  @Test
  void historyListsEachFileLoadNewestFirstWithItsBatchSnapshotAndCountsAsJson() throws Exception {
    int exit = fixture.run("history", "--table", TABLE, "--since", "1d", "--json");

    assertThat(exit).as(fixture.err.toString()).isZero();
    // A file_load line per load, then the summary.
    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    JsonNode summary = json.get(json.size() - 1);
    assertThat(summary.get("kind").asText()).isEqualTo("history_summary");
    assertThat(summary.get("table").asText()).isEqualTo(TABLE);
    assertThat(summary.get("fileLoads").asInt()).isEqualTo(4);
    List<JsonNode> files = JsonLinesOutput.of("file_load", json);
    assertThat(files).hasSize(4).allSatisfy(file -> assertThat(file.get("table").asText()).isEqualTo(TABLE));
    List<String> lines = new ArrayList<>();
    files.forEach(file -> lines.add(file.get("state").asText() + " " + file.get("uri").asText() + " "
        + file.get("batchId").asText() + " " + file.get("snapshotId") + " " + file.get("rowsRead") + " "
        + file.get("rowsRejected")));
    // Newest first; the fixture's two batches may settle within one millisecond, so their order is not asserted.
    List<String> times = new ArrayList<>();
    files.forEach(file -> times.add(file.get("time").asText()));
    assertThat(times).isSortedAccordingTo(java.util.Comparator.<String>naturalOrder().reversed());
    assertThat(lines).containsExactlyInAnyOrder(
        "failed " + OperatorLedger.uri("d2", 0) + " " + fixture.failedBatch + " null null null",
        "failed " + OperatorLedger.uri("d2", 1) + " " + fixture.failedBatch + " null null null",
        "ingested " + OperatorLedger.uri("d1", 0) + " " + fixture.committedBatch + " \"4242\" 3 1",
        "ingested " + OperatorLedger.uri("d1", 1) + " " + fixture.committedBatch + " \"4242\" null null");
    for (JsonNode file : files) {
      assertThat(file.get("generation").asLong()).isEqualTo(1);
      if (file.get("state").asText().equals("failed")) {
        assertThat(file.get("detail").asText()).isEqualTo("[org.apache.parquet.io.ParquetDecodingException; "
            + (file.get("uri").asText().equals(OperatorLedger.uri("d2", 1)) ? "this file is at fault"
                : "file at fault: " + OperatorLedger.uri("d2", 1)) + "] " + ERROR);
      } else {
        assertThat(file.get("detail").isNull()).isTrue();
      }
      if (file.get("uri").asText().equals(OperatorLedger.uri("d1", 0))) {
        assertThat(file.get("rowsRescued").asLong()).isZero();
        assertThat(file.get("columnsIgnored").isNumber()).isTrue();
        assertThat(file.get("columnsIgnored").asLong()).isZero();
        assertThat(file.get("expectationsFailed").toString()).isEqualTo("{\"amount_positive\":1,\"email_set\":2}");
      } else {
        // Counts unknown (loaded before files were counted, or failed): not an empty object.
        assertThat(file.get("expectationsFailed").isNull()).as(file.toString()).isTrue();
      }
    }
  }

  @Test
  void historyForPeopleIsOneLinePerLoadAndSaysUnknownForCountsTheLedgerDoesNotKnow() {
    int exit = fixture.run("history", "--table", TABLE);

    assertThat(exit).as(fixture.err.toString()).isZero();
    String out = fixture.out.toString();
    assertThat(out).startsWith("HISTORY " + TABLE + " since ").contains("(4 file load(s), newest first)\n")
        .containsPattern("TIME +STATE +BATCH +SNAPSHOT +ROWS READ +REJECTED +RESCUED +COLS IGNORED +GENERATION +URI\n")
        .containsPattern("ingested +" + fixture.committedBatch + " +4242 +3 +1 +0 +0 +1 +"
            + OperatorLedger.uri("d1", 0).replace(".", "\\.") + "\n")
        .containsPattern("ingested +" + fixture.committedBatch + " +4242 +unknown +unknown +unknown +unknown +1 +"
            + OperatorLedger.uri("d1", 1).replace(".", "\\.") + "\n")
        .contains("  failed " + OperatorLedger.uri("d2", 0) + " generation 1: [org.apache.parquet.io.ParquetDecodingException;"
            + " file at fault: " + OperatorLedger.uri("d2", 1) + "] " + ERROR + "\n")
        .contains("  ingested " + OperatorLedger.uri("d1", 0) + " generation 1: expectations failed: amount_positive 1,"
            + " email_set 2\n")
        .doesNotContain(OperatorLedger.uri("d1", 1) + " generation 1: expectations");
  }

  @Test
  void aFileLoadThatMetEveryExpectationHasAnEmptyObjectAndNoLineForPeople() throws Exception {
    // d3 (READY) and a new d4 loaded by one batch whose files violated nothing.
    try (SqliteLedger ledger = fixture.open()) {
      for (int i = 0; i < 2; i++) {
        ledger.recordFile(new RecordFile(TABLE, "d4", "", "landing/clicks/d4/part-" + i + ".csv", 1,
            OperatorLedger.uri("d4", i), 10, "evt-d4" + i, Instant.now(), Optional.empty(), false));
      }
      ledger.markReady(new MarkReady(TABLE, "d4", "file:///landing/clicks/d4/", "md4", Instant.now()));
      BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 10, Duration.ofMinutes(5), true))
          .orElseThrow();
      Map<String, FileRows> counts = new HashMap<>();
      batch.fileIds().forEach(id -> counts.put(id, new FileRows(4, 0, 0)));
      ledger.commitBatch(new CommitBatch(batch.batchId(), 4343, BatchMetrics.EMPTY, counts));
    }

    assertThat(fixture.run("history", "--table", TABLE, "--json")).isZero();
    List<JsonNode> met = JsonLinesOutput.of("file_load", JsonLinesOutput.parse(fixture.out.toString())).stream()
        .filter(file -> file.get("snapshotId").asText().equals("4343")).toList();
    assertThat(met).hasSize(4).allSatisfy(file -> assertThat(file.get("expectationsFailed").toString()).isEqualTo("{}"));
    assertThat(fixture.run("history", "--table", TABLE)).isZero();
    assertThat(fixture.out.toString()).doesNotContain(OperatorLedger.uri("d4", 0) + " generation 1:")
        .containsPattern("ingested +\\S+ +4343 +4 +0 +0 +0 +1 +" + OperatorLedger.uri("d4", 0).replace(".", "\\.")
            + "\n");
  }

  @Test
  void historySinceAnInstantAfterTheLoadsListsNone() throws Exception {
    assertThat(fixture.run("history", "--table", TABLE, "--since", "2999-01-01T00:00:00Z", "--json")).isZero();

    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("history_summary");
    assertThat(json.get(0).get("since").asText()).isEqualTo("2999-01-01T00:00:00Z");
    assertThat(json.get(0).get("fileLoads").asInt()).isZero();
  }

  @Test
  void unknownTableExitsTwoNamingIt() {
    assertThat(fixture.run("history", "--table", "local.demo.nope")).isEqualTo(2);

    assertThat(fixture.err.toString()).isEqualTo("error: no table local.demo.nope in the ledger\n");
  }

  @Test
  void badSinceExitsTwoNamingTheValueAndTheAcceptedForms() {
    assertThat(fixture.run("history", "--table", TABLE, "--since", "yesterday")).isEqualTo(2);

    assertThat(fixture.err.toString()).contains("error: invalid value for option '--since': 'yesterday' is neither a"
        + " duration with a unit (90m, 12h, 1d) nor an ISO-8601 instant (2026-12-01T00:00:00Z)");
    assertThat(fixture.run("history", "--table", TABLE, "--since", "2026-13-01T00:00:00Z")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("'2026-13-01T00:00:00Z' is neither a duration");
  }

  @Test
  void missingTableIsAUsageError() {
    assertThat(fixture.run("history")).isEqualTo(2);

    assertThat(fixture.err.toString()).contains("error: missing required option: '--table=TABLE'");
  }

  @Test
  void statusWithFilesGivesEachTablesFileLoadsInJsonAndKeepsItsShapeWithout() throws Exception {
    // The fixture's ledger holds a FAILED partition: status exits 5 and prints all the same.
    assertThat(fixture.run("status", "--json", "--files")).as(fixture.err.toString())
        .isEqualTo(ExitCode.ATTENTION);

    JsonNode table = JsonLinesOutput.one("table_status", JsonLinesOutput.parse(fixture.out.toString()));
    assertThat(table.get("table").asText()).isEqualTo(TABLE);
    assertThat(table.get("fileLoads")).hasSize(4);
    List<String> counts = new ArrayList<>();
    table.get("fileLoads").forEach(load -> counts.add(load.get("uri").asText() + " " + load.get("rowsRejected") + " "
        + load.get("expectationsFailed")));
    assertThat(counts).contains(OperatorLedger.uri("d1", 0) + " 1 {\"amount_positive\":1,\"email_set\":2}",
        OperatorLedger.uri("d1", 1) + " null null");

    assertThat(fixture.run("status", "--json", "--exit-zero")).isZero();
    assertThat(JsonLinesOutput.one("table_status", JsonLinesOutput.parse(fixture.out.toString())).has("fileLoads"))
        .isFalse();
    assertThat(fixture.run("status", "--files", "12h")).isEqualTo(ExitCode.ATTENTION);
    assertThat(fixture.out.toString()).contains("HISTORY " + TABLE + " since ").contains("4 file load(s)");
  }
}
