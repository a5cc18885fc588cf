package io.files2iceberg.core.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * Command (mode {@code last}): claim the newest READY partition of one table, whole, and supersede
 * the older READY ones.
 *
 * @param lease how long the batch is held before recovery may take it over
 */
public record ClaimNewestPartition(String table, Duration lease) {
  public ClaimNewestPartition {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(lease, "lease");
  }
}
