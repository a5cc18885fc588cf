package io.files2iceberg.core.ledger;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/** A partition's life. Stored by {@link #code()}, never by ordinal. */
public enum PartitionState {
  /** Files arriving, marker not seen yet. */
  OPEN("open"),
  /** Complete (marker seen, or success-file-filter off) with files pending. */
  READY("ready"),
  /** In a PLANNED or RUNNING batch. */
  CLAIMED("claimed"),
  /** Every recorded file landed (or was quarantined); nothing pending. */
  INGESTED("ingested"),
  /** Attempts exhausted; the last error is kept. */
  FAILED("failed"),
  /** Mode {@code last}: a newer partition was loaded instead. */
  SUPERSEDED("superseded"),
  /**
   * Held back by {@code rollback --hold}: its files wait as RECORDED, and no batch takes it until
   * {@code release} (or {@code retry --partition}) makes it READY, so a broken profile can be fixed
   * first.
   */
  HELD("held"),
  /**
   * Its rows were deleted by {@code drop-partition} and its loaded files are DROPPED. A late file
   * re-opens it for just that file, as for INGESTED; {@code replay --force} loads it all again.
   */
  DROPPED("dropped");

  /**
   * What an operator's retry takes back into the queue (attempts reset): FAILED, and READY (only
   * its attempts are reset). Also what a revived batch's partitions must be in.
   */
  public static final Set<PartitionState> RETRYABLE = Collections.unmodifiableSet(EnumSet.of(FAILED, READY));

  private final String code;

  PartitionState(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  public Set<PartitionState> next() {
    return switch (this) {
      case OPEN -> EnumSet.of(READY);
      // READY to INGESTED: a claim finds nothing pending (its files were quarantined, or the marker
      // landed for a folder without data files).
      case READY -> EnumSet.of(CLAIMED, INGESTED, SUPERSEDED, HELD, DROPPED);
      case CLAIMED -> EnumSet.of(READY, INGESTED, FAILED);
      // INGESTED, READY or FAILED to HELD: rollback --hold. To DROPPED: drop-partition.
      case INGESTED -> EnumSet.of(READY, HELD, DROPPED);
      case FAILED -> EnumSet.of(READY, HELD, DROPPED);
      case SUPERSEDED -> EnumSet.of(READY, HELD);
      case HELD -> EnumSet.of(READY, DROPPED);
      // DROPPED to INGESTED: a rollback undid the drop.
      case DROPPED -> EnumSet.of(READY, INGESTED, HELD);
    };
  }

  public boolean canMoveTo(PartitionState target) {
    return next().contains(target);
  }

  public static PartitionState fromCode(String code) {
    return States.fromCode(PartitionState.class, code, PartitionState::code);
  }
}
