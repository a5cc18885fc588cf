package io.files2iceberg.batcher.output;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchLoadReport.Checkpoint;
import io.files2iceberg.core.manifest.ExpectationCounts;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A committed batch's expectation counts as a run prints them: its line for people names each
 * expectation that rows (or partitions) failed, with what was done with them; its JSON event
 * carries the job's {@code quality} object and each file's {@code expectationsFailed}.
 */
class CommittedEventTest {
  private static final String TABLE = "local.demo.clicks";
  // rows read 16, inserted 10, updated 2, rejected 3
  private static final BatchMetrics LOADED = new BatchMetrics(2, 100, 16, 0, 10, 2, 0, 3, 1, 1, 1, 90_000, 1);

  private static BatchCommitted committed(boolean already) {
    Map<String, ExpectationCounts> quality = new LinkedHashMap<>();
    quality.put("amount_positive", new ExpectationCounts("reject", 13, 3));
    quality.put("email_set", new ExpectationCounts("warn", 15, 1));
    quality.put("no_test_rows", new ExpectationCounts("drop", 14, 2));
    quality.put("enough_rows", new ExpectationCounts("fail", 2, 0));
    Map<String, FileRows> files = new LinkedHashMap<>();
    files.put("f1", new FileRows(9, 3, 0, 0, Map.of("amount_positive", 3L, "no_test_rows", 2L)));
    files.put("f2", new FileRows(7, 0, 0, 0, Map.of("email_set", 1L)));
    return new BatchCommitted(TABLE, "b1", new BatchLoadReport(TABLE, "b1", already, 42L,
        already ? Checkpoint.ALREADY_COMMITTED : Checkpoint.COMMITTED, Optional.empty(), LOADED, List.of(),
        Optional.of(TABLE + "__rejected"), files, quality));
  }

  @Test
  void theLineNamesEachFailedExpectationWithWhatBecameOfItsRowsAndLeavesOutThoseThatPassed() {
    assertThat(committed(false).describe()).isEqualTo("committed " + TABLE + " b1: snapshot 42, 2 file(s),"
        + " 10 row(s) inserted, 2 updated, 3 row(s) rejected; expectation amount_positive: 3 of 16 failed, rejected;"
        + " expectation email_set: 1 of 16 failed, loaded (warn); expectation no_test_rows: 2 of 16 failed, dropped");
  }

  @Test
  void aBatchFinalizedFromTheTableSaysNothingOfItsExpectations() {
    assertThat(committed(true).describe()).isEqualTo("committed " + TABLE + " b1: already in snapshot 42;"
        + " ledger finalized");
  }

  @Test
  void theJsonEventCarriesEachExpectationsCountsAndEachFilesViolations() {
    String line = JsonLines.line(EventJson.batch(committed(false)));

    JsonNode event = JsonLinesOutput.parse(line + "\n").get(0);
    assertThat(event.get("quality").toString()).isEqualTo("{\"amount_positive\":{\"onViolation\":\"reject\","
        + "\"passed\":13,\"failed\":3},\"email_set\":{\"onViolation\":\"warn\",\"passed\":15,\"failed\":1},"
        + "\"no_test_rows\":{\"onViolation\":\"drop\",\"passed\":14,\"failed\":2},"
        + "\"enough_rows\":{\"onViolation\":\"fail\",\"passed\":2,\"failed\":0}}");
    assertThat(event.get("fileRows").get(0).get("expectationsFailed").toString())
        .isEqualTo("{\"amount_positive\":3,\"no_test_rows\":2}");
    assertThat(event.get("fileRows").get(1).get("expectationsFailed").toString()).isEqualTo("{\"email_set\":1}");
  }
}
