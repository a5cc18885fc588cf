package io.files2iceberg.core.ledger.rules;

import io.files2iceberg.core.ledger.PartitionRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The claim's walk over a table's READY partitions, oldest token first ({@link
 * io.files2iceberg.core.ledger.Ledger#claimPartitions}): offered each partition with its pending
 * files, it says what to do with it. The batch is capped by files ({@code extract.max-batch-size})
 * and by bytes ({@code extract.max-batch-bytes}, the files' sizes as their notifications or
 * listings gave them; a file of unknown size counts as none). The batch is filled up to the caps:
 * several small partitions share it, and the last partition taken may yield only its first files
 * in claim order (it stays READY, and the next claim, which takes it first since its token is the
 * oldest, continues the range). The first partition always yields at least one file, so that a
 * file larger than the byte cap still loads. A partition with nothing pending is settled
 * (INGESTED) on the way. (Overwrite modes take whole partitions: {@link NewestClaimWalk}.)
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

  /** No cap on bytes. */
  public static final long NO_BYTE_CAP = Long.MAX_VALUE;

  private final int maxFiles;
  private final long maxBytes;
  private int taken;
  private long takenBytes;
  private int partitions;
  private boolean done;

  public ClaimWalk(int maxFiles) {
    this(maxFiles, NO_BYTE_CAP);
  }

  /** @param maxBytes the most bytes of files a batch takes, but never fewer than one file */
  public ClaimWalk(int maxFiles, long maxBytes) {
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1, was " + maxFiles);
    }
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be at least 1, was " + maxBytes);
    }
    this.maxFiles = maxFiles;
    this.maxBytes = maxBytes;
  }

  /** Whether the walk needs the pending files' sizes ({@link #offerSizes}), that is caps bytes. */
  public boolean capsBytes() {
    return maxBytes != NO_BYTE_CAP;
  }

  /** How many more files the batch takes: a store reads at most one more than this to tell if a partition fits. */
  public int room() {
    return maxFiles - taken;
  }

  /** Whether nothing more is taken: the store need not read further partitions. */
  public boolean isDone() {
    return done || room() < 1;
  }

  /**
   * As {@link #offer(int, int)}, for a walk that caps bytes: the partition's pending files are
   * given by their sizes, in claim order.
   *
   * @param sizes the byte sizes of the partition's RECORDED files in claim order (a store may give
   *     at most {@link #room()} + 1); a negative size (unknown) counts as 0
   * @param fitting as in {@link #offer(int, int)}
   */
  public Step offerSizes(List<Long> sizes, int fitting) {
    int withinBytes = 0;
    long bytes = takenBytes;
    for (long size : sizes) {
      bytes = saturatedAdd(bytes, Math.max(0, size));
      if (bytes > maxBytes) {
        break;
      }
      withinBytes++;
    }
    Step step = offer(sizes.size(), Math.min(fitting, withinBytes));
    if (step.action() == Action.TAKE) {
      for (long size : sizes.subList(0, step.files())) {
        takenBytes = saturatedAdd(takenBytes, Math.max(0, size));
      }
      if (takenBytes >= maxBytes) {
        done = true;
      }
    }
    return step;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < a ? Long.MAX_VALUE : sum;
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
    if (partitions > 0 && take == 0) {
      done = true;
      return Step.STOP;
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
    return walk.plan(ready, partition -> walk.offer(pending.getOrDefault(partition.partition(), 0)));
  }

  /**
   * The walk over every READY partition at once, capped by files and bytes, for a store that reads
   * the sizes of all of them in one read.
   *
   * @param ready the table's READY partitions in token order
   * @param pendingSizes the sizes of the RECORDED files by partition token, each in claim order
   *     (absent: none)
   */
  public static Plan plan(List<PartitionRecord> ready, Map<String, List<Long>> pendingSizes, int maxFiles,
      long maxBytes) {
    ClaimWalk walk = new ClaimWalk(maxFiles, maxBytes);
    return walk.plan(ready, partition -> walk.offerSizes(pendingSizes.getOrDefault(partition.partition(), List.of()),
        Integer.MAX_VALUE));
  }

  private Plan plan(List<PartitionRecord> ready, java.util.function.Function<PartitionRecord, Step> offer) {
    List<PartitionRecord> settled = new ArrayList<>();
    List<Take> taken = new ArrayList<>();
    for (PartitionRecord partition : ready) {
      Step step = offer.apply(partition);
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
