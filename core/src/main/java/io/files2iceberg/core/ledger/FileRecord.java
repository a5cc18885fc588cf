package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A stored data file. {@code fileId} is {@link LedgerSchema#fileId}.
 *
 * @param quarantineReason why the file is left out: set while it is QUARANTINED, SUPERSEDED or
 *     IGNORED
 * @param snapshotId the Iceberg snapshot of the batch that loaded it: set when it becomes
 *     INGESTED, cleared when it forgets its batch (a replay)
 * @param rows what the job counted of its rows in that batch; empty when unknown (a file loaded
 *     before files were counted, or settled without the job's result), never 0 for unknown
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
    Instant recordedAt,
    Optional<Long> snapshotId,
    Optional<FileRows> rows) {

  public FileRecord {
    Objects.requireNonNull(snapshotId, "snapshotId");
    Objects.requireNonNull(rows, "rows");
  }

  /** A file not loaded yet: no snapshot, no counts. */
  public FileRecord(String fileId, String table, String partition, String bucket, String name, long generation,
      String uri, long size, String eventId, Instant eventTime, Optional<Long> overwroteGeneration, FileState state,
      Optional<String> batchId, Optional<String> quarantineReason, Instant recordedAt) {
    this(fileId, table, partition, bucket, name, generation, uri, size, eventId, eventTime, overwroteGeneration, state,
        batchId, quarantineReason, recordedAt, Optional.empty(), Optional.empty());
  }
}
