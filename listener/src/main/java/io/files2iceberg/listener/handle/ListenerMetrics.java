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
  static final String MESSAGES = "files2iceberg.listener.messages";
  static final String DUPLICATES = "files2iceberg.listener.duplicates";
  static final String QUARANTINED = "files2iceberg.listener.quarantined";
  static final String PATTERN_MISMATCHES = "files2iceberg.listener.pattern.mismatches";
  static final String MARKER_LISTINGS = "files2iceberg.listener.marker.listings";
  static final String LISTED_FILES = "files2iceberg.listener.listed.files";
  static final String LEDGER_WRITES = "files2iceberg.listener.ledger.writes";
  /** The {@code table} tag of a ledger write before the object matched a table (a quarantine). */
  static final String NO_TABLE = "none";
  /** The upper bounds of the ledger-write latency histogram's buckets. */
  static final List<Duration> LEDGER_WRITE_BUCKETS = List.of(Duration.ofMillis(5), Duration.ofMillis(10),
      Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
      Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
      Duration.ofSeconds(10));

  private final MeterRegistry registry;
  private final Counter duplicates;
  private final Counter markerListings;
  private final Counter listedFiles;

  ListenerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.duplicates =
        Counter.builder(DUPLICATES)
            .description("Notifications that changed nothing: a file generation already recorded, a marker of an ingested partition")
            .register(registry);
    this.markerListings =
        Counter.builder(MARKER_LISTINGS)
            .description("Partition folders listed when their success marker arrived")
            .register(registry);
    this.listedFiles =
        Counter.builder(LISTED_FILES)
            .description("Data files recorded from a marker's listing before their notification")
            .register(registry);
  }

  /** One handled message. */
  void handled(Outcome outcome, String reason) {
    Counter.builder(MESSAGES)
        .description("Messages handled, by outcome and reason")
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
        .description("Messages quarantined as never able to succeed, by reason")
        .tag("reason", reason.code())
        .register(registry)
        .increment();
  }

  /** A file of {@code table} that misses its pattern with strict-pattern off (a warning). */
  void patternMismatch(String table) {
    Counter.builder(PATTERN_MISMATCHES)
        .description("Files that match a profile's glob but not its pattern (strict-pattern off), quarantined")
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
            .description("Latency of the listener's ledger writes, by operation and table")
            .tag("operation", operation)
            .tag("table", table)
            .serviceLevelObjectives(LEDGER_WRITE_BUCKETS.toArray(Duration[]::new))
            .register(registry);
    return timer.record(write);
  }
}
