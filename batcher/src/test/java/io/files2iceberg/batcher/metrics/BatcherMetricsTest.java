package io.files2iceberg.batcher.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.ExpectationCounts;
import io.files2iceberg.core.manifest.JobExit;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What settled batches do to the counters and the lag histogram (the gauges: IncrementalRunTest),
 * read from the registry's exposition (and, for the expectations, over HTTP as a scrape reads it).
 */
class BatcherMetricsTest {
  private static final String CLICKS = "lake.web.clicks";

  @Test
  void committedAndFailedBatchesCountByOutcomeAndTheirRowsAndLagByTable() {
    BatcherMetrics metrics = new BatcherMetrics(Clock.systemUTC());
    // rows inserted 10, updated 2, rejected 3, deleted 1; 90 s from the oldest event to the commit
    BatchMetrics loaded = new BatchMetrics(2, 100, 16, 0, 10, 2, 0, 3, 1, 1, 1, 90_000, 1);

    metrics.record(summary(List.of(committed("b-1", false, loaded)), List.of(failed("b-2"))));
    metrics.record(summary(List.of(committed("b-3", false, loaded)), List.of()));
    PrometheusText scraped = PrometheusText.parseOf(metrics.scrape());

    assertThat(scraped.value("files2iceberg_batcher_batches_total", "outcome", "committed", "table", CLICKS))
        .isEqualTo(2);
    assertThat(scraped.value("files2iceberg_batcher_batches_total", "outcome", "failed", "table", CLICKS))
        .isEqualTo(1);
    assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "inserted", "table", CLICKS)).isEqualTo(20);
    assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "updated", "table", CLICKS)).isEqualTo(4);
    assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "deleted", "table", CLICKS)).isEqualTo(2);
    assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "rejected", "table", CLICKS)).isEqualTo(6);
    assertThat(scraped.value("files2iceberg_batcher_lag_seconds_count", "table", CLICKS)).isEqualTo(2);
    assertThat(scraped.value("files2iceberg_batcher_lag_seconds_sum", "table", CLICKS)).isEqualTo(180);
    // 90 s: above the 60 s bucket, within the 120 s one.
    assertThat(scraped.value("files2iceberg_batcher_lag_seconds_bucket", "table", CLICKS, "le", "60.0")).isZero();
    assertThat(scraped.value("files2iceberg_batcher_lag_seconds_bucket", "table", CLICKS, "le", "120.0"))
        .isEqualTo(2);
  }

  @Test
  void failuresCountByErrorClassWithoutTheFileAtFault() {
    BatcherMetrics metrics = new BatcherMetrics(Clock.systemUTC());
    FailureCause decoding = new FailureCause("org.apache.parquet.io.ParquetDecodingException",
        Optional.of("file:///landing/p1/orders[1].parquet"));
    BatchFailed classified = new BatchFailed(CLICKS, "b-1", "rejected", Optional.of(JobExit.REJECTED),
        AfterFailure.PARTITIONS_FAILED, Optional.of(decoding));

    metrics.record(summary(List.of(), List.of(classified, failed("b-2"))));
    PrometheusText scraped = PrometheusText.parseOf(metrics.scrape());

    assertThat(scraped.value("files2iceberg_batcher_failures_total", "error_class",
        "org.apache.parquet.io.ParquetDecodingException", "table", CLICKS)).isEqualTo(1);
    assertThat(scraped.value("files2iceberg_batcher_failures_total", "error_class", "unclassified", "table", CLICKS))
        .isEqualTo(1);
    assertThat(metrics.scrape()).doesNotContain("orders[1]");
  }

  @Test
  void aBatchFinalizedFromTheTableCountsAsCommittedButItsRowsAndLagAreNotCountedAgain() {
    BatcherMetrics metrics = new BatcherMetrics(Clock.systemUTC());
    BatchMetrics loaded = new BatchMetrics(2, 100, 16, 0, 10, 2, 0, 3, 1, 1, 1, 90_000, 1);

    metrics.record(summary(List.of(committed("b-1", true, loaded)), List.of()));
    PrometheusText scraped = PrometheusText.parseOf(metrics.scrape());

    assertThat(scraped.value("files2iceberg_batcher_batches_total", "outcome", "committed", "table", CLICKS))
        .isEqualTo(1);
    assertThat(scraped.samples()).doesNotContainKey(
        "files2iceberg_batcher_rows_total{change=\"inserted\",table=\"" + CLICKS + "\"}");
    assertThat(scraped.samples()).doesNotContainKey("files2iceberg_batcher_lag_seconds_count{table=\"" + CLICKS
        + "\"}");
  }

  @Test
  void eachExpectationsPassedAndFailedCountByTableExpectationAndActionOnTheScrapeButNotAgainForAFinalizedBatch()
      throws Exception {
    BatcherMetrics metrics = new BatcherMetrics(Clock.systemUTC());
    BatchMetrics loaded = new BatchMetrics(2, 100, 16, 0, 10, 2, 0, 3, 1, 1, 1, 90_000, 1);
    Map<String, ExpectationCounts> quality = new LinkedHashMap<>();
    quality.put("amount_positive", new ExpectationCounts("reject", 13, 3));
    quality.put("email_set", new ExpectationCounts("warn", 15, 1));
    quality.put("enough_rows", new ExpectationCounts("fail", 2, 0));

    metrics.record(summary(List.of(committed("b-1", false, loaded, quality), committed("b-2", false, loaded, quality),
        committed("b-3", true, loaded, quality)), List.of()));
    PrometheusText scraped;
    try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), metrics::scrape,
        () -> true)) {
      scraped = PrometheusText.scrape(endpoint.uri());
    }

    assertThat(scraped.status()).isEqualTo(200);
    String name = "files2iceberg_batcher_expectation_outcomes_total";
    assertThat(scraped.value(name, "expectation", "amount_positive", "on_violation", "reject", "outcome", "failed",
        "table", CLICKS)).as("two batches written, the finalized one not counted again").isEqualTo(6);
    assertThat(scraped.value(name, "expectation", "amount_positive", "on_violation", "reject", "outcome", "passed",
        "table", CLICKS)).isEqualTo(26);
    assertThat(scraped.value(name, "expectation", "email_set", "on_violation", "warn", "outcome", "failed",
        "table", CLICKS)).isEqualTo(2);
    assertThat(scraped.value(name, "expectation", "enough_rows", "on_violation", "fail", "outcome", "passed",
        "table", CLICKS)).isEqualTo(4);
    assertThat(scraped.value(name, "expectation", "enough_rows", "on_violation", "fail", "outcome", "failed",
        "table", CLICKS)).as("a series from the first batch on, for rate() and alerts").isZero();
  }

  @Test
  void aBatchWithoutExpectationsAddsNoExpectationSeries() {
    BatcherMetrics metrics = new BatcherMetrics(Clock.systemUTC());

    metrics.record(summary(List.of(committed("b-1", false, BatchMetrics.EMPTY)), List.of()));

    assertThat(metrics.scrape()).doesNotContain("files2iceberg_batcher_expectation_outcomes_total{");
  }

  private static RunSummary summary(List<BatchCommitted> committed, List<BatchFailed> failed) {
    return new RunSummary(committed, failed, List.of(), List.of(), Duration.ofSeconds(1));
  }

  private static BatchCommitted committed(String batchId, boolean already, BatchMetrics metrics) {
    return committed(batchId, already, metrics, Map.of());
  }

  private static BatchCommitted committed(String batchId, boolean already, BatchMetrics metrics,
      Map<String, ExpectationCounts> quality) {
    return new BatchCommitted(CLICKS, batchId, new BatchLoadReport(CLICKS, batchId, already, 7L,
        already ? BatchLoadReport.Checkpoint.ALREADY_COMMITTED : BatchLoadReport.Checkpoint.COMMITTED,
        Optional.empty(), metrics, List.of(), Optional.empty(), Map.of(), quality));
  }

  private static BatchFailed failed(String batchId) {
    return new BatchFailed(CLICKS, batchId, "the job failed", Optional.empty(), AfterFailure.RETRIED_LATER);
  }
}
