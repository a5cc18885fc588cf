package io.files2iceberg.core.ledger.service;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.TableChange.ChangeKind;
import io.files2iceberg.core.ledger.TableChange.ChangeState;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.StoreReads;
import io.files2iceberg.core.ledger.store.StoreTransaction;
import io.files2iceberg.core.ledger.store.Subject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' changes ({@link TableChange}): written down INTENDED, then applied to the ledger once
 * the table is changed, in steps that each fit one commit of the store and that a re-run repeats
 * harmlessly. Every step re-reads what it moves, so a run killed between two steps is finished by
 * the next {@link #apply} (claims of the table wait meanwhile: {@link Claims}).
 *
 * <p>The order within {@link #apply}: files first, then partitions, then batches, then the change
 * itself (APPLIED, in the last step). A file is reopened before its partition is made READY, so a
 * partition never becomes claimable with files of an undone batch still INGESTED.
 */
final class TableChanges {
  private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);
  private static final Set<BatchState> IN_FLIGHT = EnumSet.of(BatchState.PLANNED, BatchState.RUNNING);

  private final LedgerStore store;
  private final Clock clock;

  TableChanges(LedgerStore store, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  TableChange intend(TableChange change) {
    String action = "Cannot " + change.kind().code() + " table " + change.table();
    if (change.state() != ChangeState.INTENDED) {
      throw new IllegalArgumentException(action + ": a new change is INTENDED, got " + change.state());
    }
    TableChange written = store.write("intendChange", Subject.table(change.table()), tx -> {
      Optional<TableChange> same = tx.change(change.changeId());
      if (same.isPresent()) {
        if (!same.get().table().equals(change.table()) || same.get().kind() != change.kind()) {
          throw new IllegalArgumentException(action + ": change id " + change.changeId() + " is taken by "
              + same.get().kind().code() + " of table " + same.get().table());
        }
        return same.get();
      }
      for (TableChange open : tx.changesIn(change.table(), ChangeState.INTENDED)) {
        throw new IllegalTransitionException(action + ": " + open.kind().code() + " " + open.changeId()
            + " (asked by " + open.actor() + " at " + open.createdAt() + ") is unfinished; run it again to finish it,"
            + " or abandon it first");
      }
      for (BatchState state : IN_FLIGHT) {
        for (BatchRecord batch : tx.batchesIn(change.table(), state)) {
          throw new IllegalTransitionException(action + ": batch " + batch.batchId() + " is " + state
              + "; wait for it to settle (status --table " + change.table() + ")");
        }
      }
      if (change.kind() == ChangeKind.DROP_PARTITION) {
        for (String token : change.partitions()) {
          PartitionRecord partition = tx.partition(change.table(), token).orElseThrow(() ->
              new IllegalArgumentException(action + ": no partition " + token + " in the ledger"));
          if (partition.state() == PartitionState.OPEN || partition.state() == PartitionState.CLAIMED) {
            throw new IllegalTransitionException(action + ": partition " + token + " is " + partition.state()
                + "; a partition can be dropped once it was loaded (INGESTED, READY, FAILED or HELD)");
          }
        }
      }
      return tx.putChange(change);
    });
    LOG.info("Table {}: {} {} intended by {}{}", change.table(), change.kind().code(), change.changeId(),
        change.actor(), change.reason().map(r -> " (" + r + ")").orElse(""));
    return written;
  }

  TableChange abandon(String changeId, String why) {
    TableChange abandoned = store.write("abandonChange", Subject.other("change " + changeId), tx -> {
      TableChange change = require(tx, changeId);
      return tx.putChange(change.moved(ChangeState.ABANDONED, Optional.of(why), now()));
    });
    LOG.info("Table {}: {} {} abandoned: {}", abandoned.table(), abandoned.kind().code(), changeId, why);
    return abandoned;
  }

  /** The ledger side of an INTENDED change whose table side is done; an APPLIED one is returned as it is. */
  TableChange apply(String changeId) {
    TableChange change = store.read("applyChange", Subject.other("change " + changeId), reads -> require(reads, changeId));
    if (change.state() == ChangeState.APPLIED) {
      return change;
    }
    if (change.state() != ChangeState.INTENDED) {
      throw new IllegalTransitionException("Cannot apply " + change.kind().code() + " " + changeId + " of table "
          + change.table() + ": expected state INTENDED, actual " + change.state());
    }
    TableChange applied = change.kind() == ChangeKind.ROLLBACK ? applyRollback(change) : applyDrop(change);
    LOG.info("Table {}: {} {} applied to the ledger: {}", applied.table(), applied.kind().code(), changeId,
        applied.outcome().orElse(""));
    return applied;
  }

  PartitionRecord release(String table, String partition) {
    String action = "Cannot release partition " + table + "/" + partition;
    return store.write("releasePartition", Subject.partition(table, partition), tx -> {
      PartitionRecord stored = tx.partition(table, partition)
          .orElseThrow(() -> new IllegalArgumentException(action + ": no such partition"));
      return tx.putPartition(PartitionRules.released(stored, now()));
    });
  }

  // --- rollback -----------------------------------------------------------------------------------

  private TableChange applyRollback(TableChange change) {
    Set<String> undone = new HashSet<>(change.batchIds());
    // The change's partitions, and those of the files reopened (a pruned batch's are known only so).
    Set<String> partitions = new LinkedHashSet<>(change.partitions());
    int reopened = 0;
    int undropped = 0;
    // Files of the undone batches (pruned ones too: their files still carry the batch id) that are
    // still INGESTED, or DROPPED since, load again.
    int superseded = 0;
    // A step's files moved, and how many of them became SUPERSEDED (their object deleted by cleanup).
    record Moved(int files, int superseded) {}
    for (String batchId : change.batchIds()) {
      while (true) {
        Moved moved = step(change, tx -> {
          List<FileRecord> toMove = new ArrayList<>();
          // The batch's files by id, read in this transaction (a store may list them outside it).
          List<String> ids = tx.filesOfBatch(batchId).stream().map(FileRecord::fileId).toList();
          for (FileRecord file : tx.files(ids)) {
            boolean loadedByIt = file.batchId().equals(Optional.of(batchId));
            if (loadedByIt && (file.state() == FileState.INGESTED || file.state() == FileState.DROPPED)
                && toMove.size() < perCommit()) {
              toMove.add(file);
            }
          }
          int lost = 0;
          for (FileRecord file : toMove) {
            Optional<FileRecord> again = FileRules.reopened(file);
            again.ifPresent(tx::putFile);
            lost += again.filter(f -> f.state() == FileState.SUPERSEDED).isPresent() ? 1 : 0;
          }
          toMove.forEach(file -> partitions.add(file.partition()));
          return new Moved(toMove.size(), lost);
        });
        reopened += moved.files() - moved.superseded();
        superseded += moved.superseded();
        if (moved.files() < perCommit()) {
          break;
        }
      }
    }
    // Files dropped by an undone drop, whose batch is not undone: their rows are back.
    List<String> droppedTokens = droppedPartitions(change);
    for (String token : droppedTokens) {
      while (true) {
        int moved = step(change, tx -> {
          List<FileRecord> dropped = tx.filesIn(change.table(), token, FileState.DROPPED, perCommit()).stream()
              .filter(f -> f.batchId().map(b -> !undone.contains(b)).orElse(true)).toList();
          dropped.forEach(file -> FileRules.undropped(file).ifPresent(tx::putFile));
          return dropped.size();
        });
        undropped += moved;
        if (moved < perCommit()) {
          break;
        }
      }
    }
    // Partitions: READY (or HELD) when they have files to load again, INGESTED when a drop of them
    // was undone and nothing of them is to load.
    partitions.addAll(droppedTokens);
    List<String> tokens = List.copyOf(partitions);
    for (int from = 0; from < tokens.size(); from += perCommit()) {
      List<String> chunk = tokens.subList(from, Math.min(tokens.size(), from + perCommit()));
      step(change, tx -> {
        List<PartitionRecord> updated = new ArrayList<>();
        for (PartitionRecord partition : tx.partitions(change.table(), chunk)) {
          boolean pending = !tx.filesIn(change.table(), partition.partition(), FileState.RECORDED, 1).isEmpty();
          Optional<PartitionRecord> undroppedPartition = pending ? Optional.empty()
              : PartitionRules.undropped(partition, now());
          (pending ? PartitionRules.rolledBack(partition, change.hold(), now()) : undroppedPartition)
              .ifPresent(updated::add);
        }
        updated.forEach(tx::putPartition);
        return updated.size();
      });
    }
    // The batches, and last the change itself.
    List<String> batchIds = change.batchIds();
    int rolledBackBatches = 0;
    // The undone batches the ledger still holds, for the change event (their snapshots, partitions).
    List<BatchRecord> undoneBatches = new ArrayList<>();
    for (int from = 0; from < batchIds.size(); from += perCommit()) {
      List<String> chunk = batchIds.subList(from, Math.min(batchIds.size(), from + perCommit()));
      rolledBackBatches += step(change, tx -> {
        List<BatchRecord> moved = new ArrayList<>();
        for (String batchId : chunk) {
          Optional<BatchRecord> read = tx.batch(batchId).map(stored -> stored.batch());
          read.ifPresent(undoneBatches::add);
          read.filter(batch -> batch.state() == BatchState.COMMITTED)
              .ifPresent(batch -> moved.add(rolledBack(batch)));
        }
        moved.forEach(tx::putBatch);
        return moved.size();
      });
    }
    String outcome = reopened + " file(s) to load again"
        + (superseded > 0 ? ", " + superseded + " file(s) superseded (their objects deleted by landing cleanup)" : "")
        + (undropped > 0 ? ", " + undropped + " dropped file(s) back in the table" : "") + ", "
        + rolledBackBatches + " batch(es) rolled back" + (change.hold() ? ", partitions held" : "");
    List<TableChange> undoneDrops = undoneDrops(change);
    return step(change, tx -> applied(tx, require(tx, change.changeId())
        .moved(ChangeState.APPLIED, Optional.of(outcome), now()), undoneBatches, undoneDrops));
  }

  /** The change APPLIED and its event, in the same commit (the outbox): the change's last step. */
  private static TableChange applied(StoreTransaction tx, TableChange applied, List<BatchRecord> undoneBatches,
      List<TableChange> undoneDrops) {
    tx.putEvent(ChangeEvent.applied(applied, undoneBatches, undoneDrops));
    return tx.putChange(applied);
  }

  private BatchRecord rolledBack(BatchRecord b) {
    return new BatchRecord(b.batchId(), b.table(), BatchState.ROLLED_BACK, b.partitions(), b.fileIds(), b.eventIds(),
        b.attempts(), b.launches(), b.outcomeUnknown(), b.leaseUntil(), b.snapshotId(), b.metrics(), b.error(),
        b.cause(), b.createdAt(), now());
  }

  /** The partitions dropped by the drops the rollback undoes. */
  private List<String> droppedPartitions(TableChange change) {
    return undoneDrops(change).stream().flatMap(drop -> drop.partitions().stream()).toList();
  }

  /** The drops the rollback undoes (those applied). */
  private List<TableChange> undoneDrops(TableChange change) {
    if (change.undoneChanges().isEmpty()) {
      return List.of();
    }
    return store.read("applyChange", Subject.table(change.table()), reads -> {
      List<TableChange> drops = new ArrayList<>();
      for (String id : change.undoneChanges()) {
        reads.change(id).filter(c -> c.kind() == ChangeKind.DROP_PARTITION && c.state() == ChangeState.APPLIED)
            .ifPresent(drops::add);
      }
      return drops;
    });
  }

  // --- drop-partition -----------------------------------------------------------------------------

  private TableChange applyDrop(TableChange change) {
    String reason = "dropped by drop-partition " + change.changeId();
    int dropped = 0;
    for (String token : change.partitions()) {
      while (true) {
        int moved = step(change, tx -> {
          List<FileRecord> ingested = tx.filesIn(change.table(), token, FileState.INGESTED, perCommit());
          ingested.forEach(file -> FileRules.dropped(file, reason).ifPresent(tx::putFile));
          return ingested.size();
        });
        dropped += moved;
        if (moved < perCommit()) {
          break;
        }
      }
    }
    int files = dropped;
    return step(change, tx -> {
      List<PartitionRecord> partitions = tx.partitions(change.table(), change.partitions());
      TableChange done = tx.change(change.changeId()).orElseThrow();
      partitions.forEach(p -> PartitionRules.dropped(p, now()).ifPresent(tx::putPartition));
      return applied(tx, done.moved(ChangeState.APPLIED,
          Optional.of(files + " file(s) dropped in " + change.partitions().size() + " partition(s)"), now()),
          List.of(), List.of());
    });
  }

  // -----------------------------------------------------------------------------------------------

  /** One step of applying the change, in a transaction that first checks it is still INTENDED. */
  private <T> T step(TableChange change, LedgerStore.Work<T> work) {
    return store.write("applyChange", Subject.table(change.table()), tx -> {
      TableChange stored = require(tx, change.changeId());
      if (stored.state() != ChangeState.INTENDED) {
        throw new IllegalTransitionException("Cannot apply " + change.kind().code() + " " + change.changeId()
            + " of table " + change.table() + ": expected state INTENDED, actual " + stored.state());
      }
      return work.run(tx);
    });
  }

  /** Writes one commit may hold, less the change's own. */
  private int perCommit() {
    int limit = store.writesPerCommit();
    return limit == LedgerStore.UNBOUNDED ? 10_000 : limit - 1;
  }

  private static TableChange require(StoreReads reads, String changeId) {
    return reads.change(changeId).orElseThrow(() -> new IllegalArgumentException("No change " + changeId
        + " in the ledger"));
  }

  private Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }
}
