package io.files2iceberg.batcher.retry;

import io.files2iceberg.batcher.cli.NotInLedgerException;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * What {@code retry} does, read before anything changes so the operator sees the recorded errors
 * first: the batches it revives and the partitions it re-queues, each with its attempts and last
 * error, and the batch that failed it.
 *
 * <p>A FAILED batch that gave up without knowing whether its job committed ({@link
 * BatchRecord#outcomeUnknown}) is revived ({@link Ledger#reviveBatch}): relaunched under its own id by
 * the next batcher run, whose job finds it in the table's snapshots if it committed. Loading its
 * files in a new batch instead could put its rows in an Append table twice. Every other FAILED
 * partition is re-queued.
 *
 * @param batchId the FAILED batch named by {@code --batch}; empty for {@code --table} and {@code --all}
 * @param revivals the batches to revive, each once, in the order their partitions were met
 * @param targets the partitions to re-queue, by table then partition
 */
public record RetryPlan(Optional<String> batchId, List<Revival> revivals, List<Target> targets) {

  /** One partition to re-queue and the batch that last claimed it, when still stored. */
  public record Target(PartitionRecord partition, Optional<BatchRecord> batch) {}

  /** A batch to revive, with its partitions as stored now. */
  public record Revival(BatchRecord batch, List<PartitionRecord> partitions) {
    public Revival {
      partitions = List.copyOf(partitions);
    }
  }

  /** What {@link #apply} changed: the batches revived and the partitions re-queued, as stored now. */
  public record Applied(List<BatchRecord> revived, List<PartitionRecord> requeued) {
    public static final Applied NOTHING = new Applied(List.of(), List.of());

    public Applied {
      revived = List.copyOf(revived);
      requeued = List.copyOf(requeued);
    }
  }

  public RetryPlan {
    revivals = List.copyOf(revivals);
    targets = List.copyOf(targets);
  }

  public boolean isEmpty() {
    return revivals.isEmpty() && targets.isEmpty();
  }

  /** Batches revived plus partitions re-queued: the steps {@link #apply} reports progress on. */
  public int size() {
    return revivals.size() + targets.size();
  }

  /**
   * {@code --batch}: the batch itself when it gave up with an unknown outcome, else its partitions
   * that are still FAILED (or READY, their attempts counted).
   *
   * @throws NotInLedgerException when the batch is unknown
   * @throws IllegalArgumentException when the batch is not FAILED
   */
  public static RetryPlan ofBatch(Ledger ledger, String batchId) {
    BatchRecord batch = ledger.batch(batchId)
        .orElseThrow(() -> new NotInLedgerException("no batch " + batchId + " in the ledger"));
    if (batch.state() != BatchState.FAILED) {
      throw new IllegalArgumentException("batch " + batchId + " of table " + batch.table() + " is "
          + batch.state() + ", not FAILED: only a failed batch is retried");
    }
    if (batch.outcomeUnknown()) {
      return new RetryPlan(Optional.of(batchId), List.of(revival(ledger, batch)), List.of());
    }
    List<Target> targets = new ArrayList<>();
    for (String token : batch.partitions()) {
      ledger.partition(batch.table(), token)
          .filter(partition -> PartitionState.RETRYABLE.contains(partition.state()))
          .ifPresent(partition -> targets.add(new Target(partition, Optional.of(batch))));
    }
    return new RetryPlan(Optional.of(batchId), List.of(), targets);
  }

  /**
   * {@code --table [--partition]}: the table's FAILED partitions, or the one named when FAILED.
   *
   * @throws NotInLedgerException when the table or the partition is unknown
   */
  public static RetryPlan ofTable(Ledger ledger, String table, Optional<String> partition) {
    if (!ledger.tables().contains(table)) {
      throw new NotInLedgerException("no table " + table + " in the ledger");
    }
    List<PartitionRecord> failed;
    if (partition.isPresent()) {
      PartitionRecord record = ledger.partition(table, partition.get()).orElseThrow(() ->
          new NotInLedgerException("no partition " + partition.get() + " of table " + table + " in the ledger"));
      failed = record.state() == PartitionState.FAILED ? List.of(record) : List.of();
    } else {
      failed = ledger.tableStatus(table).failedPartitions();
    }
    return ofFailed(ledger, failed);
  }

  /** {@code --all}: every FAILED partition of every table. */
  public static RetryPlan ofAll(Ledger ledger) {
    List<PartitionRecord> failed = new ArrayList<>();
    for (String table : ledger.tables()) {
      failed.addAll(ledger.tableStatus(table).failedPartitions());
    }
    return ofFailed(ledger, failed);
  }

  /**
   * Revives the plan's batches (one transaction each), then re-queues its partitions: READY with
   * their attempts reset (one transaction each, except {@code --batch}: one for the whole batch).
   *
   * @param progress told how many steps (batches revived plus partitions re-queued) are done so far
   * @throws io.files2iceberg.core.ledger.IllegalTransitionException when one moved since it was read
   */
  public Applied apply(Ledger ledger, IntConsumer progress) {
    List<BatchRecord> revived = new ArrayList<>();
    for (Revival revival : revivals) {
      revived.add(ledger.reviveBatch(revival.batch().batchId()));
      progress.accept(revived.size());
    }
    if (batchId.isPresent() && revivals.isEmpty()) {
      List<PartitionRecord> retried = ledger.retryBatch(batchId.get());
      progress.accept(retried.size());
      return new Applied(revived, retried);
    }
    List<PartitionRecord> retried = new ArrayList<>();
    for (Target target : targets) {
      retried.add(ledger.retryPartition(target.partition().table(), target.partition().partition()));
      progress.accept(revived.size() + retried.size());
    }
    return new Applied(revived, retried);
  }

  /** Failed partitions whose last batch gave up with an unknown outcome revive it; the rest re-queue. */
  private static RetryPlan ofFailed(Ledger ledger, List<PartitionRecord> partitions) {
    Map<String, Optional<BatchRecord>> batches = new HashMap<>();
    Map<String, Revival> revivals = new LinkedHashMap<>();
    List<Target> targets = new ArrayList<>();
    for (PartitionRecord partition : partitions) {
      Optional<BatchRecord> batch = partition.batchId().flatMap(id -> batches.computeIfAbsent(id, ledger::batch));
      if (batch.filter(RetryPlan::revivable).isPresent()) {
        revivals.computeIfAbsent(batch.get().batchId(), id -> revival(ledger, batch.get()));
      } else {
        targets.add(new Target(partition, batch));
      }
    }
    return new RetryPlan(Optional.empty(), List.copyOf(revivals.values()), targets);
  }

  private static boolean revivable(BatchRecord batch) {
    return batch.state() == BatchState.FAILED && batch.outcomeUnknown();
  }

  private static Revival revival(Ledger ledger, BatchRecord batch) {
    List<PartitionRecord> partitions = new ArrayList<>();
    for (String token : batch.partitions()) {
      ledger.partition(batch.table(), token).ifPresent(partitions::add);
    }
    return new Revival(batch, partitions);
  }
}
