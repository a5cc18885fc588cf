package io.files2iceberg.core.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pipeline's state: files, partitions and batches, each with an explicit state machine.
 *
 * <p>Every method that changes state is one transaction that checks the expected current state
 * and fails with {@link IllegalTransitionException} (naming the expected and the actual state)
 * otherwise. One implementation, {@code LedgerService}, over a store ({@code LedgerStore}: SQLite
 * embedded, Firestore in production; every store passes the same contract suite): what a call does
 * to each record is the rules' ({@code core.ledger.rules}: pure functions over records), and the
 * service reads the records a call needs and writes the ones the rules return, within the store's
 * limits.
 *
 * <p>A store whose commits are bounded (Firestore: 500 writes) decides a transition that writes
 * more (a claim, commit, failure or revival of a batch of 10,000 files; a newest claim superseding
 * thousands of partitions) in one transaction and writes the rest after it, a commit at a time;
 * until then the batch's own record says which files are its, its partitions stay CLAIMED, and
 * the next call on the batch or claim of its table finishes the writes first. So a process that
 * dies between those commits leaves nothing lost or claimed twice.
 *
 * <p>Retryable failures of the store itself (busy, unavailable) surface as {@link
 * LedgerUnavailableException}, so callers can tell "try again" from "never". A batch or file id the
 * ledger does not know fails with {@link IllegalArgumentException} naming it.
 */
public interface Ledger extends LedgerListings, AutoCloseable {

  /**
   * Records a data file. Idempotent by {@code bucket/name#generation}: a redelivered notification
   * changes nothing and says so; a new generation of the same name is a new file. A file for an
   * INGESTED partition re-opens that partition for just the new file (READY, since its marker was
   * already seen); with {@code readyOnArrival} (success-file-filter off) the partition becomes
   * READY at once. A READY, CLAIMED, FAILED or SUPERSEDED partition keeps its state: the new file
   * waits as RECORDED for the next claim (or the operator's retry).
   */
  FileRecorded recordFile(RecordFile command);

  /**
   * Records many data files (a marker's listing) as {@link #recordFile} records each, in the order
   * given, and returns what each of those calls would have returned, in that order (a file listed
   * twice is new only the first time). A store writes them in as few commits as its limits allow
   * (SQLite: units of a thousand files in its group transactions, a transaction per thousand files
   * at most; Firestore: commits of at most 500 writes), not one per file. Not atomic as a whole: when it fails, what earlier commits recorded stays recorded,
   * and calling it again records the rest.
   */
  default List<FileRecorded> recordFiles(List<RecordFile> commands) {
    List<FileRecorded> recorded = new ArrayList<>(commands.size());
    for (RecordFile command : commands) {
      recorded.add(recordFile(command));
    }
    return recorded;
  }

  /**
   * Records a partition's success marker: OPEN becomes READY; a partition not seen yet is created
   * READY, and files recorded later join it. A marker for a partition that is already READY,
   * CLAIMED or INGESTED with nothing pending changes nothing but noting the marker; an INGESTED
   * partition with files pending becomes READY; FAILED and SUPERSEDED stay.
   */
  PartitionRecord markReady(MarkReady command);

  /**
   * Claims READY partitions of one table, oldest partition first (by partition token), into a new
   * PLANNED batch of at most {@code maxFiles} files with a lease, filled up to the caps ({@link
   * io.files2iceberg.core.ledger.rules.ClaimWalk}): several partitions share a batch, and the last
   * one taken, or a first one larger than the caps, yields a deterministic range of its files
   * (ordered by URI then generation), so repeated claims of one partition take consecutive ranges.
   * A READY partition with nothing
   * pending (no RECORDED file) met on the way becomes INGESTED. With {@code exclusive}, nothing is
   * claimed while the table has a batch PLANNED or RUNNING. Empty when there is nothing to claim.
   * The claim is atomic: concurrent claimers never put one file or partition in two batches.
   */
  Optional<BatchRecord> claimPartitions(ClaimPartitions command);

  /**
   * Mode {@code last}: claims the newest READY partition of one table (by partition token) into a
   * new PLANNED batch with a lease, whole whatever its size (an overwrite of part of a partition
   * would lose the rest), and marks every older READY partition SUPERSEDED; one transaction. A
   * newer READY partition with nothing pending met on the way becomes INGESTED and the next one is
   * taken. Exclusive: nothing is claimed or superseded while the table has a batch PLANNED or
   * RUNNING. Empty when there is nothing to claim.
   */
  Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command);

  /**
   * PLANNED to RUNNING (or RUNNING again on a relaunch), counting the attempt and the launch,
   * renewing the lease.
   */
  BatchRecord markRunning(String batchId, Duration lease);

  /** Extends the lease of a PLANNED or RUNNING batch. */
  BatchRecord renewLease(String batchId, Duration lease);

  /**
   * Recovery's compare-and-set: takes over a PLANNED or RUNNING batch whose lease has expired by
   * giving it a new lease (attempts unchanged; {@link #markRunning} counts the relaunch). Of two
   * batchers recovering one batch at the same time, exactly one succeeds; the other gets {@link
   * IllegalTransitionException} naming the live lease, so a batch is never launched twice at once.
   */
  BatchRecord takeOverExpiredLease(String batchId, Duration lease);

  /**
   * The checkpoint: PLANNED or RUNNING to COMMITTED with the Iceberg snapshot id and metrics (its
   * {@link BatchRecord#outcomeUnknown} cleared: the outcome is known now); the
   * batch's files become INGESTED and its partitions INGESTED (or READY again when files are
   * still pending), with their failed attempts reset. Committing an already COMMITTED batch with
   * the same snapshot id is a no-op reported as such; with another snapshot id it fails naming
   * both.
   */
  BatchCommitted commitBatch(CommitBatch command);

  /**
   * PLANNED or RUNNING to FAILED with the error and {@link BatchRecord#outcomeUnknown} as the
   * command says. The batch's claimed files become RECORDED again; its partitions are released
   * with one more attempt counted: READY again, or FAILED with the error once {@code maxAttempts}
   * (at least 1) is reached.
   */
  BatchRecord failBatch(FailBatch command);

  /** PLANNED or RUNNING batches whose lease has expired, oldest lease first. */
  List<BatchRecord> findExpiredLeases();

  /**
   * Deletes COMMITTED batches of the table beyond the newest {@code keep} (by commit time); files
   * stay recorded, so their notifications stay no-ops. Returns how many were deleted.
   */
  int pruneCommitted(String table, int keep);

  /**
   * Marks one RECORDED or CLAIMED file QUARANTINED with the reason; it is left out of every later
   * batch (and stays QUARANTINED when its current batch commits or fails).
   */
  FileRecord quarantineFile(String fileId, String reason);

  /**
   * Marks one RECORDED, CLAIMED or INGESTED file SUPERSEDED with the reason ({@code rewritten:
   * generation 1733 is live now}, {@code deleted before it was read}): its generation was gone
   * when a batch went to read it. It is never read again, stays SUPERSEDED when its batch commits
   * or fails, and counts as settled for its partition. Idempotent: a file already SUPERSEDED is
   * returned as it is, with its first reason.
   */
  FileRecord supersedeFile(String fileId, String reason);

  /**
   * Marks one RECORDED or CLAIMED file IGNORED with the reason: a new generation of an object
   * whose older generation is INGESTED, left out under {@code extract.on-overwrite = ignore}. It
   * is never read, stays IGNORED when its batch commits or fails, and counts as settled for its
   * partition. Idempotent as {@link #supersedeFile} is.
   */
  FileRecord ignoreFile(String fileId, String reason);

  /** Records a message that can never succeed, with its raw payload. Idempotent by message id. */
  void quarantineMessage(QuarantinedMessage message);

  Optional<BatchRecord> batch(String batchId);

  Optional<PartitionRecord> partition(String table, String partition);

  Optional<FileRecord> file(String fileId);





  // Operator commands: replay, backfill, reconcile (below, first group), retry, inspect and
  // quarantine (second group).



  /**
   * {@code replay --force}: loads an INGESTED, DROPPED or HELD partition again. Its INGESTED and
   * DROPPED files become RECORDED and the partition READY, so the next claim takes them into a new batch (MERGE keeps the table
   * correct). A READY partition is returned unchanged; any other state fails with {@link
   * IllegalTransitionException}.
   */
  PartitionRecord reopenPartition(String table, String partition);

  /**
   * {@code retry}: a FAILED partition becomes READY with its attempts reset to 0 (its last error is
   * kept for {@code inspect}); a READY partition only has its attempts reset; a HELD one is released
   * ({@link #releasePartition}). Other states fail with
   * {@link IllegalTransitionException}, an unknown partition with {@link IllegalArgumentException}.
   */
  PartitionRecord retryPartition(String table, String partition);

  /**
   * {@code retry --batch}: re-queues the partitions of a FAILED batch as {@link #retryPartition}
   * does (those in another state, claimed or loaded since, are left alone); the batch itself stays
   * FAILED. Returns the partitions re-queued. A batch that is not FAILED fails with {@link
   * IllegalTransitionException}.
   */
  List<PartitionRecord> retryBatch(String batchId);

  /**
   * {@code retry} of a batch that gave up without knowing whether its job committed: relaunches it
   * under its own id instead of loading its files in a new batch, since the job finds a batch that
   * did commit in the table's snapshots and only finalizes it. One transaction: the batch FAILED to
   * PLANNED with its attempts reset to 0 (its {@link BatchRecord#launches} go on counting, so its
   * relaunch gets a job of its own) and its lease already expired, so the next batcher run's
   * recovery takes it over at once; its error and its {@link BatchRecord#outcomeUnknown} are kept
   * (recovery reads the flag: the table may hold the batch). Each of its RECORDED files becomes CLAIMED by it again at its position, QUARANTINED
   * ones stay quarantined (they stay in its file list, as when quarantined while it was in flight),
   * and each of its FAILED or READY partitions becomes CLAIMED by it with its attempts reset. A
   * batch that is not FAILED, a file in another state (claimed or loaded by another batch since) or
   * a partition in another state fails with {@link IllegalTransitionException} naming it, changing
   * nothing.
   */
  BatchRecord reviveBatch(String batchId);

  /**
   * {@code quarantine release}: a QUARANTINED file becomes RECORDED again (its reason and batch
   * cleared) and its partition READY when it was INGESTED, like a late file; a partition in another
   * state keeps it (READY or CLAIMED take it on the next claim, FAILED waits for a retry). A file in
   * another state fails with {@link IllegalTransitionException}.
   */
  FileRecord releaseFile(String fileId);

  /**
   * Landing cleanup's decision for these files of one table, in one commit (at most the store's
   * writes per commit), made before any object is touched: each file records its {@link
   * CleanedObject} (ARCHIVED with its copy's URI and generation, or DELETED), its removal still to
   * do. A file already cleaned the same way is left as it is (a run that resumes).
   *
   * @throws IllegalTransitionException naming the file when one is not INGESTED (a rollback or a
   *     replay reopened it since it was listed), has no load time, or was cleaned another way;
   *     nothing is written
   * @throws IllegalStateException when the table has an unfinished change (a rollback or a drop
   *     between its intent and its end): nothing is cleaned until it ends
   */
  List<FileRecord> cleanFiles(String table, List<CleanFile> files);

  /**
   * Landing cleanup's last step: the objects of these cleaned files are gone from where they
   * landed (deleted or moved, or found gone or rewritten already). Sets {@link
   * CleanedObject#removedAt()}; a file whose removal is recorded is left as it is.
   *
   * @throws IllegalStateException naming the file when one is unknown or was never cleaned
   */
  List<FileRecord> confirmRemoved(List<String> fileIds);

  /** One file's cleanup decision. */
  record CleanFile(String fileId, CleanedObject cleaned) {
    public CleanFile {
      java.util.Objects.requireNonNull(fileId, "fileId");
      java.util.Objects.requireNonNull(cleaned, "cleaned");
      if (cleaned.removedAt().isPresent()) {
        throw new IllegalArgumentException("file " + fileId + ": a cleanup decision is made before the removal");
      }
    }
  }

  /** Deletes a quarantined message once it has been dealt with; false when it is not known. */
  boolean releaseMessage(String messageId);

  // Operators' changes: rollback and drop-partition ({@link TableChange}).

  /**
   * Writes an operator's change down, INTENDED, before its table or ledger is touched; from then on
   * no batch of the table is claimed until it is applied or abandoned. The same change id again
   * returns the stored change (a re-run). Refused ({@link IllegalTransitionException}, naming what
   * stands in the way) while the table has another INTENDED change or a batch PLANNED or RUNNING; a
   * drop also while its partition is OPEN or CLAIMED, or unknown ({@link IllegalArgumentException}).
   */
  TableChange intendChange(TableChange change);

  /**
   * The ledger side of an INTENDED change, once its table side is done; in steps that each fit one
   * commit, so that a re-run after a kill finishes it. A rollback: every INGESTED (or DROPPED) file
   * of its batches becomes RECORDED, forgetting its batch; the files a drop it undoes left out
   * become INGESTED again; each partition with files to load again becomes READY (HELD with {@code
   * hold}), with its attempts reset, and a dropped one with nothing to load INGESTED; its batches
   * still stored go from COMMITTED to ROLLED_BACK. A drop: the partition's INGESTED files become
   * DROPPED, and the partition DROPPED. Last, the change becomes APPLIED with what it did. An
   * APPLIED change is returned as it is; an ABANDONED one fails with {@link
   * IllegalTransitionException}.
   */
  TableChange applyChange(String changeId);

  /** INTENDED to ABANDONED with why: the table was not changed (it had moved on, or the operator gave up). */
  TableChange abandonChange(String changeId, String why);

  Optional<TableChange> change(String changeId);

  /**
   * {@code release}: a HELD partition becomes READY with its attempts reset, so the next batch
   * loads its files. Other states fail with {@link IllegalTransitionException}.
   */
  PartitionRecord releasePartition(String table, String partition);

  // The outbox: change events ({@link ChangeEvent}) to publish, at least once.

  /**
   * The change events not yet acknowledged, of every table, oldest first, at most {@code limit}.
   * {@link #commitBatch} writes one when it moves a batch to COMMITTED (none for a commit that
   * finds it committed already), {@link #applyChange} one when the change becomes APPLIED: each in
   * the same transaction as the change, so no change goes without its event.
   */
  List<ChangeEvent> pendingEvents(int limit);

  /** Deletes these events from the outbox, once a sink has taken them; unknown ids are ignored. */
  void acknowledgeEvents(List<String> eventIds);






  /**
   * Why the store cannot take a write now, or empty while it can. Each ledger writes one probe
   * record that nothing else reads (SQLite: the one row of {@code probe}; Firestore: this
   * process's document in {@code <prefix>probe}), bounded as any other call, so a store that
   * still answers reads but refuses writes (a read-only file, a full disk, a missing permission)
   * is reported as well as one that does not answer. Used by health checks.
   */
  Optional<String> unavailableBecause();

  /** Whether the store answers and takes a write now: {@link #unavailableBecause()} is empty. */
  default boolean isAvailable() {
    return unavailableBecause().isEmpty();
  }

  @Override
  void close();
}
