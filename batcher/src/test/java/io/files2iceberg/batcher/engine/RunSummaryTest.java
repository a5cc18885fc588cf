package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.manifest.BatchLoadReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The run's one line for people counts in words: one row is {@code 1 row}. */
class RunSummaryTest {

  @Test
  void oneRowIsOneRowAndOtherCountsArePlural() {
    assertThat(summary(1).describe()).startsWith("1 committed (1 row), 0 failed, 0 recovered in 3s");
    assertThat(summary(1, 1).describe()).startsWith("2 committed (2 rows), 0 failed");
    assertThat(new RunSummary(List.of(), List.of(), List.of(), List.of(), Duration.ZERO).describe())
        .isEqualTo("0 committed (0 rows), 0 failed, 0 recovered in 0s");
  }

  @Test
  void batchesLeftRunningCountAsBatchesAndAreSaidInTheLine() {
    RunSummary launched = new RunSummary(List.of(), List.of(), List.of(), List.of(),
        List.of(new RunSummary.InFlight("lake.web.clicks", "b-1", "pid 42")), Duration.ofSeconds(2));

    assertThat(launched.batches()).isEqualTo(1);
    assertThat(launched.isClean()).isTrue();
    assertThat(launched.describe()).isEqualTo("0 committed (0 rows), 0 failed, 0 recovered, 1 still running in 2s");
  }

  /** A run that committed one batch per count, each inserting that many rows. */
  private static RunSummary summary(long... inserted) {
    List<BatchCommitted> committed = new ArrayList<>();
    for (int i = 0; i < inserted.length; i++) {
      long rows = inserted[i];
      BatchMetrics metrics = new BatchMetrics(1, rows, 1, 0, rows, 0, 0, 0, 0, 1, 1, 1_000, 1);
      committed.add(new BatchCommitted("lake.web.clicks", "b-" + i, new BatchLoadReport("lake.web.clicks", "b-" + i,
          false, 7L, BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(), metrics, List.of(), Optional.empty())));
    }
    return new RunSummary(committed, List.of(), List.of(), List.of(), Duration.ofSeconds(3));
  }
}
