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
 * @param ingestedAt when its batch committed: set when it becomes INGESTED, cleared with its
 *     snapshot; empty for a file loaded before the ledger recorded it (landing cleanup leaves such
 *     a file alone)
 * @param cleaned what landing cleanup did to its object ({@link CleanedObject}); empty while the
 *     object is where it landed. Kept through every later state: a reload reads the archive, or
 *     is refused when the object was deleted
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
    Optional<FileRows> rows,
    Optional<Instant> ingestedAt,
    Optional<CleanedObject> cleaned) {

  public FileRecord {
    Objects.requireNonNull(snapshotId, "snapshotId");
    Objects.requireNonNull(rows, "rows");
    Objects.requireNonNull(ingestedAt, "ingestedAt");
    Objects.requireNonNull(cleaned, "cleaned");
  }

  /** The same file, what cleanup did to its object being {@code cleaned}. */
  public FileRecord withCleaned(Optional<CleanedObject> cleaned) {
    return new FileRecord(fileId, table, partition, bucket, name, generation, uri, size, eventId, eventTime,
        overwroteGeneration, state, batchId, quarantineReason, recordedAt, snapshotId, rows, ingestedAt, cleaned);
  }

  /** A file not loaded yet: no snapshot, no counts, its object where it landed. */
  public FileRecord(String fileId, String table, String partition, String bucket, String name, long generation,
      String uri, long size, String eventId, Instant eventTime, Optional<Long> overwroteGeneration, FileState state,
      Optional<String> batchId, Optional<String> quarantineReason, Instant recordedAt) {
    this(fileId, table, partition, bucket, name, generation, uri, size, eventId, eventTime, overwroteGeneration, state,
        batchId, quarantineReason, recordedAt, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }
}
