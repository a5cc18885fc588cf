package io.files2iceberg.core.ledger;

import java.util.EnumSet;
import java.util.Set;

/** A data file's life. Stored by {@link #code()}, never by ordinal. */
public enum FileState {
  /** Known, waiting for its partition to be claimed. */
  RECORDED("recorded"),
  /** In a PLANNED or RUNNING batch. */
  CLAIMED("claimed"),
  /** Its batch committed. */
  INGESTED("ingested"),
  /** Unreadable; left out of batches until released. */
  QUARANTINED("quarantined"),
  /**
   * The generation was gone when its batch went to read it: the object was rewritten (the newer
   * generation, recorded from its own notification, carries its rows) or deleted (nothing does,
   * as the files say). Kept with the reason; settled for its partition; never read again.
   */
  SUPERSEDED("superseded"),
  /**
   * A new generation of an object whose older generation is INGESTED, left out because the table
   * says {@code extract.on-overwrite = ignore}. Kept with the reason; settled for its partition.
   */
  IGNORED("ignored"),
  /**
   * Its rows were deleted from the table by {@code drop-partition}. Kept with its batch; read again
   * only when asked ({@code replay --force}), or INGESTED again when a rollback undoes the drop.
   */
  DROPPED("dropped");

  private final String code;

  FileState(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  public Set<FileState> next() {
    return switch (this) {
      case RECORDED -> EnumSet.of(CLAIMED, QUARANTINED, SUPERSEDED, IGNORED);
      case CLAIMED -> EnumSet.of(RECORDED, INGESTED, QUARANTINED, SUPERSEDED, IGNORED);
      // INGESTED to RECORDED: replay --force loads a partition again, or a rollback undid its batch.
      // INGESTED to SUPERSEDED: a re-read of the partition (an Overwrite) finds the loaded
      // generation gone. INGESTED to DROPPED: drop-partition deleted its rows.
      case INGESTED -> EnumSet.of(RECORDED, SUPERSEDED, DROPPED);
      // DROPPED to RECORDED: replay --force, or a rollback undid its batch as well as the drop.
      // DROPPED to INGESTED: a rollback undid the drop alone, so its rows are back.
      case DROPPED -> EnumSet.of(RECORDED, INGESTED);
      case QUARANTINED -> EnumSet.of(RECORDED);
      // A generation never comes back, and an ignored one stays ignored: both are final.
      case SUPERSEDED, IGNORED -> EnumSet.noneOf(FileState.class);
    };
  }

  public boolean canMoveTo(FileState target) {
    return next().contains(target);
  }

  public static FileState fromCode(String code) {
    return States.fromCode(FileState.class, code, FileState::code);
  }
}
