package io.files2iceberg.batcher.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchLoadReport.Checkpoint;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The line rule and the id rule of every {@code --json} output, and that jq 1.6 (which reads
 * numbers as doubles) gives a snapshot id back unchanged.
 */
class JsonLinesTest {
  /** 2^53 + 1: the first whole number a double cannot hold; a double reads it as ...992. */
  private static final long BEYOND_DOUBLE = 9_007_199_254_740_993L;

  @Test
  void aLineIsOneCompactObjectWithItsKindFirst() {
    ObjectNode node = JsonLines.record("history_summary").put("table", "local.demo.clicks")
        .put("since", "2026-11-30T00:00:00Z").put("fileLoads", 2);

    assertThat(JsonLines.lines(List.of(node))).isEqualTo("{\"kind\":\"history_summary\",\"table\":\"local.demo.clicks\","
        + "\"since\":\"2026-11-30T00:00:00Z\",\"fileLoads\":2}\n");
  }

  @Test
  void snapshotIdsAreStringsWhereverTheyAreAndCountsStayNumbers() {
    BatchRecord batch = new BatchRecord("b1", "local.demo.clicks", BatchState.COMMITTED, List.of("d1"),
        List.of("f1", "f2"), List.of("e1"), 1, 1, false, Optional.empty(), Optional.of(BEYOND_DOUBLE),
        Optional.of(BatchMetrics.EMPTY), Optional.empty(), Instant.parse("2026-11-30T12:00:00Z"),
        Instant.parse("2026-11-30T12:01:00Z"));
    ObjectNode node = RecordJson.batch(JsonLines.record("batch"), batch);
    node.putObject("nested").put("parentSnapshotId", -BEYOND_DOUBLE);

    String line = JsonLines.line(node);

    assertThat(line).contains("\"snapshotId\":\"9007199254740993\"").contains("\"files\":2")
        .contains("\"parentSnapshotId\":\"-9007199254740993\"").doesNotContain("\n");
    assertThat(node.get("snapshotId").isNumber()).as("the caller's object is left as it was").isTrue();
  }

  @Test
  void theCommittedEventCarriesTheSnapshotIdAsAStringThatJqGivesBackUnchanged() {
    BatchLoadReport report = new BatchLoadReport("local.demo.clicks", "b1", false, BEYOND_DOUBLE,
        Checkpoint.COMMITTED, Optional.empty(), BatchMetrics.EMPTY, List.of(), Optional.empty());
    String line = JsonLines.line(EventJson.batch(new BatchCommitted("local.demo.clicks", "b1", report)));

    assertThat(JsonLinesOutput.parse(line + "\n")).hasSize(1);
    assertThat(JsonLinesOutput.jq(line, "-r", ".snapshotId").strip()).isEqualTo(String.valueOf(BEYOND_DOUBLE));
    // What --json printed before: the same id as a number, which jq 1.6 rounds.
    assertThat(JsonLinesOutput.jq("{\"snapshotId\":" + BEYOND_DOUBLE + "}", "-r", ".snapshotId").strip())
        .as("jq reads JSON numbers as doubles").isNotEqualTo(String.valueOf(BEYOND_DOUBLE));
  }

  @Test
  void anObjectWithoutItsKindIsRefused() {
    assertThatThrownBy(() -> JsonLines.line(JsonLines.object().put("table", "t")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A JSON line names its kind in \"kind\" or \"event\": {\"table\":\"t\"}");
  }
}
