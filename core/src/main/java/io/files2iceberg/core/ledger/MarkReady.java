package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.Objects;

/**
 * Command: a partition's success marker landed.
 *
 * @param prefix the partition's folder, e.g. {@code gs://bucket/raw/clicks/dt=2024-01-01/}
 * @param eventId the marker's Pub/Sub message id
 */
public record MarkReady(String table, String partition, String prefix, String eventId, Instant eventTime) {
  public MarkReady {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(eventTime, "eventTime");
  }
}
