package io.files2iceberg.core.ledger.rules;

import io.files2iceberg.core.ledger.PartitionRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

  /**
   * A whole walk's outcome: the partitions to settle (INGESTED), the one to take whole (if any) and
   * those to supersede, in token order.
   */
  public record Plan(List<PartitionRecord> settled, Optional<PartitionRecord> taken, List<PartitionRecord> superseded) {}

  /**
   * The walk over every READY partition at once, for a store that knows which have files pending.
   *
   * @param ready the table's READY partitions in token order (oldest first)
   * @param pending the tokens of those with RECORDED files
   */
  public static Plan plan(List<PartitionRecord> ready, Set<String> pending) {
    NewestClaimWalk walk = new NewestClaimWalk();
    List<PartitionRecord> settled = new ArrayList<>();
    List<PartitionRecord> superseded = new ArrayList<>();
    PartitionRecord taken = null;
    for (int i = ready.size() - 1; i >= 0; i--) {
      PartitionRecord partition = ready.get(i);
      switch (walk.offer(!walk.hasTaken() && pending.contains(partition.partition()))) {
        case SETTLE -> settled.add(0, partition);
        case TAKE -> taken = partition;
        case SUPERSEDE -> superseded.add(0, partition);
      }
    }
    return new Plan(settled, Optional.ofNullable(taken), superseded);
  }

  /** Whether a partition was taken: every later offer is superseded without asking for its files. */
  public boolean hasTaken() {
    return taken;
  }
}
