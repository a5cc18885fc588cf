package io.files2iceberg.core.ledger;

import java.util.EnumSet;
import java.util.Set;

/** A batch's life. Stored by {@link #code()}, never by ordinal. */
public enum BatchState {
  PLANNED("planned"),
  RUNNING("running"),
  COMMITTED("committed"),
  FAILED("failed"),
  /**
   * Committed, then undone by {@code rollback}: the table no longer holds its rows and its files are
   * RECORDED again (or its partitions HELD). Final: its files load again in new batches.
   */
  ROLLED_BACK("rolled-back");

  private final String code;

  BatchState(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  /** RUNNING may follow RUNNING: a relaunch after an expired lease. */
  public Set<BatchState> next() {
    return switch (this) {
      case PLANNED -> EnumSet.of(RUNNING, COMMITTED, FAILED);
      case RUNNING -> EnumSet.of(RUNNING, COMMITTED, FAILED);
      case COMMITTED -> EnumSet.of(ROLLED_BACK);
      case ROLLED_BACK -> EnumSet.noneOf(BatchState.class);
      // FAILED to PLANNED: retry revives a batch that gave up with an unknown outcome, so that it is
      // relaunched under its own id (Ledger#reviveBatch).
      case FAILED -> EnumSet.of(PLANNED);
    };
  }

  public boolean canMoveTo(BatchState target) {
    return next().contains(target);
  }

  public boolean isInFlight() {
    return this == PLANNED || this == RUNNING;
  }

  public static BatchState fromCode(String code) {
    return States.fromCode(BatchState.class, code, BatchState::code);
  }
}
