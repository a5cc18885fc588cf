package io.files2iceberg.sparkjob.maintain;

import java.time.Instant;

/**
 * A snapshot maintenance must keep, with every snapshot after it in the current ancestry: the
 * newest one carrying {@code files2iceberg.batch-id} = {@code batchId}.
 *
 * @param reason why the batch may still be looked up (from the ledger), for the operator
 */
record ProtectedSnapshot(String batchId, long snapshotId, Instant committedAt, String reason) {}
