package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.Optional;

/**
 * A stored partition.
 *
 * @param markerSeen its success marker has landed at least once
 * @param batchId the last batch that claimed it
 * @param attempts failed attempts since the last success
 * @param readyAt when it last became READY
 */
public record PartitionRecord(
    String table,
    String partition,
    Optional<String> prefix,
    PartitionState state,
    boolean markerSeen,
    Optional<String> batchId,
    int attempts,
    Optional<String> lastError,
    Optional<Instant> readyAt,
    Instant updatedAt) {}
