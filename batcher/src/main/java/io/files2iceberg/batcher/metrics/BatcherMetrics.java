package io.files2iceberg.batcher.metrics;

import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.TableStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batcher's meters ({@link BatcherMeter}) in a Prometheus registry. Counters and the lag
 * histogram follow settled batches ({@link #record}); the gauges follow the ledger, read once per
 * run ({@link #refresh}) so that a scrape never reads Firestore. Thread-safe.
 */
public final class BatcherMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(BatcherMetrics.class);

  /** {@link BatcherMeter#FAILURES}' error class of a failure the job did not classify. */
  static final String UNCLASSIFIED = "unclassified";

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Clock clock;
  private final Map<String, AtomicLong> files = new ConcurrentHashMap<>();
  private final Map<String, AtomicReference<Instant>> oldestReady = new ConcurrentHashMap<>();

  public BatcherMetrics(Clock clock) {
    this.clock = clock;
  }

  /**
   * Counts the batches a run settled, their rows and their expectations' outcomes, and observes
   * each committed batch's lag.
   */
  public void record(RunSummary summary) {
    for (BatchCommitted committed : summary.committed()) {
      batches(committed.table(), "committed").increment();
      if (committed.report().alreadyCommitted()) {
        // Finalized from the table's snapshot: its rows were counted by the run that wrote them.
        continue;
      }
      BatchMetrics metrics = committed.report().metrics();
      rows(committed.table(), "inserted").increment(metrics.rowsInserted());
      rows(committed.table(), "updated").increment(metrics.rowsUpdated());
      rows(committed.table(), "deleted").increment(metrics.rowsDeleted());
      rows(committed.table(), "rejected").increment(metrics.rowsRejected());
      if (metrics.lagMillis() > 0) {
        lag(committed.table()).record(Duration.ofMillis(metrics.lagMillis()));
      }
      committed.report().quality().forEach((expectation, counts) -> {
        expectationOutcomes(committed.table(), expectation, counts.onViolation(), "passed").increment(counts.passed());
        expectationOutcomes(committed.table(), expectation, counts.onViolation(), "failed").increment(counts.failed());
      });
    }
    for (BatchFailed failed : summary.failed()) {
      batches(failed.table(), "failed").increment();
      failures(failed.table(), failed.cause().map(FailureCause::errorClass).orElse(UNCLASSIFIED)).increment();
    }
  }

  /**
   * Reads each table's files by state and its oldest READY partition from the ledger. A table the
   * ledger cannot answer for keeps its previous values (logged): the next run tries again.
   */
  public void refresh(Ledger ledger, Collection<String> tables) {
    for (String table : tables) {
      TableStatus status;
      try {
        status = ledger.tableStatus(table);
      } catch (RuntimeException e) {
        LOG.warn("Table {}: the ledger did not answer for the metrics; they keep their previous values: {}",
            table, e.toString());
        continue;
      }
      for (FileState state : FileState.values()) {
        filesGauge(table, state).set(status.filesByState().getOrDefault(state, 0L));
      }
      oldestReadyGauge(table).set(status.oldestReadyAt().orElse(null));
    }
  }

  /** The registry's text exposition, as {@code /prometheus} serves it. */
  public String scrape() {
    return registry.scrape();
  }

  private Counter batches(String table, String outcome) {
    return counter(BatcherMeter.BATCHES, table, "outcome", outcome);
  }

  private Counter failures(String table, String errorClass) {
    return counter(BatcherMeter.FAILURES, table, "error_class", errorClass);
  }

  private Counter rows(String table, String change) {
    return counter(BatcherMeter.ROWS, table, "change", change);
  }

  private Counter expectationOutcomes(String table, String expectation, String onViolation, String outcome) {
    return Counter.builder(BatcherMeter.EXPECTATION_OUTCOMES.micrometerName())
        .description(BatcherMeter.EXPECTATION_OUTCOMES.meaning())
        .tag("table", table)
        .tag("expectation", expectation)
        .tag("on_violation", onViolation)
        .tag("outcome", outcome)
        .register(registry);
  }

  /** A counter of the table with one more tag. */
  private Counter counter(BatcherMeter meter, String table, String tag, String value) {
    return Counter.builder(meter.micrometerName())
        .description(meter.meaning())
        .tag("table", table)
        .tag(tag, value)
        .register(registry);
  }

  private Timer lag(String table) {
    return Timer.builder(BatcherMeter.LAG.micrometerName())
        .description(BatcherMeter.LAG.meaning())
        .tag("table", table)
        .serviceLevelObjectives(BatcherMeter.LagBuckets.BOUNDS.toArray(Duration[]::new))
        .register(registry);
  }

  private AtomicLong filesGauge(String table, FileState state) {
    String stateCode = state.code().toLowerCase(Locale.ROOT);
    return files.computeIfAbsent(table + "\u0000" + stateCode, key -> {
      AtomicLong value = new AtomicLong();
      Gauge.builder(BatcherMeter.FILES.micrometerName(), value, AtomicLong::get)
          .description(BatcherMeter.FILES.meaning())
          .tag("table", table)
          .tag("state", stateCode)
          .register(registry);
      return value;
    });
  }

  private AtomicReference<Instant> oldestReadyGauge(String table) {
    return oldestReady.computeIfAbsent(table, key -> {
      AtomicReference<Instant> since = new AtomicReference<>();
      Gauge.builder(BatcherMeter.OLDEST_READY_PARTITION_AGE.micrometerName(), since, this::ageSeconds)
          .description(BatcherMeter.OLDEST_READY_PARTITION_AGE.meaning())
          .baseUnit("seconds")
          .tag("table", table)
          .register(registry);
      return since;
    });
  }

  private double ageSeconds(AtomicReference<Instant> since) {
    return Optional.ofNullable(since.get())
        .map(at -> Math.max(0, Duration.between(at, clock.instant()).toMillis()) / 1000.0)
        .orElse(0.0);
  }
}
