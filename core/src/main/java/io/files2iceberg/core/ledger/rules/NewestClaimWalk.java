package io.files2iceberg.core.ledger.rules;

/**
 * Mode {@code last}'s claim ({@link io.files2iceberg.core.ledger.Ledger#claimNewestPartition}), a
 * walk over a table's READY partitions, newest token first: the first with files pending is taken
 * whole (an overwrite of part of a partition would lose the rest), every older one superseded; a
 * newer one with nothing pending is settled (INGESTED) on the way.
 */
public final class NewestClaimWalk {
  /** What to do with the partition offered. */
  public enum Step {
    /** Nothing pending: INGESTED. */
    SETTLE,
    /** Claim it with every pending file. */
    TAKE,
    /** Older than the one taken: SUPERSEDED. */
    SUPERSEDE
  }

  private boolean taken;

  /**
   * @param pending whether the partition has RECORDED files (not asked once one is taken)
   */
  public Step offer(boolean pending) {
    if (taken) {
      return Step.SUPERSEDE;
    }
    if (!pending) {
      return Step.SETTLE;
    }
    taken = true;
    return Step.TAKE;
  }

  /** Whether a partition was taken: every later offer is superseded without asking for its files. */
  public boolean hasTaken() {
    return taken;
  }
}
