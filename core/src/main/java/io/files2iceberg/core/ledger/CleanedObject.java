package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What landing cleanup ({@code load.after-ingest}) did to a loaded file's object, recorded beside
 * the file's load state: the file stays INGESTED (its rows are in the table), and a reload of it (a
 * rollback, a replay) reads it from its archive, or is refused when it was deleted.
 *
 * <p>Cleanup writes the ledger first and touches the object after ({@link #removedAt} empty until
 * then), so that a crash in between leaves a file the next run finishes, never an object gone
 * that the ledger thinks is there.
 *
 * @param action what was done
 * @param archiveUri where an ARCHIVED object's copy is ({@code gs://} or {@code file:}); empty when
 *     DELETED
 * @param archiveGeneration the generation of that copy; empty when DELETED
 * @param cleanedAt when cleanup decided it
 * @param removedAt when the object was removed from where it landed (a delete or a move, with the
 *     file's generation as precondition); empty while that is still to do
 */
public record CleanedObject(
    Action action,
    Optional<String> archiveUri,
    Optional<Long> archiveGeneration,
    Instant cleanedAt,
    Optional<Instant> removedAt) {

  public CleanedObject {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(archiveUri, "archiveUri");
    Objects.requireNonNull(archiveGeneration, "archiveGeneration");
    Objects.requireNonNull(cleanedAt, "cleanedAt");
    Objects.requireNonNull(removedAt, "removedAt");
    boolean archived = action == Action.ARCHIVED;
    if (archived != archiveUri.isPresent() || archived != archiveGeneration.isPresent()) {
      throw new IllegalArgumentException("an ARCHIVED object has an archive URI and generation, a DELETED one"
          + " none: " + action + " " + archiveUri + " " + archiveGeneration);
    }
  }

  /** Copied to {@code archiveUri} (generation {@code archiveGeneration}); the original still to remove. */
  public static CleanedObject archived(String archiveUri, long archiveGeneration, Instant at) {
    return new CleanedObject(Action.ARCHIVED, Optional.of(archiveUri), Optional.of(archiveGeneration), at,
        Optional.empty());
  }

  /** To be deleted; the object still to remove. */
  public static CleanedObject deleted(Instant at) {
    return new CleanedObject(Action.DELETED, Optional.empty(), Optional.empty(), at, Optional.empty());
  }

  /** The same, its object removed from where it landed at {@code at}. */
  public CleanedObject removed(Instant at) {
    return new CleanedObject(action, archiveUri, archiveGeneration, cleanedAt, Optional.of(at));
  }

  /** What cleanup does to a loaded file's object. Stored by {@link #code()}, never by ordinal. */
  public enum Action {
    /** Moved to {@code load.after-ingest.move-to}; a reload reads the copy there. */
    ARCHIVED("archived"),
    /** Deleted; a reload that needs it is refused unless losing its rows is intended. */
    DELETED("deleted");

    private final String code;

    Action(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    public static Action fromCode(String code) {
      return States.fromCode(Action.class, code, Action::code);
    }
  }
}
