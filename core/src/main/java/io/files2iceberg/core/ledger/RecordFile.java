package io.files2iceberg.core.ledger;

import io.files2iceberg.core.match.ObjectLocation;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Command: record one data file of a partition.
 *
 * @param table the qualified Iceberg table
 * @param partition the partition token (ISO {@code yyyy-MM-dd} for date partitions)
 * @param bucket the bucket; empty for {@code file://} objects (see {@code ObjectLocation})
 * @param name the object name
 * @param generation the object generation
 * @param uri the object URI the job reads
 * @param size bytes
 * @param eventId the Pub/Sub message id, or a synthetic id for listed files
 * @param eventTime when the object was finalized
 * @param overwroteGeneration the generation this one replaced, if any
 * @param readyOnArrival success-file-filter off: the partition becomes READY at once
 */
public record RecordFile(
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
    boolean readyOnArrival) {

  public RecordFile {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(eventTime, "eventTime");
    Objects.requireNonNull(overwroteGeneration, "overwroteGeneration");
  }

  /**
   * The command for one object of a partition, as the listener (a notification, a marker's
   * listing), the batcher's listings and the operator commands record it.
   */
  public static RecordFile of(String table, String partition, ObjectLocation object, long generation, long size,
      String eventId, Instant eventTime, Optional<Long> overwroteGeneration, boolean readyOnArrival) {
    return new RecordFile(table, partition, object.bucket(), object.name(), generation, object.uri(), size, eventId,
        eventTime, overwroteGeneration, readyOnArrival);
  }

  public String fileId() {
    return LedgerSchema.fileId(bucket, name, generation);
  }
}
