package io.files2iceberg.core.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * Command: claim READY partitions of one table into a new batch.
 *
 * @param maxFiles at least 1
 * @param lease how long the batch is held before recovery may take it over
 * @param exclusive claim nothing while the table has a batch in flight
 */
public record ClaimPartitions(String table, int maxFiles, Duration lease, boolean exclusive) {
  public ClaimPartitions {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(lease, "lease");
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1, was " + maxFiles);
    }
  }
}
