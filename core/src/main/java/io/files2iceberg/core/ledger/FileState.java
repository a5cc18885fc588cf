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
  QUARANTINED("quarantined");

  private final String code;

  FileState(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  public Set<FileState> next() {
    return switch (this) {
      case RECORDED -> EnumSet.of(CLAIMED, QUARANTINED);
      case CLAIMED -> EnumSet.of(RECORDED, INGESTED, QUARANTINED);
      // INGESTED to RECORDED: replay --force loads a partition again.
      case INGESTED -> EnumSet.of(RECORDED);
      case QUARANTINED -> EnumSet.of(RECORDED);
    };
  }

  public boolean canMoveTo(FileState target) {
    return next().contains(target);
  }

  public static FileState fromCode(String code) {
    return States.fromCode(FileState.class, code, FileState::code);
  }
}
