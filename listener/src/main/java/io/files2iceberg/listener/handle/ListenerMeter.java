package io.files2iceberg.listener.handle;

import io.files2iceberg.core.metrics.MeterDescription;
import java.time.Duration;
import java.util.List;

/**
 * Every meter of the listener's own on {@code /prometheus} (besides Micronaut's {@code
 * http_server_requests_seconds} and the JVM's): the one list {@link ListenerMetrics} registers from
 * and docs/reference/metrics.md is generated from. Names are Prometheus names as scraped.
 */
public enum ListenerMeter {
  MESSAGES("files2iceberg_listener_messages_total", "counter", List.of("outcome", "reason"),
      "Messages handled, by outcome (recorded, partition_ready, duplicate, ignored, quarantined, retry) and reason"
          + " code."),
  DUPLICATES("files2iceberg_listener_duplicates_total", "counter", List.of(),
      "Notifications that changed nothing: a file generation already recorded, a marker of an ingested partition."),
  QUARANTINED("files2iceberg_listener_quarantined_total", "counter", List.of("reason"),
      "Messages quarantined as never able to succeed, by reason code."),
  PATTERN_MISMATCHES("files2iceberg_listener_pattern_mismatches_total", "counter", List.of("table"),
      "Files that match a profile's glob but not its pattern (strict-pattern off), quarantined."),
  MARKER_LISTINGS("files2iceberg_listener_marker_listings_total", "counter", List.of(),
      "Partition folders listed when their success marker arrived."),
  LISTED_FILES("files2iceberg_listener_listed_files_total", "counter", List.of(),
      "Data files recorded from a marker's listing before their notification."),
  LEDGER_WRITES("files2iceberg_listener_ledger_writes_seconds", "histogram", List.of("operation", "table"),
      "Latency of the listener's ledger writes, by operation (record-file, record-files, mark-ready,"
          + " quarantine-message) and table (none before the object matched one). Buckets (le, seconds): "
          + MeterDescription.seconds(LedgerWriteBuckets.BOUNDS) + ", +Inf; also _count, _sum and _max."),
  AUTH_REJECTED("files2iceberg_listener_auth_rejected_total", "counter", List.of("reason"),
      "Push requests refused by the OIDC check (push authentication on), by reason (missing-token,"
          + " malformed-token, expired, wrong-issuer, wrong-audience, bad-signature, wrong-service-account,"
          + " email-not-verified, keys-unavailable); none of them reached the ledger."),
  PULL_REPLIES("files2iceberg_listener_pull_replies_total", "counter", List.of("reply"),
      "Messages of pull mode by the reply they got: ack, or nack for redelivery.");

  /** The upper bounds of {@link #LEDGER_WRITES}' buckets (a holder: enum constants are built before statics). */
  static final class LedgerWriteBuckets {
    static final List<Duration> BOUNDS = List.of(Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
        Duration.ofSeconds(10));

    private LedgerWriteBuckets() {}
  }

  private final MeterDescription description;

  ListenerMeter(String prometheusName, String type, List<String> labels, String meaning) {
    this.description = new MeterDescription(prometheusName, type, labels, meaning);
  }

  /** Its name, type, labels and meaning. */
  public MeterDescription description() {
    return description;
  }

  /** Its Micrometer name (dots, no {@code _total} or {@code _seconds}), as it is registered. */
  public String micrometerName() {
    return description.micrometerName();
  }

  String meaning() {
    return description.meaning();
  }

}
