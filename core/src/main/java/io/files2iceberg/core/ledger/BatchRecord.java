package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A stored batch.
 *
 * @param partitions the partition tokens it claimed, sorted
 * @param fileIds its files in claim order
 * @param eventIds the Pub/Sub message ids of its files, in claim order (the checkpoint)
 * @param attempts launches since it was claimed or last revived: recovery gives up on it at
 *     {@code job.max-attempts}
 * @param launches launches since it was claimed, across revivals (a revival does not reset it): the
 *     number of its latest launch, which names that launch's job (the Dataproc batch
 *     {@code f2i-<id>-a<n>}), so a launch never reuses an earlier launch's job
 * @param outcomeUnknown it gave up without knowing whether its job committed (the table may hold
 *     it): set by {@link Ledger#failBatch}, kept by {@link Ledger#reviveBatch}, cleared by {@link
 *     Ledger#commitBatch}
 * @param leaseUntil when recovery may take it over (in flight only)
 * @param error the human reason of its latest failure
 * @param cause the error class and the file at fault of its latest failure, when the job classified it
 */
public record BatchRecord(
    String batchId,
    String table,
    BatchState state,
    List<String> partitions,
    List<String> fileIds,
    List<String> eventIds,
    int attempts,
    int launches,
    boolean outcomeUnknown,
    Optional<Instant> leaseUntil,
    Optional<Long> snapshotId,
    Optional<BatchMetrics> metrics,
    Optional<String> error,
    Optional<FailureCause> cause,
    Instant createdAt,
    Instant updatedAt) {

  public BatchRecord {
    Objects.requireNonNull(cause, "cause");
    partitions = List.copyOf(partitions);
    fileIds = List.copyOf(fileIds);
    eventIds = List.copyOf(eventIds);
  }

  /** A batch without a classified failure cause. */
  public BatchRecord(String batchId, String table, BatchState state, List<String> partitions, List<String> fileIds,
      List<String> eventIds, int attempts, int launches, boolean outcomeUnknown, Optional<Instant> leaseUntil,
      Optional<Long> snapshotId, Optional<BatchMetrics> metrics, Optional<String> error, Instant createdAt,
      Instant updatedAt) {
    this(batchId, table, state, partitions, fileIds, eventIds, attempts, launches, outcomeUnknown, leaseUntil,
        snapshotId, metrics, error, Optional.empty(), createdAt, updatedAt);
  }
}
