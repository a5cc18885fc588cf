package io.files2iceberg.core.manifest;

import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One file of a batch, as the job reads it.
 *
 * @param fileId the ledger's file id
 * @param uri where the file landed ({@code gs://} or {@code file:}): what its rows say they came
 *     from ({@code _source_file}), and what the job reads unless it was archived
 * @param partition the partition token (ISO {@code yyyy-MM-dd} for date partitions)
 * @param generation the object generation; among rows with one key and one precombine value the
 *     higher generation wins
 * @param size bytes
 * @param eventId the notification that recorded the file
 * @param eventTime when the object was finalized
 * @param archive where landing cleanup moved the object ({@code load.after-ingest.action = move}):
 *     the job reads this copy, checking its generation, instead of {@code uri}; empty when the
 *     object is where it landed
 */
public record ManifestFile(
    String fileId,
    String uri,
    String partition,
    long generation,
    long size,
    String eventId,
    Instant eventTime,
    Optional<Archive> archive) {

  public ManifestFile {
    Objects.requireNonNull(fileId, "fileId");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(eventTime, "eventTime");
    Objects.requireNonNull(archive, "archive");
  }

  /** A file where it landed. */
  public ManifestFile(String fileId, String uri, String partition, long generation, long size, String eventId,
      Instant eventTime) {
    this(fileId, uri, partition, generation, size, eventId, eventTime, Optional.empty());
  }

  /** The file as the ledger recorded it: read from its archive when cleanup moved it there. */
  public static ManifestFile of(FileRecord file) {
    Optional<Archive> archive = file.cleaned()
        .filter(cleaned -> cleaned.action() == CleanedObject.Action.ARCHIVED)
        .map(cleaned -> new Archive(cleaned.archiveUri().orElseThrow(), cleaned.archiveGeneration().orElseThrow()));
    return new ManifestFile(file.fileId(), file.uri(), file.partition(), file.generation(), file.size(),
        file.eventId(), file.eventTime(), archive);
  }

  /** What the job opens: the archive's copy when there is one, else {@link #uri}. */
  public String readUri() {
    return archive.map(Archive::uri).orElse(uri);
  }

  /** The generation the object the job opens must have: the archive copy's, else {@link #generation}. */
  public long readGeneration() {
    return archive.map(Archive::generation).orElse(generation);
  }

  /** The file as messages name it: its URI, and the copy read when it was archived. */
  public String described() {
    return archive.map(copy -> uri + " (archived at " + copy.uri() + ")").orElse(uri);
  }

  /**
   * An archived copy of the file.
   *
   * @param uri where the copy is
   * @param generation the copy's generation
   */
  public record Archive(String uri, long generation) {
    public Archive {
      Objects.requireNonNull(uri, "uri");
    }
  }
}
