package io.files2iceberg.core.ledger.rules;

/**
 * The claim's walk over a table's READY partitions, oldest token first ({@link
 * io.files2iceberg.core.ledger.Ledger#claimPartitions}): offered each partition with its pending
 * files, it says what to do with it. Whole partitions are taken; the first one may be larger than
 * the cap and then yields its first files in claim order (the next claim continues the range); the
 * walk stops at the first later partition that does not fit. A partition with nothing pending is
 * settled (INGESTED) on the way.
 */
public final class ClaimWalk {
  /** What to do with the partition offered. */
  public enum Action {
    /** READY with nothing pending: INGESTED. */
    SETTLE,
    /** Claim its first {@link Step#files} pending files (in claim order) and the partition. */
    TAKE,
    /** Leave it and every later partition: the batch is complete. */
    STOP
  }

  /** The walk's answer for one partition; {@code files} is how many to take (TAKE only). */
  public record Step(Action action, int files) {
    static final Step SETTLE = new Step(Action.SETTLE, 0);
    static final Step STOP = new Step(Action.STOP, 0);
  }

  private final int maxFiles;
  private int taken;
  private int partitions;
  private boolean done;

  public ClaimWalk(int maxFiles) {
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1, was " + maxFiles);
    }
    this.maxFiles = maxFiles;
  }

  /** How many more files the batch takes: a store reads at most one more than this to tell if a partition fits. */
  public int room() {
    return maxFiles - taken;
  }

  /** Whether nothing more is taken: the store need not read further partitions. */
  public boolean isDone() {
    return done || room() < 1;
  }

  /** As {@link #offer(int, int)} with no bound of the store's own. */
  public Step offer(int pending) {
    return offer(pending, Integer.MAX_VALUE);
  }

  /**
   * @param pending the partition's RECORDED files (a store may count at most {@link #room()} + 1)
   * @param fitting how many of them, in claim order, fit the store's own bound on a batch (Firestore:
   *     the batch document's 1 MiB); the first partition always yields at least one file
   */
  public Step offer(int pending, int fitting) {
    if (isDone()) {
      return Step.STOP;
    }
    if (pending == 0) {
      return Step.SETTLE;
    }
    int take = Math.min(Math.min(pending, room()), fitting);
    if (partitions > 0 && take < pending) {
      done = true;
      return Step.STOP; // whole partitions only after the first; a later one must fit entirely
    }
    take = Math.max(take, 1);
    taken += take;
    partitions++;
    if (take < pending) {
      done = true;
    }
    return new Step(Action.TAKE, take);
  }

  /** Files taken so far. */
  public int taken() {
    return taken;
  }
}
