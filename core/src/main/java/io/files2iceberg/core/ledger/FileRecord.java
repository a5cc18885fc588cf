package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.Optional;

/**
 * A stored data file. {@code fileId} is {@link LedgerSchema#fileId}.
 *
 * @param quarantineReason why the file is left out: set while it is QUARANTINED, SUPERSEDED or
 *     IGNORED
 */
public record FileRecord(
    String fileId,
    String table,
    String partition,
    String bucket,
    String name,
    long generation,
    String uri,
    long size,
    String eventId,
    Instant eventTime,
    Optional<Long> overwroteGeneration,
    FileState state,
    Optional<String> batchId,
    Optional<String> quarantineReason,
    Instant recordedAt) {}
