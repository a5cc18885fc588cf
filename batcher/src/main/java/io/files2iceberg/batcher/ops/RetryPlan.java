package io.files2iceberg.batcher.ops;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * What {@code retry} re-queues, read before anything changes so the operator sees the recorded
 * errors first: each partition with its attempts and last error, and the batch that failed it.
 *
 * @param batchId the FAILED batch named by {@code --batch}; empty for {@code --table} and {@code --all}
 * @param targets the partitions to re-queue, by table then partition
 */
public record RetryPlan(Optional<String> batchId, List<Target> targets) {

  /** Partition states {@link Ledger#retryBatch} re-queues. */
  private static final Set<PartitionState> REQUEUED = EnumSet.of(PartitionState.FAILED, PartitionState.READY);

  /** One partition to re-queue and the batch that last claimed it, when still stored. */
  public record Target(PartitionRecord partition, Optional<BatchRecord> batch) {}

  public RetryPlan {
    targets = List.copyOf(targets);
  }

  public boolean isEmpty() {
    return targets.isEmpty();
  }

  /**
   * {@code --batch}: the batch's partitions that are still FAILED (or READY, their attempts counted).
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
    List<Target> targets = new ArrayList<>();
    for (String token : batch.partitions()) {
      ledger.partition(batch.table(), token)
          .filter(partition -> REQUEUED.contains(partition.state()))
          .ifPresent(partition -> targets.add(new Target(partition, Optional.of(batch))));
    }
    return new RetryPlan(Optional.of(batchId), targets);
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
    return new RetryPlan(Optional.empty(), withBatches(ledger, failed));
  }

  /** {@code --all}: every FAILED partition of every table. */
  public static RetryPlan ofAll(Ledger ledger) {
    List<PartitionRecord> failed = new ArrayList<>();
    for (String table : ledger.tables()) {
      failed.addAll(ledger.tableStatus(table).failedPartitions());
    }
    return new RetryPlan(Optional.empty(), withBatches(ledger, failed));
  }

  /**
   * Re-queues the plan's partitions: READY with their attempts reset. Returns them as stored now.
   *
   * @param progress told how many are re-queued so far, after each one (one transaction each,
   *     except {@code --batch}: one for the whole batch)
   * @throws io.files2iceberg.core.ledger.IllegalTransitionException when one moved since it was read
   */
  public List<PartitionRecord> apply(Ledger ledger, IntConsumer progress) {
    if (batchId.isPresent()) {
      List<PartitionRecord> retried = ledger.retryBatch(batchId.get());
      progress.accept(retried.size());
      return retried;
    }
    List<PartitionRecord> retried = new ArrayList<>();
    for (Target target : targets) {
      retried.add(ledger.retryPartition(target.partition().table(), target.partition().partition()));
      progress.accept(retried.size());
    }
    return retried;
  }

  private static List<Target> withBatches(Ledger ledger, List<PartitionRecord> partitions) {
    Map<String, Optional<BatchRecord>> batches = new HashMap<>();
    List<Target> targets = new ArrayList<>();
    for (PartitionRecord partition : partitions) {
      Optional<BatchRecord> batch = partition.batchId().flatMap(id -> batches.computeIfAbsent(id, ledger::batch));
      targets.add(new Target(partition, batch));
    }
    return targets;
  }
}
