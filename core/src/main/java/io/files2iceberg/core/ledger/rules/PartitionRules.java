package io.files2iceberg.core.ledger.rules;

import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.States;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;

/**
 * What each ledger call does to a partition, decided once for every store. Each function takes the
 * stored record and the time, checks the transition and returns the record to write: empty when
 * nothing changes (the store then writes nothing).
 */
public final class PartitionRules {
  private PartitionRules() {}

  /** A partition seen for the first time. */
  public static PartitionRecord created(String table, String partition, Optional<String> prefix, PartitionState state,
      boolean markerSeen, Instant now) {
    return new PartitionRecord(table, partition, prefix, state, markerSeen, Optional.empty(), 0, Optional.empty(),
        state == PartitionState.READY ? Optional.of(now) : Optional.empty(), now);
  }

  /**
   * A new file of the partition was recorded. Unknown: created (READY with {@code readyOnArrival},
   * else OPEN). INGESTED (or DROPPED) re-opens for just this file (the files already ingested, or
   * dropped, stay so and are never claimed again), as OPEN does with {@code readyOnArrival}; READY
   * and CLAIMED pick the file up on the next claim; FAILED, SUPERSEDED and HELD keep it RECORDED
   * until an operator acts.
   */
  public static Optional<PartitionRecord> onFileRecorded(Optional<PartitionRecord> stored, RecordFile file,
      Instant now) {
    if (stored.isEmpty()) {
      PartitionState state = file.readyOnArrival() ? PartitionState.READY : PartitionState.OPEN;
      return Optional.of(created(file.table(), file.partition(), Optional.empty(), state, false, now));
    }
    PartitionRecord partition = stored.get();
    if (isSettled(partition)
        || (partition.state() == PartitionState.OPEN && file.readyOnArrival())) {
      return Optional.of(ready(partition, "Cannot re-open partition " + name(partition), now));
    }
    return Optional.empty();
  }

  /**
   * The partition's success marker landed ({@link io.files2iceberg.core.ledger.Ledger#markReady}).
   *
   * @param pending whether the partition has RECORDED files (asked only of an INGESTED one)
   */
  public static Optional<PartitionRecord> onMarker(Optional<PartitionRecord> stored, MarkReady marker,
      boolean pending, Instant now) {
    if (stored.isEmpty()) {
      // The marker came first: files recorded later join the READY partition.
      return Optional.of(created(marker.table(), marker.partition(), Optional.of(marker.prefix()),
          PartitionState.READY, true, now));
    }
    PartitionRecord partition = stored.get();
    return switch (partition.state()) {
      case OPEN -> Optional.of(ready(marked(partition, marker, now), "Cannot mark partition " + name(partition), now));
      case READY, CLAIMED -> partition.markerSeen() && partition.prefix().equals(Optional.of(marker.prefix()))
          ? Optional.empty() : Optional.of(marked(partition, marker, now));
      case INGESTED, DROPPED -> pending
          ? Optional.of(ready(marked(partition, marker, now), "Cannot mark partition " + name(partition), now))
          : Optional.empty();
      // An operator decides; a repeated marker does not retry a failed partition, nor releases a held one.
      case FAILED, SUPERSEDED, HELD -> Optional.empty();
    };
  }

  /** A READY partition a claim finds with nothing pending: INGESTED. */
  public static PartitionRecord settled(PartitionRecord partition, Instant now) {
    return moved(partition, "Cannot settle partition " + name(partition), PartitionState.INGESTED, now);
  }

  /** Mode {@code last}: a READY partition older than the one claimed. */
  public static PartitionRecord superseded(PartitionRecord partition, Instant now) {
    return moved(partition, "Cannot supersede partition " + name(partition), PartitionState.SUPERSEDED, now);
  }

  /** A READY partition taken into a batch. */
  public static PartitionRecord claimed(PartitionRecord partition, String batchId, Instant now) {
    PartitionRecord claimed = moved(partition, "Cannot claim partition " + name(partition), PartitionState.CLAIMED, now);
    return with(claimed, claimed.state(), Optional.of(batchId), claimed.attempts(), claimed.lastError(),
        claimed.readyAt(), now);
  }

  /**
   * The batch committed: INGESTED, or READY again when files are still pending (a split partition,
   * or one that got late files while claimed), with the failed attempts reset. Empty when the
   * partition is no longer CLAIMED by the batch (another path moved it): it is left as it is.
   */
  public static Optional<PartitionRecord> afterCommit(PartitionRecord partition, String batchId, boolean pending,
      Instant now) {
    if (!isClaimedBy(partition, batchId)) {
      return Optional.empty();
    }
    PartitionState next = pending ? PartitionState.READY : PartitionState.INGESTED;
    return Optional.of(with(partition, next, partition.batchId(), 0, Optional.empty(),
        pending ? Optional.of(now) : partition.readyAt(), now));
  }

  /**
   * The batch failed: READY again with one more attempt counted, or FAILED once {@code maxAttempts}
   * is reached; the error kept. Empty when the partition is no longer CLAIMED by the batch.
   */
  public static Optional<PartitionRecord> afterFailure(PartitionRecord partition, String batchId, String error,
      int maxAttempts, Instant now) {
    if (!isClaimedBy(partition, batchId)) {
      return Optional.empty();
    }
    int attempts = partition.attempts() + 1;
    boolean exhausted = attempts >= maxAttempts;
    return Optional.of(with(partition, exhausted ? PartitionState.FAILED : PartitionState.READY, partition.batchId(),
        attempts, Optional.of(error), exhausted ? partition.readyAt() : Optional.of(now), now));
  }

  /**
   * {@code retry}: FAILED to READY (or READY kept) with the attempts reset; the last error stays.
   * A HELD partition is released ({@link #released}).
   */
  public static PartitionRecord retried(PartitionRecord partition, String action, Instant now) {
    if (partition.state() == PartitionState.HELD) {
      return released(partition, now);
    }
    States.requireOneOf(action, partition.state(), PartitionState.RETRYABLE);
    Optional<Instant> readyAt = partition.state() == PartitionState.FAILED
        ? Optional.of(now) : Optional.of(partition.readyAt().orElse(now));
    return with(partition, PartitionState.READY, partition.batchId(), 0, partition.lastError(), readyAt, now);
  }

  /**
   * {@code replay --force}: an INGESTED, DROPPED or HELD partition READY again; a READY one
   * unchanged (empty).
   */
  public static Optional<PartitionRecord> reopened(PartitionRecord partition, Instant now) {
    if (partition.state() == PartitionState.READY) {
      return Optional.empty();
    }
    States.requireOneOf("Cannot reopen partition " + name(partition), partition.state(),
        EnumSet.of(PartitionState.INGESTED, PartitionState.DROPPED, PartitionState.HELD, PartitionState.READY));
    return Optional.of(with(partition, PartitionState.READY, partition.batchId(), partition.attempts(),
        partition.lastError(), Optional.of(now), now));
  }

  /** A revived batch's partition: FAILED or READY becomes CLAIMED by it with its attempts reset. */
  public static PartitionRecord revived(PartitionRecord partition, String batchId, String action, Instant now) {
    States.requireRevivable(action, partition.table(), partition.partition(), partition.state());
    return with(partition, PartitionState.CLAIMED, Optional.of(batchId), 0, partition.lastError(),
        partition.readyAt(), now);
  }

  /**
   * A rollback undid batches that loaded the partition's files, which are RECORDED again: READY for
   * the next batch, or HELD with {@code hold}. INGESTED, READY, FAILED, SUPERSEDED or DROPPED (its
   * drop undone too) move; a HELD one stays HELD; OPEN (never loaded) and CLAIMED (a batch in
   * flight, which a rollback refuses) are left alone (empty). Its attempts are reset: the rollback is
   * an operator's decision to load it again.
   */
  public static Optional<PartitionRecord> rolledBack(PartitionRecord partition, boolean hold, Instant now) {
    PartitionState target = hold ? PartitionState.HELD : PartitionState.READY;
    if (partition.state() == target || partition.state() == PartitionState.OPEN
        || partition.state() == PartitionState.CLAIMED || partition.state() == PartitionState.HELD) {
      return Optional.empty();
    }
    States.requireTransition("Cannot roll back partition " + name(partition), partition.state(), target,
        PartitionState::next);
    return Optional.of(with(partition, target, partition.batchId(), 0, partition.lastError(),
        target == PartitionState.READY ? Optional.of(now) : partition.readyAt(), now));
  }

  /**
   * A rollback undid the drop of a partition and no batch of it: DROPPED to INGESTED (its dropped
   * files are INGESTED again). Any other state is left alone (empty).
   */
  public static Optional<PartitionRecord> undropped(PartitionRecord partition, Instant now) {
    return partition.state() == PartitionState.DROPPED
        ? Optional.of(moved(partition, "Cannot undo the drop of partition " + name(partition),
            PartitionState.INGESTED, now))
        : Optional.empty();
  }

  /**
   * {@code drop-partition}: INGESTED, READY, FAILED or HELD to DROPPED; a DROPPED one unchanged
   * (empty). OPEN and CLAIMED are refused.
   */
  public static Optional<PartitionRecord> dropped(PartitionRecord partition, Instant now) {
    if (partition.state() == PartitionState.DROPPED) {
      return Optional.empty();
    }
    return Optional.of(moved(partition, "Cannot drop partition " + name(partition), PartitionState.DROPPED, now));
  }

  /** {@code release}: HELD to READY with its attempts reset. */
  public static PartitionRecord released(PartitionRecord partition, Instant now) {
    States.requireOneOf("Cannot release partition " + name(partition), partition.state(),
        EnumSet.of(PartitionState.HELD));
    return with(partition, PartitionState.READY, partition.batchId(), 0, partition.lastError(), Optional.of(now), now);
  }

  /** A file released from the quarantine: an INGESTED (or DROPPED) partition READY again for it, like a late file. */
  public static Optional<PartitionRecord> onFileReleased(PartitionRecord partition, Instant now) {
    return isSettled(partition)
        ? Optional.of(with(partition, PartitionState.READY, partition.batchId(), partition.attempts(),
            partition.lastError(), Optional.of(now), now))
        : Optional.empty();
  }

  /** INGESTED or DROPPED: nothing pending, every loaded file settled (in the table, or dropped from it). */
  private static boolean isSettled(PartitionRecord partition) {
    return partition.state() == PartitionState.INGESTED || partition.state() == PartitionState.DROPPED;
  }

  public static boolean isClaimedBy(PartitionRecord partition, String batchId) {
    return partition.state() == PartitionState.CLAIMED && partition.batchId().equals(Optional.of(batchId));
  }

  private static PartitionRecord ready(PartitionRecord partition, String action, Instant now) {
    States.requireTransition(action, partition.state(), PartitionState.READY, PartitionState::next);
    return with(partition, PartitionState.READY, partition.batchId(), partition.attempts(), partition.lastError(),
        Optional.of(now), now);
  }

  private static PartitionRecord marked(PartitionRecord partition, MarkReady marker, Instant now) {
    return new PartitionRecord(partition.table(), partition.partition(), Optional.of(marker.prefix()),
        partition.state(), true, partition.batchId(), partition.attempts(), partition.lastError(),
        partition.readyAt(), now);
  }

  private static PartitionRecord moved(PartitionRecord partition, String action, PartitionState target, Instant now) {
    States.requireTransition(action, partition.state(), target, PartitionState::next);
    return with(partition, target, partition.batchId(), partition.attempts(), partition.lastError(),
        partition.readyAt(), now);
  }

  private static PartitionRecord with(PartitionRecord p, PartitionState state, Optional<String> batchId, int attempts,
      Optional<String> lastError, Optional<Instant> readyAt, Instant now) {
    return new PartitionRecord(p.table(), p.partition(), p.prefix(), state, p.markerSeen(), batchId, attempts,
        lastError, readyAt, now);
  }

  private static String name(PartitionRecord partition) {
    return partition.table() + "/" + partition.partition();
  }
}
