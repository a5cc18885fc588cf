package io.files2iceberg.core.ledger.service;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.NewestClaimWalk;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.Settling;
import io.files2iceberg.core.ledger.store.StoreReads;
import io.files2iceberg.core.ledger.store.StoreTransaction;
import io.files2iceberg.core.ledger.store.Subject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims: one loop per walk ({@link ClaimWalk}, {@link NewestClaimWalk}) pulling bounded reads from
 * the store. A transaction reads at most one commit's worth of partitions, a batch's file list
 * stays within what the store holds ({@link LedgerStore#maxFileListBytes()}), and a claim that
 * writes more than one commit holds leaves the batch owing its files (and the partitions it
 * supersedes) to {@link BatchTransitions#settle}.
 */
final class Claims {
  private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);
  private static final Set<BatchState> IN_FLIGHT = Set.of(BatchState.PLANNED, BatchState.RUNNING);

  private final LedgerStore store;
  private final Clock clock;
  private final BatchTransitions transitions;

  Claims(LedgerStore store, Clock clock, BatchTransitions transitions) {
    this.store = store;
    this.clock = clock;
    this.transitions = transitions;
  }

  Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    String table = command.table();
    transitions.settleTable(table);
    if (!hasReady("claimPartitions", table)) {
      return Optional.empty();
    }
    Optional<Created> created = store.write("claimPartitions", Subject.table(table), tx -> {
      if (command.exclusive() && tx.hasBatchIn(table, IN_FLIGHT) || isChanging(tx, table)) {
        return Optional.<Created>empty();
      }
      Instant now = now();
      int limit = store.writesPerCommit();
      // Reads first, then the writes. Every partition walked costs a write in this commit (its
      // files may come after it), so more than one commit's worth is never read.
      List<PartitionRecord> ready = tx.partitionsIn(table, PartitionState.READY,
          transitions.bounded() ? limit - 1 : StoreReads.ALL);
      ClaimWalk walk = new ClaimWalk(command.maxFiles(), command.maxBytes());
      List<PartitionRecord> claimed = new ArrayList<>();
      List<PartitionRecord> settled = new ArrayList<>();
      List<FileRecord> files = new ArrayList<>();
      long listBytes = 0;
      for (PartitionRecord partition : ready) {
        if (walk.isDone() || !transitions.fits(2L + claimed.size() + settled.size())) {
          break;
        }
        // One more than fits tells whether the whole partition does.
        List<FileRecord> pending = tx.filesIn(table, partition.partition(), FileState.RECORDED,
            (int) Math.min(Integer.MAX_VALUE - 1, (long) walk.room() + 1));
        int fitting = 0;
        for (long bytes = listBytes; fitting < pending.size(); fitting++) {
          bytes += store.listedBytes(pending.get(fitting));
          if (bytes > store.maxFileListBytes()) {
            break;
          }
        }
        ClaimWalk.Step step = walk.capsBytes()
            ? walk.offerSizes(pending.stream().map(FileRecord::size).toList(), fitting)
            : walk.offer(pending.size(), fitting);
        if (step.action() == ClaimWalk.Action.STOP) {
          break;
        } else if (step.action() == ClaimWalk.Action.SETTLE) {
          settled.add(partition); // nothing to load (its files were quarantined, or a marker without files)
        } else {
          for (FileRecord file : pending.subList(0, step.files())) {
            files.add(file);
            listBytes += store.listedBytes(file);
          }
          claimed.add(partition);
        }
      }
      settled.forEach(p -> tx.putPartition(PartitionRules.settled(p, now)));
      if (claimed.isEmpty()) {
        return Optional.<Created>empty();
      }
      boolean inline = transitions.fits(1L + settled.size() + claimed.size() + files.size());
      return Optional.of(createBatch(tx, table, claimed, files, inline, List.of(), command.lease(), now));
    });
    Optional<BatchRecord> claimed = created.map(c -> settleCreated(c));
    // Logged once the transaction committed (its work may run more than once).
    claimed.ifPresent(batch -> LOG.info("Claimed batch {} of table {}: {} files in partitions {}",
        batch.batchId(), table, batch.fileIds().size(), batch.partitions()));
    return claimed;
  }

  Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    String table = command.table();
    transitions.settleTable(table);
    if (!hasReady("claimNewestPartition", table)) {
      return Optional.empty();
    }
    record Newest(Created created, List<String> superseded) {}
    Optional<Newest> newest = store.write("claimNewestPartition", Subject.table(table), tx -> {
      if (tx.hasBatchIn(table, IN_FLIGHT) || isChanging(tx, table)) {
        return Optional.<Newest>empty();
      }
      Instant now = now();
      // Reads first: every READY partition (oldest first), then the pending files of the newest ones.
      List<PartitionRecord> ready = tx.partitionsIn(table, PartitionState.READY, StoreReads.ALL);
      NewestClaimWalk walk = new NewestClaimWalk();
      List<PartitionRecord> settled = new ArrayList<>();
      int taken = -1;
      List<FileRecord> pending = List.of();
      for (int i = ready.size() - 1; i >= 0 && !walk.hasTaken(); i--) {
        pending = tx.filesIn(table, ready.get(i).partition(), FileState.RECORDED, StoreReads.ALL);
        if (walk.offer(!pending.isEmpty()) == NewestClaimWalk.Step.SETTLE) {
          settled.add(ready.get(i));
        } else {
          taken = i;
        }
      }
      List<PartitionRecord> older = taken < 0 ? List.of() : ready.subList(0, taken);
      boolean inline = transitions.fits(2L + settled.size() + older.size() + pending.size());
      // Settled partitions that do not fit this commit stay READY with nothing pending: newer than
      // the claimed one, they are settled by the next claim and supersede nothing.
      long room = transitions.bounded() ? store.writesPerCommit() - (taken < 0 ? 0 : 2) : Long.MAX_VALUE;
      settled.stream().limit(room).forEach(p -> tx.putPartition(PartitionRules.settled(p, now)));
      if (taken < 0) {
        return Optional.<Newest>empty();
      }
      List<String> superseded = new ArrayList<>();
      for (PartitionRecord partition : older) {
        PartitionRecord supersede = PartitionRules.superseded(partition, now);
        if (inline) {
          tx.putPartition(supersede);
        }
        superseded.add(supersede.partition());
      }
      Created created = createBatch(tx, table, List.of(ready.get(taken)), pending, inline,
          inline ? List.of() : superseded, command.lease(), now);
      return Optional.of(new Newest(created, superseded.stream().sorted().toList()));
    });
    Optional<NewestPartitionClaimed> claimed = newest.map(n ->
        new NewestPartitionClaimed(settleCreated(n.created()), n.superseded()));
    claimed.ifPresent(c -> LOG.info("Claimed batch {} of table {}: {} files of the newest partition {}; superseded {}",
        c.batch().batchId(), table, c.batch().fileIds().size(), c.batch().partitions().get(0), c.superseded()));
    return claimed;
  }

  /** A batch created by a claim's transaction; {@code owed}: its files (and supersedes) still to be written. */
  private record Created(BatchRecord batch, boolean owed) {}

  /** After the claim's commit: applies what it owes, if anything. */
  private BatchRecord settleCreated(Created created) {
    if (created.owed()) {
      transitions.reached("claimed", created.batch().batchId());
      transitions.settle(created.batch().batchId());
    }
    return created.batch();
  }

  /**
   * Whether the table has a READY partition, asked outside a transaction (after the settling: a
   * failure's last commit makes its partitions READY again). A batcher's turn claims every table,
   * and most have nothing READY: such a claim then takes no place among the writes the listener's
   * markers make. A partition that becomes READY just after is claimed by the next turn; the
   * transaction reads again whatever it claims.
   */
  private boolean hasReady(String operation, String table) {
    return store.read(operation, Subject.table(table),
        r -> !r.partitionsIn(table, PartitionState.READY, 1).isEmpty());
  }

  /**
   * The claim's writes, after its reads: the partitions CLAIMED by a new batch, the batch PLANNED,
   * and ({@code inline}) the files CLAIMED. Otherwise the batch owes the files' move and the older
   * partitions to supersede, which {@link BatchTransitions#settle} writes after this commit: until
   * then every reader takes the batch's files from its record, and its partitions are CLAIMED, so
   * no other claim can take them.
   */
  private Created createBatch(StoreTransaction tx, String table, List<PartitionRecord> partitions,
      List<FileRecord> files, boolean inline, List<String> superseding, Duration lease, Instant now) {
    String batchId = BatchRules.newBatchId(clock.instant());
    for (int position = 0; inline && position < files.size(); position++) {
      tx.putFile(FileRules.claimed(files.get(position), batchId), position);
    }
    List<String> tokens = new ArrayList<>();
    for (PartitionRecord partition : partitions) {
      tokens.add(tx.putPartition(PartitionRules.claimed(partition, batchId, now)).partition());
    }
    BatchRecord planned = BatchRules.planned(batchId, table, tokens, files.stream().map(FileRecord::fileId).toList(),
        files.stream().map(FileRecord::eventId).toList(), lease, now);
    BatchRecord written = inline ? tx.putBatch(planned)
        : tx.putBatch(planned, Optional.of(Settling.owing(FileState.CLAIMED, 0, superseding)));
    return new Created(written, !inline);
  }

  private Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }

  /**
   * Whether an operator's change of the table (a rollback, a dropped partition) is INTENDED: no
   * batch is claimed until it is applied or abandoned, so the table it plans from stays current.
   */
  private static boolean isChanging(StoreReads tx, String table) {
    return !tx.changesIn(table, TableChange.ChangeState.INTENDED).isEmpty();
  }
}
