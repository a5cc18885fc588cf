package io.files2iceberg.core.ledger.rules;

import io.files2iceberg.core.ledger.PartitionRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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

  /** A partition taken into the batch with its first {@code files} pending files. */
  public record Take(PartitionRecord partition, int files) {}

  /** A whole walk's outcome: the partitions to settle (INGESTED) and those to take, in token order. */
  public record Plan(List<PartitionRecord> settled, List<Take> taken) {}

  /**
   * The walk over every READY partition at once, for a store that counts the pending files of all
   * of them in one read.
   *
   * @param ready the table's READY partitions in token order
   * @param pending RECORDED files by partition token (absent: none)
   */
  public static Plan plan(List<PartitionRecord> ready, Map<String, Integer> pending, int maxFiles) {
    ClaimWalk walk = new ClaimWalk(maxFiles);
    List<PartitionRecord> settled = new ArrayList<>();
    List<Take> taken = new ArrayList<>();
    for (PartitionRecord partition : ready) {
      Step step = walk.offer(pending.getOrDefault(partition.partition(), 0));
      if (step.action() == Action.STOP) {
        break;
      } else if (step.action() == Action.SETTLE) {
        settled.add(partition);
      } else {
        taken.add(new Take(partition, step.files()));
      }
    }
    return new Plan(settled, taken);
  }

  /** Files taken so far. */
  public int taken() {
    return taken;
  }
}
