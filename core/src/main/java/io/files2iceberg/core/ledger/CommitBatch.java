package io.files2iceberg.core.ledger;

import java.util.Map;
import java.util.Objects;

/**
 * Command: the checkpoint after the Iceberg commit.
 *
 * @param fileRows what the job counted per file, by file id; a file without an entry keeps its
 *     counts unknown (a result written before files were counted, or a commit found in the table
 *     without the job's result)
 */
public record CommitBatch(String batchId, long snapshotId, BatchMetrics metrics, Map<String, FileRows> fileRows) {
  public CommitBatch {
    Objects.requireNonNull(batchId, "batchId");
    Objects.requireNonNull(metrics, "metrics");
    fileRows = Map.copyOf(fileRows);
  }

  /** A checkpoint without per-file counts. */
  public CommitBatch(String batchId, long snapshotId, BatchMetrics metrics) {
    this(batchId, snapshotId, metrics, Map.of());
  }
}
