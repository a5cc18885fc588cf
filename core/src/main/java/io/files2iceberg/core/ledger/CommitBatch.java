package io.files2iceberg.core.ledger;

import java.util.Objects;

/** Command: the checkpoint after the Iceberg commit. */
public record CommitBatch(String batchId, long snapshotId, BatchMetrics metrics) {
  public CommitBatch {
    Objects.requireNonNull(batchId, "batchId");
    Objects.requireNonNull(metrics, "metrics");
  }
}
