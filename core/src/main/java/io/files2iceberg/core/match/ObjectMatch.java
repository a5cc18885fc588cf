package io.files2iceberg.core.match;

import io.files2iceberg.core.profile.TableProfile;
import java.util.Objects;
import java.util.Optional;

/**
 * What one object is to the pipeline: a data file of a partition, a partition's success marker,
 * something to skip, or a data problem that must not be skipped silently. Produced by {@link
 * ObjectMatcher}.
 */
public sealed interface ObjectMatch {

  /** The object this verdict is about. */
  ObjectLocation object();

  /** A file to load into {@code partition} of {@code profile}'s table. */
  record DataFile(
      TableProfile profile, PartitionRef partition, ObjectLocation object, long generation)
      implements ObjectMatch {
    public DataFile {
      Objects.requireNonNull(profile, "profile");
      Objects.requireNonNull(partition, "partition");
      Objects.requireNonNull(object, "object");
    }
  }

  /**
   * The success marker of {@code partition}: the partition is complete. Only produced when the
   * profile's {@code success-file-filter} is on.
   */
  record SuccessMarker(TableProfile profile, PartitionRef partition, ObjectLocation object)
      implements ObjectMatch {
    public SuccessMarker {
      Objects.requireNonNull(profile, "profile");
      Objects.requireNonNull(partition, "partition");
      Objects.requireNonNull(object, "object");
    }
  }

  /**
   * Not for the pipeline: acknowledge and move on.
   *
   * @param reason a sentence saying why, e.g. {@code matches no table profile}
   * @param profile the profile whose glob or folders the object is in, when there is one
   */
  record Ignored(ObjectLocation object, String reason, Optional<TableProfile> profile)
      implements ObjectMatch {
    public Ignored {
      Objects.requireNonNull(object, "object");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(profile, "profile");
    }
  }

  /**
   * Belongs to {@code profile} but cannot be placed in a partition: a data problem to quarantine
   * and report, never to skip silently.
   *
   * @param reason a sentence naming the object URI and the setting it violates
   * @param kind what the object fails
   */
  record Rejected(TableProfile profile, ObjectLocation object, String reason, Kind kind)
      implements ObjectMatch {
    public Rejected {
      Objects.requireNonNull(profile, "profile");
      Objects.requireNonNull(object, "object");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(kind, "kind");
    }

    /** What a rejected object fails. */
    public enum Kind {
      /** It matches the glob but not {@code extract.batch-file.pattern}. */
      PATTERN_MISMATCH,
      /** Its partition token does not parse with {@code extract.batch-file.date-format}. */
      UNPARSEABLE_DATE
    }

    /**
     * Whether the table's runs stop while this object stands: a pattern mismatch under {@code
     * strict-pattern = true} (the seed's "aborts the run if any scanned file fails the partition
     * regex check"). Any other rejection is quarantined and the table goes on.
     */
    public boolean stopsTheTable() {
      return kind == Kind.PATTERN_MISMATCH && profile.extract().batchFile().strictPattern();
    }
  }
}
