package io.files2iceberg.core.profile;

import java.util.Objects;
import java.util.Optional;

/**
 * How objects become partitions, and when a partition is ready.
 *
 * @param ingestionType incremental (event-driven, the default), last or full
 * @param partitionType date or string
 * @param pattern a regular expression with exactly one capture group, matched against the whole
 *     object URI (or, failing that, the object name); the group is the partition token. Empty: the
 *     object's parent folder below the glob's fixed prefix is the token
 * @param partitionColumn the column the job adds from the partition token, never empty: as set,
 *     else the pattern's named group, else the {@code name} of a {@code name=} just before the
 *     pattern's group, else {@code partition}
 * @param dateFormat a {@link java.time.format.DateTimeFormatter} pattern; required for date
 *     partitions
 * @param strictPattern a data file that matches the glob but not the pattern is an error, not a skip
 * @param successFileFilter a partition is ready only once its success marker has landed
 * @param successFileName the marker's object name inside the partition folder
 */
public record BatchFile(
    IngestionType ingestionType,
    PartitionType partitionType,
    Optional<String> pattern,
    String partitionColumn,
    Optional<String> dateFormat,
    boolean strictPattern,
    boolean successFileFilter,
    String successFileName) {

  public BatchFile {
    Objects.requireNonNull(partitionColumn, "partitionColumn");
    if (partitionColumn.isBlank()) {
      throw new IllegalArgumentException("partitionColumn must not be blank");
    }
  }

  /** What one run of the batcher loads. */
  public enum IngestionType {
    /** Every READY partition, once, through the ledger. */
    INCREMENTAL("incremental"),
    /** Only the newest READY partition, with overwrite; older READY ones are superseded. */
    LAST("last"),
    /** Every file matching the glob, listed on each run, with overwrite; no checkpoint. */
    FULL("full");

    private final String code;

    IngestionType(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** The type of the partition token and of the partition column the job adds. */
  public enum PartitionType {
    DATE("date"),
    STRING("string");

    private final String code;

    PartitionType(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }
}
