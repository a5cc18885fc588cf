package io.files2iceberg.core.manifest;

import io.files2iceberg.core.ledger.FileRecord;
import java.time.Instant;
import java.util.Objects;

/**
 * One file of a batch, as the job reads it.
 *
 * @param fileId the ledger's file id
 * @param uri what the job reads ({@code gs://} or {@code file:})
 * @param partition the partition token (ISO {@code yyyy-MM-dd} for date partitions)
 * @param generation the object generation; among rows with one key and one precombine value the
 *     higher generation wins
 * @param size bytes
 * @param eventId the notification that recorded the file
 * @param eventTime when the object was finalized
 */
public record ManifestFile(
    String fileId,
    String uri,
    String partition,
    long generation,
    long size,
    String eventId,
    Instant eventTime) {

  public ManifestFile {
    Objects.requireNonNull(fileId, "fileId");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(eventTime, "eventTime");
  }

  /** The file as the ledger recorded it. */
  public static ManifestFile of(FileRecord file) {
    return new ManifestFile(file.fileId(), file.uri(), file.partition(), file.generation(), file.size(),
        file.eventId(), file.eventTime());
  }
}
