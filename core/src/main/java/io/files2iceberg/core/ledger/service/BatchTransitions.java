package io.files2iceberg.core.ledger.service;


import io.files2iceberg.core.ledger.BatchCommitted;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.Settling;
import io.files2iceberg.core.ledger.store.StoreReads;
import io.files2iceberg.core.ledger.store.StoreTransaction;
import io.files2iceberg.core.ledger.store.Subject;
import io.files2iceberg.core.ledger.store.StoredBatch;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch's transitions that write its files and partitions (commit, failure, revival; a claim's
 * files), within the store's limit per commit. A transition that fits one commit is made in one. A
 * larger one (a partition of 10,000 files in a store of 500 writes per commit) is decided in one
 * transaction, which writes the batch with its whole file list and what it still owes ({@link
 * Settling}), and for a claim or revival its partitions CLAIMED; then {@link #settle} moves the
 * files a commit's worth at a time and last releases the partitions (commit, failure) and clears
 * the mark, with the same rules. In between the batch's record says which files are its, its
 * partitions stay CLAIMED, and every later call on the batch, and every claim or prune of its
 * table, first finishes what it owes. So a process that dies between two commits leaves nothing
 * lost or claimed twice.
 */
public final class BatchTransitions {
  private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);

  /**
   * A point between two commits of one call: {@code step} is the transition just decided ({@code
   * claimed}, {@code committed}, {@code failed}, {@code revived}) or {@code settled} (after each
   * later commit of its writes).
   */
  @FunctionalInterface
  public interface BetweenCommits {
    void reached(String step, String batchId);
  }

  /** A transition's outcome; {@code owed}: its writes are still to be made ({@link #settle}). */
  record Decided<T>(T result, boolean owed, List<String> exhausted) {}

  /** A transition's one transaction, given the batch as stored (owing nothing). */
  @FunctionalInterface
  interface Decision<T> {
    Decided<T> apply(StoreTransaction tx, BatchRecord stored);
  }

  private final LedgerStore store;
  private final Clock clock;
  private volatile BetweenCommits betweenCommits = (step, batchId) -> {};

  BatchTransitions(LedgerStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  void onBetweenCommits(BetweenCommits hook) {
    this.betweenCommits = Objects.requireNonNull(hook, "hook");
  }

  void reached(String step, String batchId) {
    betweenCommits.reached(step, batchId);
  }

  /** Whether the store's commits are bounded, so that a transition may owe writes. */
  boolean bounded() {
    return store.writesPerCommit() != LedgerStore.UNBOUNDED;
  }

  /** Whether {@code writes} fit one commit. */
  boolean fits(long writes) {
    return writes <= store.writesPerCommit();
  }

  BatchCommitted commit(CommitBatch command) {
    String batchId = command.batchId();
    Decided<BatchCommitted> decided = decide("commitBatch", batchId, "Cannot commit batch " + batchId, (tx, stored) -> {
      Instant now = now();
      Optional<BatchRecord> committed = BatchRules.committed(stored, command, now);
      if (committed.isEmpty()) {
        return new Decided<>(new BatchCommitted(stored, true), false, List.of());
      }
      // The checkpoint is this commit; its files and partitions follow in it when they fit, else
      // after it (settle), partitions last.
      // The change event goes in the commit that makes the batch COMMITTED (the outbox): one more write.
      boolean inline = fits(1L + writesOfSettling(stored));
      List<FileRecord> files = inline ? tx.files(stored.fileIds()) : List.of();
      // A split partition (or one that got late files while claimed) is READY again for the rest.
      List<Release> releases = inline ? releases(tx, stored, true) : List.of();
      BatchRecord written = inline ? tx.putBatch(committed.get())
          : tx.putBatch(committed.get(), Optional.of(Settling.owing(FileState.INGESTED, 0, List.of())));
      tx.putEvent(ChangeEvent.committed(committed.get()));
      moveFiles(tx, files, FileState.INGESTED, committed.get(), command.fileRows(), now);
      for (Release release : releases) {
        release(tx, stored, release, p -> PartitionRules.afterCommit(p, batchId, release.pending(), now));
      }
      return new Decided<>(new BatchCommitted(written, false), !inline, List.of());
    }, "committed", command.fileRows());
    if (!decided.result().alreadyCommitted()) {
      LOG.info("Committed batch {} of table {} with snapshot {}", batchId, decided.result().batch().table(),
          command.snapshotId());
    }
    return decided.result();
  }

  BatchRecord fail(FailBatch command) {
    String batchId = command.batchId();
    Decided<BatchRecord> decided = decide("failBatch", batchId, "Cannot fail batch " + batchId, (tx, stored) -> {
      Instant now = now();
      BatchRecord failed = BatchRules.failed(stored, command, now);
      boolean inline = fitsOneCommit(stored);
      List<FileRecord> files = inline ? tx.files(stored.fileIds()) : List.of();
      List<Release> releases = inline ? releases(tx, stored, false) : List.of();
      BatchRecord written = inline ? tx.putBatch(failed)
          : tx.putBatch(failed, Optional.of(Settling.owing(FileState.RECORDED, command.maxAttempts(), List.of())));
      moveFiles(tx, files, FileState.RECORDED, failed, Map.of(), now);
      List<String> exhausted = new ArrayList<>();
      for (Release release : releases) {
        releaseFailed(tx, written, release, command.maxAttempts(), now).ifPresent(exhausted::add);
      }
      return new Decided<>(written, !inline, exhausted);
    }, "failed", Map.of());
    for (String exhausted : decided.exhausted()) {
      LOG.info("Partition {} of table {} FAILED (batch {})", exhausted, decided.result().table(), batchId);
    }
    // The error itself is the batcher's to log, once.
    LOG.info("Failed batch {} of table {}", batchId, decided.result().table());
    return decided.result();
  }

  BatchRecord revive(String batchId) {
    String action = "Cannot revive batch " + batchId;
    Decided<BatchRecord> decided = decide("reviveBatch", batchId, action, (tx, stored) -> {
      Instant now = now();
      BatchRecord revived = BatchRules.revived(stored, action, now);
      // Every check before the first write: a refusal changes nothing, and what is checked here
      // is what the settling claims.
      List<FileRules.Placed> claimed = FileRules.revived(stored, tx.files(stored.fileIds()), action);
      List<PartitionRecord> partitions = new ArrayList<>();
      for (Release release : releases(tx, stored, false)) {
        PartitionRecord partition = release.stored().orElseThrow(() -> new IllegalStateException(
            "Partition " + stored.table() + "/" + release.token() + " is missing from the ledger"));
        partitions.add(PartitionRules.revived(partition, batchId, action, now));
      }
      boolean inline = fits(1L + claimed.size() + partitions.size());
      BatchRecord written = inline ? tx.putBatch(revived)
          : tx.putBatch(revived, Optional.of(Settling.owing(FileState.CLAIMED, 0, List.of())));
      for (int i = 0; inline && i < claimed.size(); i++) {
        tx.putFile(claimed.get(i).file(), claimed.get(i).position());
      }
      partitions.forEach(tx::putPartition);
      return new Decided<>(written, !inline, List.of());
    }, "revived", Map.of());
    LOG.info("Revived batch {} of table {}: files and partitions {} claimed again for a relaunch", batchId,
        decided.result().table(), decided.result().partitions());
    return decided.result();
  }

  /**
   * A transition of a batch that may write more than one commit: a batch owing the writes of an
   * earlier one has those made first; then the decision's transaction; then (after {@code step},
   * where a process may die) the writes it owes.
   */
  <T> Decided<T> decide(String operation, String batchId, String action, Decision<T> decision, String step,
      Map<String, FileRows> fileRows) {
    while (true) {
      Optional<Decided<T>> decided = store.write(operation, Subject.batch(batchId), tx -> {
        StoredBatch stored = tx.batch(batchId).orElseThrow(() -> new IllegalArgumentException(action + ": no such batch"));
        return stored.settling().isPresent() ? Optional.<Decided<T>>empty()
            : Optional.of(decision.apply(tx, stored.batch()));
      });
      if (decided.isEmpty()) {
        settle(batchId); // owes writes of an earlier transition: those first
        continue;
      }
      if (!decided.get().owed()) {
        return decided.get();
      }
      reached(step, batchId);
      List<String> exhausted = new ArrayList<>(decided.get().exhausted());
      exhausted.addAll(settle(batchId, fileRows));
      return new Decided<>(decided.get().result(), true, exhausted);
    }
  }

  List<String> settle(String batchId) {
    return settle(batchId, Map.of());
  }

  /**
   * Applies what the batch still owes, one commit at a time: the older partitions a newest claim
   * supersedes, then its files in claim order ({@link Settling#settledFiles()} counts those moved,
   * so a second settler, or a rerun after a crash, continues where the last commit ended), then,
   * for a commit or a failure, its partitions, released in the commit that clears the mark. Every
   * commit reads and writes the batch, so settlers of one batch are serialised. A file's counts
   * ({@code fileRows}) are known only to the process that committed; a settler that resumes after it
   * died writes the rest without counts: unknown, which is what they are. Idempotent.
   *
   * @return the partitions a failure left FAILED, for the log
   */
  List<String> settle(String batchId, Map<String, FileRows> fileRows) {
    if (!bounded()) {
      return List.of();
    }
    List<String> exhausted = new ArrayList<>();
    int perCommit = store.writesPerCommit() - 1;
    // A batch's file list never changes once claimed: read whole once, without it after that.
    List<String> fileIds = new ArrayList<>();
    while (true) {
      boolean more = store.write("settle", Subject.batch(batchId), tx -> {
        exhausted.clear();
        Optional<StoredBatch> read = fileIds.isEmpty() ? tx.batch(batchId) : tx.batchWithoutLists(batchId);
        if (read.isEmpty() || read.get().settling().isEmpty()) {
          return false;
        }
        if (fileIds.isEmpty()) {
          fileIds.addAll(read.get().batch().fileIds());
        }
        BatchRecord stored = withFiles(read.get().batch(), fileIds);
        Settling owed = read.get().settling().get();
        Instant now = now();
        if (!owed.superseding().isEmpty()) {
          List<String> chunk = owed.superseding().subList(0, Math.min(owed.superseding().size(), perCommit));
          List<PartitionRecord> older = tx.partitions(stored.table(), chunk);
          // One moved meanwhile (a late operator command) is left as it is.
          older.stream().filter(p -> p.state() == PartitionState.READY)
              .forEach(p -> tx.putPartition(PartitionRules.superseded(p, now)));
          tx.putSettling(batchId, Optional.of(owed.withSuperseding(
              owed.superseding().subList(chunk.size(), owed.superseding().size()))));
          return true;
        }
        int from = owed.settledFiles();
        if (from < stored.fileIds().size()) {
          int to = Math.min(stored.fileIds().size(), from + perCommit);
          Map<String, FileRecord> files = new HashMap<>();
          tx.files(stored.fileIds().subList(from, to)).forEach(f -> files.put(f.fileId(), f));
          for (int i = from; i < to; i++) {
            FileRecord file = files.get(stored.fileIds().get(i));
            if (file != null) {
              int position = i;
              FileRules.settled(file, owed.target(), batchId, stored.snapshotId(), fileRows, now)
                  .ifPresent(moved -> tx.putFile(moved, position));
            }
          }
          tx.putSettling(batchId, Optional.of(owed.withSettledFiles(to)));
          return true;
        }
        // The last commit: the partitions (after a commit or a failure), and the mark cleared.
        if (owed.target() == FileState.INGESTED) {
          for (Release release : releases(tx, stored, true)) {
            release(tx, stored, release, p -> PartitionRules.afterCommit(p, batchId, release.pending(), now));
          }
        } else if (owed.target() == FileState.RECORDED) {
          for (Release release : releases(tx, stored, false)) {
            releaseFailed(tx, stored, release, owed.maxAttempts(), now).ifPresent(exhausted::add);
          }
        }
        tx.putSettling(batchId, Optional.empty());
        return false;
      });
      if (!more) {
        return List.copyOf(exhausted);
      }
      reached("settled", batchId);
    }
  }

  /**
   * Settles the table's batches that a process left owing writes (it died between two commits of
   * a transition), before a claim reads the table's partitions or a prune deletes batches.
   */
  void settleTable(String table) {
    if (!bounded()) {
      return;
    }
    for (String batchId : store.read("settleTable", Subject.table(table), r -> r.batchesOwing(table))) {
      LOG.info("Batch {} of table {} still owes writes to its files or partitions; writing them", batchId, table);
      settle(batchId);
    }
  }

  /**
   * {@code replay --force}: one transaction per commit's worth of files, the last one also turning
   * the partition READY. An interrupted reopen leaves the partition INGESTED with some files
   * RECORDED; calling it again finishes the job.
   */
  PartitionRecord reopen(String table, String partition) {
    int perCommit = bounded() ? store.writesPerCommit() - 1 : StoreReads.ALL;
    int reopenedFiles = 0;
    while (true) {
      record Step(Optional<PartitionRecord> done, int files, boolean reopened) {}
      Step step = store.write("reopenPartition", Subject.partition(table, partition), tx -> {
        PartitionRecord stored = tx.partition(table, partition).orElseThrow(() -> new IllegalArgumentException(
            "Cannot reopen partition " + table + "/" + partition + ": no such partition"));
        Optional<PartitionRecord> reopened = PartitionRules.reopened(stored, now());
        if (reopened.isEmpty()) {
          return new Step(Optional.of(stored), 0, false);
        }
        // Its loaded files, and those a drop-partition left out of the table.
        List<FileRecord> ingested = new ArrayList<>(tx.filesIn(table, partition, FileState.INGESTED, perCommit));
        if (perCommit == StoreReads.ALL || ingested.size() < perCommit) {
          ingested.addAll(tx.filesIn(table, partition, FileState.DROPPED,
              perCommit == StoreReads.ALL ? StoreReads.ALL : perCommit - ingested.size()));
        }
        ingested.forEach(file -> FileRules.reopened(file).ifPresent(tx::putFile));
        if (perCommit != StoreReads.ALL && ingested.size() == perCommit) {
          return new Step(Optional.empty(), ingested.size(), false); // more to come: the partition stays INGESTED
        }
        return new Step(Optional.of(tx.putPartition(reopened.get())), ingested.size(), true);
      });
      reopenedFiles += step.files();
      if (step.done().isPresent()) {
        if (step.reopened()) {
          LOG.info("Reopened partition {}/{}: {} ingested file(s) to load again (those whose object landing cleanup"
              + " deleted are superseded instead)", table, partition, reopenedFiles);
        }
        return step.done().get();
      }
    }
  }

  /** The batch with its file ids (its event ids, which settling never reads, left as read). */
  private static BatchRecord withFiles(BatchRecord b, List<String> fileIds) {
    return b.fileIds().size() == fileIds.size() ? b : new BatchRecord(b.batchId(), b.table(), b.state(), b.partitions(),
        fileIds, b.eventIds(), b.attempts(), b.launches(), b.outcomeUnknown(), b.leaseUntil(), b.snapshotId(),
        b.metrics(), b.error(), b.cause(), b.createdAt(), b.updatedAt());
  }

  /** Whether a failure of the batch (it, its files and its partitions) fits one commit. */
  boolean fitsOneCommit(BatchRecord batch) {
    return fits(writesOfSettling(batch));
  }

  /** The writes of settling the batch in one commit: it, its files and its partitions. */
  private static long writesOfSettling(BatchRecord batch) {
    return 1L + batch.fileIds().size() + batch.partitions().size();
  }

  /** Moves the batch's files (read in the transaction) to {@code target}, in this commit. */
  private static void moveFiles(StoreTransaction tx, List<FileRecord> files, FileState target, BatchRecord batch,
      Map<String, FileRows> fileRows, Instant now) {
    for (FileRecord file : files) {
      FileRules.settled(file, target, batch.batchId(), batch.snapshotId(), fileRows, now).ifPresent(tx::putFile);
    }
  }

  /** One of a batch's partitions as stored, and whether it still has RECORDED files (when asked). */
  record Release(String token, Optional<PartitionRecord> stored, boolean pending) {}

  /** The batch's partitions, and (with {@code checkPending}) whether each has files pending. */
  private static List<Release> releases(StoreTransaction tx, BatchRecord batch, boolean checkPending) {
    Map<String, PartitionRecord> stored = new HashMap<>();
    tx.partitions(batch.table(), batch.partitions()).forEach(p -> stored.put(p.partition(), p));
    List<Release> releases = new ArrayList<>();
    for (String token : batch.partitions()) {
      boolean pending = checkPending && !tx.filesIn(batch.table(), token, FileState.RECORDED, 1).isEmpty();
      releases.add(new Release(token, Optional.ofNullable(stored.get(token)), pending));
    }
    return releases;
  }

  /** Writes what a commit or failure ({@code rule}) does to one of the batch's partitions, if it still holds it. */
  private static Optional<PartitionRecord> release(StoreTransaction tx, BatchRecord batch, Release release,
      Function<PartitionRecord, Optional<PartitionRecord>> rule) {
    Optional<PartitionRecord> released = release.stored().flatMap(rule);
    if (released.isEmpty()) {
      LOG.warn("Partition {} of table {} is no longer claimed by batch {}; left as it is",
          release.token(), batch.table(), batch.batchId());
      return released;
    }
    return Optional.of(tx.putPartition(released.get()));
  }

  /** After a failure: the partition released with an attempt counted; named (for the log) when that made it FAILED. */
  private static Optional<String> releaseFailed(StoreTransaction tx, BatchRecord batch, Release release,
      int maxAttempts, Instant now) {
    String error = batch.error().orElse("");
    return release(tx, batch, release, p -> PartitionRules.afterFailure(p, batch.batchId(), error, maxAttempts, now))
        .filter(p -> p.state() == PartitionState.FAILED).map(p -> release.token());
  }

  private Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }
}
