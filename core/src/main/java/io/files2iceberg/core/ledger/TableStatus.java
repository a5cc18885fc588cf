package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One table at a glance.
 *
 * @param partitionsByState every state present, with its count
 * @param filesByState every state present, with its count
 * @param inFlight PLANNED and RUNNING batches
 * @param lastCommitted the newest COMMITTED batch
 * @param oldestReadyAt when the oldest READY partition became ready (the lag)
 * @param failedPartitions FAILED partitions, with their last error
 * @param failedBatches the newest FAILED batches (at most 10)
 */
public record TableStatus(
    String table,
    Map<PartitionState, Long> partitionsByState,
    Map<FileState, Long> filesByState,
    List<BatchRecord> inFlight,
    Optional<BatchRecord> lastCommitted,
    Optional<Instant> oldestReadyAt,
    List<PartitionRecord> failedPartitions,
    List<BatchRecord> failedBatches) {}
