package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.ledger.BatchCommitted;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchLoadReport.Checkpoint;
import io.files2iceberg.core.manifest.BatchLoadReport;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint after the Iceberg commit: the batch COMMITTED in the ledger with the snapshot id
 * and the metrics (its event ids are on the batch since the claim). It never undoes or retries the
 * Iceberg commit: when the ledger cannot be written, the table still holds the batch id, and the
 * batcher's recovery (or a re-run of this batch) finalizes the ledger from it.
 */
final class LedgerCheckpoint {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerCheckpoint.class);

  private final Optional<Ledger> ledger;

  /** @param ledger empty when the manifest says not to write a checkpoint */
  LedgerCheckpoint(Optional<Ledger> ledger) {
    this.ledger = ledger;
  }

  Result commit(String table, String batchId, long snapshotId, BatchMetrics metrics, Map<String, FileRows> fileRows) {
    if (ledger.isEmpty()) {
      LOG.info("Table {} batch {}: no checkpoint (the manifest says saveCheckpoint = false)", table, batchId);
      return new Result(Checkpoint.SKIPPED, Optional.empty());
    }
    try {
      BatchCommitted committed = ledger.get().commitBatch(new CommitBatch(batchId, snapshotId, metrics, fileRows));
      LOG.info("Table {} batch {}: checkpoint {} with snapshot {}", table, batchId,
          committed.alreadyCommitted() ? "was already committed" : "committed", snapshotId);
      return new Result(committed.alreadyCommitted() ? Checkpoint.ALREADY_COMMITTED : Checkpoint.COMMITTED,
          Optional.empty());
    } catch (RuntimeException e) {
      LOG.error("Table {} batch {}: snapshot {} is committed to Iceberg but the ledger checkpoint failed; recovery"
          + " will finalize it from the snapshot summary", table, batchId, snapshotId, e);
      return new Result(Checkpoint.FAILED, Optional.of(e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }

  record Result(Checkpoint checkpoint, Optional<String> error) {}
}
