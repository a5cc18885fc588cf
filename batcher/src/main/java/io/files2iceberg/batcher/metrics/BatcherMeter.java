package io.files2iceberg.batcher.metrics;

import io.files2iceberg.core.metrics.MeterDescription;
import java.time.Duration;
import java.util.List;

/**
 * Every meter the batcher publishes on {@code batch serve}'s {@code /prometheus}: the one list that
 * {@link BatcherMetrics} registers from and that docs/reference/metrics.md is generated from.
 * Names are Prometheus names as scraped; the Micrometer name is the same with dots.
 */
public enum BatcherMeter {
  FILES("files2iceberg_batcher_files", "gauge", List.of("table", "state"),
      "Files of the table in the ledger, by state (recorded, claimed, ingested, quarantined, superseded,"
          + " ignored); recorded, claimed and quarantined are the ones outstanding. Read from the ledger once"
          + " per run, not per scrape."),
  OLDEST_READY_PARTITION_AGE("files2iceberg_batcher_oldest_ready_partition_age_seconds", "gauge", List.of("table"),
      "Seconds since the oldest READY partition of the table became ready (0 when none is READY): how long"
          + " loadable data has waited. The partition is read from the ledger once per run; the age is"
          + " computed at the scrape."),
  BATCHES("files2iceberg_batcher_batches_total", "counter", List.of("table", "outcome"),
      "Batches settled since the batcher started, by outcome (committed, failed)."),
  FAILURES("files2iceberg_batcher_failures_total", "counter", List.of("table", "error_class"),
      "Failed batches since the batcher started, by the error class the job classified (Spark's error class or"
          + " the root exception's class; unclassified when the job did not say, for instance when it died)."
          + " The file at fault is in the ledger, never in a label."),
  ROWS("files2iceberg_batcher_rows_total", "counter", List.of("table", "change"),
      "Rows of committed batches since the batcher started, by change (inserted, updated, deleted, rejected)."),
  EXPECTATION_OUTCOMES("files2iceberg_batcher_expectation_outcomes_total", "counter",
      List.of("table", "expectation", "on_violation", "outcome"),
      "What each expectation of the table's quality.expectations found in committed batches since the batcher"
          + " started, by outcome (passed, failed): rows for a check, partitions for min-rows and"
          + " max-null-fraction. on_violation is the expectation's action (fail, reject, drop, warn); a batch that"
          + " an expectation with fail failed is not committed, so fail counts what passed. A batch finalized from"
          + " the table's snapshot is not counted again."),
  LAG("files2iceberg_batcher_lag_seconds", "histogram", List.of("table"),
      "Time from the oldest event of a committed batch to its commit (the batch's lagMillis); batches"
          + " without an event time (ingestion-type full) are not observed. Buckets (le, seconds): "
          + MeterDescription.seconds(LagBuckets.BOUNDS) + ", +Inf; also _count, _sum and _max.");

  /** The upper bounds of {@link #LAG}'s buckets (a holder: enum constants are built before statics). */
  static final class LagBuckets {
    static final List<Duration> BOUNDS = List.of(Duration.ofSeconds(30), Duration.ofMinutes(1),
        Duration.ofMinutes(2), Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(15),
        Duration.ofMinutes(30), Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(6),
        Duration.ofHours(12), Duration.ofHours(24));

    private LagBuckets() {}
  }

  private final MeterDescription description;

  BatcherMeter(String prometheusName, String type, List<String> labels, String meaning) {
    this.description = new MeterDescription(prometheusName, type, labels, meaning);
  }

  /** Its name, type, labels and meaning. */
  public MeterDescription description() {
    return description;
  }

  String micrometerName() {
    return description.micrometerName();
  }

  String meaning() {
    return description.meaning();
  }
}
