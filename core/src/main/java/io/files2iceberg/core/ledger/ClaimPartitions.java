package io.files2iceberg.core.ledger;

import io.files2iceberg.core.ledger.rules.ClaimWalk;
import java.time.Duration;
import java.util.Objects;

/**
 * Command: claim READY partitions of one table into a new batch.
 *
 * @param maxFiles at least 1
 * @param maxBytes the most bytes of files (their recorded sizes) the batch takes, at least 1, but
 *     never fewer than one file; {@link ClaimWalk#NO_BYTE_CAP} for none
 * @param lease how long the batch is held before recovery may take it over
 * @param exclusive claim nothing while the table has a batch in flight
 */
public record ClaimPartitions(String table, int maxFiles, Duration lease, boolean exclusive, long maxBytes) {
  /** A claim capped by files only. */
  public ClaimPartitions(String table, int maxFiles, Duration lease, boolean exclusive) {
    this(table, maxFiles, lease, exclusive, ClaimWalk.NO_BYTE_CAP);
  }

  public ClaimPartitions {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(lease, "lease");
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1, was " + maxFiles);
    }
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be at least 1, was " + maxBytes);
    }
  }
}
