package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_CLASS;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_FILE;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.LAUNCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.LEASE_UNTIL;
import static io.files2iceberg.core.ledger.LedgerSchema.METRICS;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTCOME_UNKNOWN;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS_FIELD;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLED_FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING_MAX_ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.SNAPSHOT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.SUPERSEDING;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.MAX_WRITES_PER_COMMIT;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.SETTLE_FILES_PER_COMMIT;
import static io.files2iceberg.ledger.firestore.FirestoreStore.data;
import static io.files2iceberg.ledger.firestore.FirestoreStore.optional;

import com.google.api.core.ApiFuture;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.FieldMask;
import com.google.cloud.firestore.FieldValue;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.Transaction;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.PartitionRules;
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
 * The Firestore ledger's bound on commits, handled. A batch's life (claim, commit, failure,
 * revival) writes the batch, each of its files and each of its partitions. A transition that fits
 * one commit is made in one. A larger one (a partition of 10,000 files) is decided in one
 * transaction, which writes the batch document, with its whole file list and a mark of what it
 * still owes ({@link LedgerSchema#SETTLING}), and, for a claim or revival, its partitions CLAIMED;
 * then {@link #settle} moves the files, a commit's worth at a time, and last releases the
 * partitions (commit, failure) and clears the mark, with the same rules ({@link FileRules#settled},
 * {@link PartitionRules#afterCommit}, {@link PartitionRules#afterFailure}). In between, the batch
 * document is the record: every reader takes a batch's files from its list, never from the files'
 * batch ids; its partitions stay CLAIMED, so no claim takes their files; and every later call on
 * the batch (commit, failure, revival, recovery's takeover, retry) and every claim or prune of its
 * table first finishes what it owes. So a process that dies between two commits leaves nothing
 * lost or claimed twice, and the next call completes its work.
 */
final class FirestoreSettling {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreLedger.class);

  /** A batch document without its file and event ids: what {@link #settle} reads after its first commit. */
  private static final FieldMask WITHOUT_FILE_LIST = FieldMask.of(BATCH_ID, TABLE, STATE, PARTITIONS_FIELD, ATTEMPTS,
      LAUNCHES, OUTCOME_UNKNOWN, LEASE_UNTIL, SNAPSHOT_ID, METRICS, ERROR, ERROR_CLASS, ERROR_FILE, CREATED_AT, UPDATED_AT,
      SETTLING,
      SETTLED_FILES, SETTLING_MAX_ATTEMPTS, SUPERSEDING);
  /** The codes {@link LedgerSchema#SETTLING} holds. */
  private static final List<String> SETTLING_CODES =
      List.of(FileState.CLAIMED.code(), FileState.INGESTED.code(), FileState.RECORDED.code());

  /**
   * A point between two commits of one call: {@code step} is the transition just decided ({@code
   * claimed}, {@code committed}, {@code failed}, {@code revived}) or {@code settled} (after each
   * later commit of its writes).
   */
  @FunctionalInterface
  interface BetweenCommits {
    void reached(String step, String batchId);
  }

  private final FirestoreStore store;
  /** Called between two commits of one call, where a process may die: crash tests stop it there. */
  private volatile BetweenCommits betweenCommits = (step, batchId) -> {};

  FirestoreSettling(FirestoreStore store) {
    this.store = store;
  }

  void onBetweenCommits(BetweenCommits hook) {
    this.betweenCommits = Objects.requireNonNull(hook, "hook");
  }

  void reached(String step, String batchId) {
    betweenCommits.reached(step, batchId);
  }

  /**
   * Marks a batch document as owing its files' move to {@code target} (and, for a commit or a
   * failure, its partitions' release after them), from the first file on.
   */
  static void owe(Map<String, Object> batch, FileState target) {
    batch.put(SETTLING, target.code());
    batch.put(SETTLED_FILES, 0L);
  }

  /**
   * Applies what the batch still owes ({@link LedgerSchema#SETTLING}), one commit at a time: the
   * older partitions a newest claim supersedes, then its files in claim order ({@link
   * LedgerSchema#SETTLED_FILES} counts how many have moved, so a second settler, or a rerun after a
   * crash, continues where the last commit ended), then, for a commit or a failure, its partitions,
   * released in the commit that clears the mark. Partitions go last so that a released partition
   * never has a file still owed to the batch: a claim of it then finds every file RECORDED or
   * loaded. Every commit reads and writes the batch document, so settlers of one batch, and a
   * transition of it, are serialised. Idempotent; a batch with nothing owed is left as it is.
   *
   * @return the partitions a failure left FAILED, for the log
   */
  List<String> settle(String batchId) {
    return settle(batchId, Map.of());
  }

  /**
   * {@link #settle(String)}, a commit's files taking their counts from {@code fileRows} (by file
   * id). The counts are held only by the process that committed (the batch document has no room
   * for them beside its file list: 10,000 ids are most of its megabyte); a settler that resumes
   * after it died writes the rest of the files without counts: unknown, which is what they are.
   */
  List<String> settle(String batchId, Map<String, FileRows> fileRows) {
    DocumentReference ref = store.batches.document(batchId);
    List<String> exhausted = new ArrayList<>();
    // A batch's file list never changes once claimed: read whole once, the commits after it read
    // the document without it (10,000 ids are most of a megabyte).
    List<String> fileIds = new ArrayList<>();
    while (true) {
      boolean more = store.transaction("settle", ref.getPath(), t -> {
        exhausted.clear();
        DocumentSnapshot snapshot = fileIds.isEmpty() ? t.get(ref).get()
            : t.getAll(new DocumentReference[] {ref}, WITHOUT_FILE_LIST).get().get(0);
        if (!snapshot.exists() || snapshot.get(SETTLING) == null) {
          return false;
        }
        Map<String, Object> batch = data(snapshot);
        if (fileIds.isEmpty()) {
          fileIds.addAll(FirestoreDocuments.strings(batch, FILE_IDS));
        }
        batch.put(FILE_IDS, fileIds);
        batch.put(EVENT_IDS, List.of());
        FileState target = FileState.fromCode((String) batch.get(SETTLING));
        BatchRecord stored = FirestoreDocuments.batch(batch);
        Instant now = Instant.ofEpochMilli(store.clock.millis());
        List<String> superseding = FirestoreDocuments.strings(batch, SUPERSEDING);
        if (!superseding.isEmpty()) {
          List<String> chunk = superseding.subList(0, Math.min(superseding.size(), MAX_WRITES_PER_COMMIT - 1));
          List<DocumentSnapshot> docs = t.getAll(chunk.stream().map(token -> store.partitionRef(stored.table(), token))
              .toArray(DocumentReference[]::new)).get();
          for (DocumentSnapshot doc : docs) {
            // Moved meanwhile (a late operator command): left as it is.
            Optional<Map<String, Object>> partition = optional(doc);
            if (partition.isPresent() && PartitionState.READY.code().equals(partition.get().get(STATE))) {
              PartitionRecord older = FirestoreDocuments.partition(partition.get());
              store.set(t, partition.get(), PartitionRules.superseded(older, now));
            }
          }
          t.update(ref, SUPERSEDING, new ArrayList<>(superseding.subList(chunk.size(), superseding.size())));
          return true;
        }
        int from = (int) FirestoreDocuments.settledFiles(batch);
        if (from < fileIds.size()) {
          int to = Math.min(fileIds.size(), from + SETTLE_FILES_PER_COMMIT);
          List<DocumentSnapshot> docs = store.getAllIn(t, fileIds.subList(from, to));
          for (int i = 0; i < docs.size(); i++) {
            Optional<Map<String, Object>> file = optional(docs.get(i));
            if (file.isPresent()) {
              Optional<FileRecord> moved = FileRules.settled(FirestoreDocuments.file(file.get()), target, batchId,
                  stored.snapshotId(), fileRows);
              if (moved.isPresent()) {
                store.set(t, file.get(), moved.get(), from + i);
              }
            }
          }
          t.update(ref, SETTLED_FILES, (long) to);
          return true;
        }
        // The last commit: the partitions (after a commit or a failure), and the mark cleared.
        if (target == FileState.INGESTED) {
          for (Release release : partitionsOf(t, stored, true)) {
            release(t, stored, release, p -> PartitionRules.afterCommit(p, batchId, release.pending(), now));
          }
        } else if (target == FileState.RECORDED) {
          int maxAttempts = (int) FirestoreDocuments.settlingMaxAttempts(batch);
          for (Release release : partitionsOf(t, stored, false)) {
            releaseFailed(t, stored, release, maxAttempts, now).ifPresent(exhausted::add);
          }
        }
        Map<String, Object> cleared = new HashMap<>();
        for (String field : List.of(SETTLING, SETTLED_FILES, SETTLING_MAX_ATTEMPTS, SUPERSEDING)) {
          cleared.put(field, FieldValue.delete());
        }
        t.update(ref, cleared);
        return false;
      });
      if (!more) {
        return exhausted;
      }
      betweenCommits.reached("settled", batchId);
    }
  }

  /**
   * Settles the table's batches that a process left owing writes (it died between two commits of
   * a transition), before a claim reads the table's partitions: a commit or failure cut short
   * still holds its partitions, a newest claim cut short still has older partitions READY.
   */
  void settleTable(String table) {
    List<String> owing = store.read("settleTable", store.batches.getPath() + " (table " + table + ")", () -> {
      List<String> ids = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.BATCHES_SETTLING.on(store.batches, table, SETTLING_CODES).get().get()) {
        ids.add(doc.getId());
      }
      return ids;
    });
    for (String batchId : owing) {
      LOG.info("Batch {} of table {} still owes writes to its files or partitions; writing them", batchId, table);
      settle(batchId);
    }
  }

  /**
   * A transition's outcome; {@code owed}: its writes did not fit its commit and are still to be
   * made; {@code exhausted}: the partitions a failure left FAILED (for the log).
   */
  record Decided<T>(T result, boolean owed, List<String> exhausted) {}

  /** A transition's one transaction, given the batch's document and its record. */
  @FunctionalInterface
  interface Decision<T> {
    Decided<T> apply(Transaction t, Map<String, Object> doc, BatchRecord stored) throws Exception;
  }

  /**
   * A transition of a batch that may write more than one commit: a batch owing the writes of an
   * earlier one has those made first; then the decision's transaction; then (after {@code step},
   * where a process may die) the writes it owes.
   */
  <T> Decided<T> decide(String operation, String batchId, String action, Decision<T> decision, String step) {
    return decide(operation, batchId, action, decision, step, Map.of());
  }

  /** {@link #decide(String, String, String, Decision, String)} of a commit, with its files' counts. */
  <T> Decided<T> decide(String operation, String batchId, String action, Decision<T> decision, String step,
      Map<String, FileRows> fileRows) {
    while (true) {
      Optional<Decided<T>> decided = store.batchTransition(operation, batchId, action, (t, doc, checked) ->
          doc.get(SETTLING) != null ? Optional.<Decided<T>>empty()
              : Optional.of(decision.apply(t, doc, FirestoreDocuments.batch(doc))));
      if (decided.isEmpty()) {
        settle(batchId); // owes writes of an earlier transition: those first
        continue;
      }
      if (!decided.get().owed()) {
        return decided.get();
      }
      betweenCommits.reached(step, batchId);
      List<String> exhausted = new ArrayList<>(decided.get().exhausted());
      exhausted.addAll(settle(batchId, fileRows));
      return new Decided<>(decided.get().result(), true, exhausted);
    }
  }

  /** Whether a commit or failure of the batch (it, its files and its partitions) fits one commit. */
  static boolean fitsOneCommit(BatchRecord batch) {
    return 1 + batch.fileIds().size() + batch.partitions().size() <= MAX_WRITES_PER_COMMIT;
  }

  /** Moves the batch's files (their documents, read in the transaction) to {@code target}, in this commit. */
  void moveFiles(Transaction t, List<Map<String, Object>> files, FileState target, BatchRecord batch,
      Map<String, FileRows> fileRows) {
    for (Map<String, Object> file : files) {
      FileRules.settled(FirestoreDocuments.file(file), target, batch.batchId(), batch.snapshotId(), fileRows)
          .ifPresent(f -> store.set(t, file, f, null));
    }
  }

  /** The batch's file documents that exist, in its order, read in the transaction. */
  List<Map<String, Object>> filesIn(Transaction t, BatchRecord batch) throws Exception {
    return store.getAllIn(t, batch.fileIds()).stream().flatMap(doc -> optional(doc).stream()).toList();
  }

  /** Files reopened per transaction: well below the 500 writes of one commit. */
  private static final int REOPEN_FILES_PER_COMMIT = MAX_WRITES_PER_COMMIT - 100;

  /**
   * One transaction per chunk of files, the last one also turning the partition READY: a
   * partition's files may exceed one commit. An interrupted reopen leaves the partition INGESTED
   * with some files RECORDED; calling it again finishes the job. The partition as reopened (or as
   * it was, READY).
   */
  PartitionRecord reopen(String table, String partition) {
    DocumentReference ref = store.partitionRef(table, partition);
    while (true) {
      Optional<PartitionRecord> done = store.transaction("reopenPartition", ref.getPath() + " (" + table + "/"
          + partition + ")", t -> {
        Map<String, Object> doc = optional(t.get(ref).get()).orElseThrow(() -> new IllegalArgumentException(
            "Cannot reopen partition " + table + "/" + partition + ": no such partition"));
        Instant now = Instant.ofEpochMilli(store.clock.millis());
        Optional<PartitionRecord> reopened = PartitionRules.reopened(FirestoreDocuments.partition(doc), now);
        if (reopened.isEmpty()) {
          return Optional.of(FirestoreDocuments.partition(doc));
        }
        List<QueryDocumentSnapshot> ingested = t.get(LedgerQuery.PENDING_FILES.on(store.files, table, partition,
            FileState.INGESTED.code()).limit(REOPEN_FILES_PER_COMMIT)).get().getDocuments();
        for (QueryDocumentSnapshot snapshot : ingested) {
          Map<String, Object> file = data(snapshot);
          FileRules.reopened(FirestoreDocuments.file(file)).ifPresent(f -> store.set(t, file, f, null));
        }
        if (ingested.size() == REOPEN_FILES_PER_COMMIT) {
          return Optional.<PartitionRecord>empty(); // more to come: the partition stays INGESTED
        }
        store.set(t, doc, reopened.get());
        return Optional.of(FirestoreDocuments.partition(doc));
      });
      if (done.isPresent()) {
        return done.get();
      }
    }
  }

  /** One of a batch's partitions as stored, and whether it still has RECORDED files (when asked). */
  record Release(String token, Optional<Map<String, Object>> stored, boolean pending) {}

  /** The batch's partitions, read in one call, and (with {@code checkPending}) whether each has files pending. */
  List<Release> partitionsOf(Transaction t, BatchRecord batch, boolean checkPending) throws Exception {
    List<String> tokens = batch.partitions();
    if (tokens.isEmpty()) {
      return List.of();
    }
    List<DocumentSnapshot> stored = t.getAll(
        tokens.stream().map(token -> store.partitionRef(batch.table(), token)).toArray(DocumentReference[]::new)).get();
    List<ApiFuture<Boolean>> pending = new ArrayList<>();
    if (checkPending) {
      for (String token : tokens) {
        pending.add(store.hasPending(t, batch.table(), token));
      }
    }
    List<Release> releases = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      releases.add(new Release(tokens.get(i), optional(stored.get(i)), checkPending && pending.get(i).get()));
    }
    return releases;
  }

  /** Writes what a commit or failure ({@code rule}) does to one of the batch's partitions, if it still holds it. */
  Optional<PartitionRecord> release(Transaction t, BatchRecord batch, Release release,
      Function<PartitionRecord, Optional<PartitionRecord>> rule) {
    Optional<PartitionRecord> released = release.stored().map(FirestoreDocuments::partition).flatMap(rule);
    if (released.isEmpty()) {
      LOG.warn("Partition {} of table {} is no longer claimed by batch {}; left as it is",
          release.token(), batch.table(), batch.batchId());
    } else {
      store.set(t, release.stored().get(), released.get());
    }
    return released;
  }

  /** After a failure: the partition released with an attempt counted; named (for the log) when that made it FAILED. */
  Optional<String> releaseFailed(Transaction t, BatchRecord batch, Release release, int maxAttempts, Instant now) {
    String error = batch.error().orElse("");
    return release(t, batch, release, p -> PartitionRules.afterFailure(p, batch.batchId(), error, maxAttempts, now))
        .filter(p -> p.state() == PartitionState.FAILED)
        .map(p -> release.token() + " after " + p.attempts() + " attempts");
  }
}
