package io.files2iceberg.listener.handle;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The listener's meters. Names are Micrometer's dotted names; Prometheus shows them with
 * {@code _} and a {@code _total} (counters) or {@code _seconds} (timers) suffix. Tag values are
 * bounded sets of codes, never object names.
 */
final class ListenerMetrics {
  static final String MESSAGES = ListenerMeter.MESSAGES.micrometerName();
  static final String DUPLICATES = ListenerMeter.DUPLICATES.micrometerName();
  static final String QUARANTINED = ListenerMeter.QUARANTINED.micrometerName();
  static final String PATTERN_MISMATCHES = ListenerMeter.PATTERN_MISMATCHES.micrometerName();
  static final String MARKER_LISTINGS = ListenerMeter.MARKER_LISTINGS.micrometerName();
  static final String LISTED_FILES = ListenerMeter.LISTED_FILES.micrometerName();
  static final String LEDGER_WRITES = ListenerMeter.LEDGER_WRITES.micrometerName();
  /** The {@code table} tag of a ledger write before the object matched a table (a quarantine). */
  static final String NO_TABLE = "none";
  /** The upper bounds of the ledger-write latency histogram's buckets. */
  static final List<Duration> LEDGER_WRITE_BUCKETS = ListenerMeter.LedgerWriteBuckets.BOUNDS;

  private final MeterRegistry registry;
  private final Counter duplicates;
  private final Counter markerListings;
  private final Counter listedFiles;

  ListenerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.duplicates =
        Counter.builder(DUPLICATES)
            .description(ListenerMeter.DUPLICATES.meaning())
            .register(registry);
    this.markerListings =
        Counter.builder(MARKER_LISTINGS)
            .description(ListenerMeter.MARKER_LISTINGS.meaning())
            .register(registry);
    this.listedFiles =
        Counter.builder(LISTED_FILES)
            .description(ListenerMeter.LISTED_FILES.meaning())
            .register(registry);
  }

  /** One handled message. */
  void handled(Outcome outcome, String reason) {
    Counter.builder(MESSAGES)
        .description(ListenerMeter.MESSAGES.meaning())
        .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
        .tag("reason", reason)
        .register(registry)
        .increment();
    if (outcome == Outcome.DUPLICATE) {
      duplicates.increment();
    }
  }

  void quarantined(QuarantineReason reason) {
    Counter.builder(QUARANTINED)
        .description(ListenerMeter.QUARANTINED.meaning())
        .tag("reason", reason.code())
        .register(registry)
        .increment();
  }

  /** A file of {@code table} that misses its pattern with strict-pattern off (a warning). */
  void patternMismatch(String table) {
    Counter.builder(PATTERN_MISMATCHES)
        .description(ListenerMeter.PATTERN_MISMATCHES.meaning())
        .tag("table", table)
        .register(registry)
        .increment();
  }

  void markerListed(int newFiles) {
    markerListings.increment();
    listedFiles.increment(newFiles);
  }

  /** Times one ledger write for {@code table}, whether it succeeds or throws. */
  <T> T ledgerWrite(String operation, String table, Supplier<T> write) {
    Timer timer =
        Timer.builder(LEDGER_WRITES)
            .description(ListenerMeter.LEDGER_WRITES.meaning())
            .tag("operation", operation)
            .tag("table", table)
            .serviceLevelObjectives(LEDGER_WRITE_BUCKETS.toArray(Duration[]::new))
            .register(registry);
    return timer.record(write);
  }
}
