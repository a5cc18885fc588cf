package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.SUPERSEDING;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.MAX_DOCUMENT_BYTES;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.MAX_FILE_LIST_BYTES;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.MAX_WRITES_PER_COMMIT;
import static io.files2iceberg.ledger.firestore.FirestoreReads.IN_FLIGHT;
import static io.files2iceberg.ledger.firestore.FirestoreStore.data;

import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.Transaction;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.NewestClaimWalk;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Firestore ledger's claims: the claim walks ({@link ClaimWalk}, {@link NewestClaimWalk}) over
 * documents, within Firestore's bounds: a transaction reads at most one commit's worth of
 * partitions, a batch document's file list stays within 1 MiB ({@link
 * FirestoreLedger#MAX_FILE_LIST_BYTES}), and a claim that writes more than one commit holds marks
 * the batch as owing its files (and the partitions it supersedes) for {@link FirestoreSettling}.
 */
final class FirestoreClaims {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreLedger.class);

  private final FirestoreStore store;
  private final FirestoreSettling settling;

  FirestoreClaims(FirestoreStore store, FirestoreSettling settling) {
    this.store = store;
    this.settling = settling;
  }

  Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    String table = command.table();
    settling.settleTable(table);
    if (!hasReady("claimPartitions", table)) {
      return Optional.empty();
    }
    Optional<Created> created = store.transaction("claimPartitions", store.partitions.getPath() + " (table " + table
        + ")", t -> {
      if (command.exclusive() && hasInFlight(t, table)) {
        return Optional.<Created>empty();
      }
      Instant now = now();
      // Reads first (a Firestore transaction reads everything before it writes), then the writes.
      // Every partition walked costs a write in this commit (its files may come after it), so more
      // than one commit's worth is never read.
      List<QueryDocumentSnapshot> ready = t.get(LedgerQuery.PARTITIONS_IN_STATE.on(store.partitions, table,
          PartitionState.READY.code()).limit(MAX_WRITES_PER_COMMIT - 1)).get().getDocuments();
      ClaimWalk walk = new ClaimWalk(command.maxFiles(), command.maxBytes());
      List<Map<String, Object>> claimed = new ArrayList<>();
      List<Map<String, Object>> settled = new ArrayList<>();
      List<Map<String, Object>> files = new ArrayList<>();
      long listBytes = 0;
      for (QueryDocumentSnapshot snapshot : ready) {
        if (walk.isDone() || 2 + claimed.size() + settled.size() > MAX_WRITES_PER_COMMIT) {
          break;
        }
        Map<String, Object> partition = data(snapshot);
        // One more than fits tells whether the whole partition does.
        List<QueryDocumentSnapshot> pending = t.get(LedgerQuery.PENDING_FILES.on(store.files, table,
            FirestoreDocuments.partition(partition).partition(), FileState.RECORDED.code()).limit(walk.room() + 1))
            .get().getDocuments();
        // The batch document lists every file and event id: only files that keep it within 1 MiB fit.
        int fitting = 0;
        for (long bytes = listBytes; fitting < pending.size(); fitting++) {
          bytes += listedBytes(pending.get(fitting));
          if (bytes > MAX_FILE_LIST_BYTES) {
            break;
          }
        }
        ClaimWalk.Step step = walk.capsBytes()
            ? walk.offerSizes(pending.stream().map(FirestoreClaims::fileSize).toList(), fitting)
            : walk.offer(pending.size(), fitting);
        if (step.action() == ClaimWalk.Action.STOP) {
          break;
        } else if (step.action() == ClaimWalk.Action.SETTLE) {
          settled.add(partition); // nothing to load (its files were quarantined, or a marker without files)
        } else {
          for (QueryDocumentSnapshot file : pending.subList(0, step.files())) {
            files.add(data(file));
            listBytes += listedBytes(file);
          }
          claimed.add(partition);
        }
      }
      for (Map<String, Object> partition : settled) {
        store.set(t, partition, PartitionRules.settled(FirestoreDocuments.partition(partition), now));
      }
      if (claimed.isEmpty()) {
        return Optional.<Created>empty();
      }
      boolean inline = 1 + settled.size() + claimed.size() + files.size() <= MAX_WRITES_PER_COMMIT;
      return Optional.of(createBatch(t, table, claimed, files, inline, List.of(), command.lease(), now,
          "lower max-batch-size"));
    });
    Optional<BatchRecord> claimed = created.map(c -> settleCreated(c, "claimed"));
    // Logged once the transaction committed (its body may run more than once).
    claimed.ifPresent(batch -> LOG.info("Claimed batch {} of table {}: {} files in partitions {}",
        batch.batchId(), table, batch.fileIds().size(), batch.partitions()));
    return claimed;
  }

  Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    String table = command.table();
    settling.settleTable(table);
    if (!hasReady("claimNewestPartition", table)) {
      return Optional.empty();
    }
    List<String> superseded = new ArrayList<>();
    Optional<Created> created = store.transaction("claimNewestPartition", store.partitions.getPath() + " (table "
        + table + ")", t -> newest(t, command, superseded));
    Optional<NewestPartitionClaimed> claimed = created.map(c ->
        new NewestPartitionClaimed(settleCreated(c, "claimed"), superseded.stream().sorted().toList()));
    claimed.ifPresent(c -> LOG.info("Claimed batch {} of table {}: {} files of the newest partition {}; superseded {}",
        c.batch().batchId(), table, c.batch().fileIds().size(), c.batch().partitions(), c.superseded()));
    return claimed;
  }

  /**
   * {@link #claimNewestPartition}'s one transaction. It decides everything ({@link NewestClaimWalk}).
   * When its writes fit one commit they are all made here; otherwise the batch document carries
   * what is still owed (the older partitions to supersede, the files to mark claimed), which
   * {@link FirestoreSettling#settle} applies right after, one commit at a time.
   */
  private Optional<Created> newest(Transaction t, ClaimNewestPartition command, List<String> superseded)
      throws Exception {
    superseded.clear();
    String table = command.table();
    if (hasInFlight(t, table)) {
      return Optional.empty();
    }
    Instant now = now();
    // Reads first: every READY partition (oldest first), then the pending files of the newest ones.
    List<Map<String, Object>> ready = new ArrayList<>();
    for (QueryDocumentSnapshot snapshot : t.get(LedgerQuery.PARTITIONS_IN_STATE
        .on(store.partitions, table, PartitionState.READY.code())).get().getDocuments()) {
      ready.add(data(snapshot));
    }
    NewestClaimWalk walk = new NewestClaimWalk();
    List<Map<String, Object>> settled = new ArrayList<>();
    int newest = -1;
    List<QueryDocumentSnapshot> pending = List.of();
    for (int i = ready.size() - 1; i >= 0 && !walk.hasTaken(); i--) {
      pending = t.get(LedgerQuery.PENDING_FILES.on(store.files, table, FirestoreDocuments.partition(ready.get(i))
          .partition(), FileState.RECORDED.code())).get().getDocuments();
      if (walk.offer(!pending.isEmpty()) == NewestClaimWalk.Step.SETTLE) {
        settled.add(ready.get(i));
      } else {
        newest = i;
      }
    }
    List<Map<String, Object>> older = newest < 0 ? List.of() : ready.subList(0, newest);
    boolean inline = 2 + settled.size() + older.size() + pending.size() <= MAX_WRITES_PER_COMMIT;
    // Settled partitions that do not fit this commit stay READY with nothing pending: newer than
    // the claimed one, they are settled by the next claim and supersede nothing.
    for (Map<String, Object> partition : settled.subList(0, Math.min(settled.size(),
        MAX_WRITES_PER_COMMIT - (newest < 0 ? 0 : 2)))) {
      store.set(t, partition, PartitionRules.settled(FirestoreDocuments.partition(partition), now));
    }
    if (newest < 0) {
      return Optional.empty();
    }
    for (Map<String, Object> partition : older) {
      PartitionRecord supersede = PartitionRules.superseded(FirestoreDocuments.partition(partition), now);
      if (inline) {
        store.set(t, partition, supersede);
      }
      superseded.add(supersede.partition());
    }
    return Optional.of(createBatch(t, table, List.of(ready.get(newest)), pending.stream().map(FirestoreStore::data)
        .toList(), inline, inline ? List.of() : List.copyOf(superseded), command.lease(), now,
        "ingestion-type last loads the newest partition whole, so its files cannot be split over batches"));
  }

  /** A batch created by a claim's transaction; {@code owed}: its files (and supersedes) still to be written. */
  private record Created(BatchRecord batch, boolean owed) {}

  /** After the claim's commit: applies what it owes, if anything. */
  private BatchRecord settleCreated(Created created, String step) {
    if (created.owed()) {
      settling.reached(step, created.batch().batchId());
      settling.settle(created.batch().batchId());
    }
    return created.batch();
  }

  /** What a file adds to its batch document: its id and its event id. */
  /** The file's recorded size in bytes (negative: unknown). */
  private static long fileSize(DocumentSnapshot file) {
    Long size = file.getLong(LedgerSchema.SIZE);
    return size == null ? -1 : size;
  }

  private static long listedBytes(DocumentSnapshot file) {
    return FirestoreDocuments.listedBytes(file.getString(FILE_ID)) + FirestoreDocuments.listedBytes(file.getString(EVENT_ID));
  }

  /**
   * Whether the table has a READY partition, asked outside a transaction, after the settling (a
   * failure's last commit makes its partitions READY again). A batcher's turn claims every table,
   * and most have nothing READY: this costs such a claim one query, where the transaction cost a
   * begin, two queries and a commit, and took no lock on the table's READY partitions, which the
   * listener's markers write. A partition that becomes READY just after the answer is claimed by
   * the next turn, as one that became READY just after the transaction would be; the transaction
   * reads again whatever it claims.
   */
  private boolean hasReady(String operation, String table) {
    return store.read(operation, store.partitions.getPath() + " (table " + table + ")", () ->
        !LedgerQuery.PARTITIONS_IN_STATE.on(store.partitions, table, PartitionState.READY.code()).limit(1).get().get()
            .isEmpty());
  }

  private boolean hasInFlight(Transaction t, String table) throws Exception {
    return !t.get(LedgerQuery.BATCHES_IN_STATES.on(store.batches, table, IN_FLIGHT).limit(1)).get().isEmpty();
  }

  /**
   * The claim's writes, in the caller's transaction after its reads: the partitions CLAIMED by a
   * new batch, the batch PLANNED, and ({@code inline}) the files CLAIMED. Otherwise the batch
   * document owes the files' move ({@link LedgerSchema#SETTLING} {@code claimed}) and the older
   * partitions to supersede, which {@link FirestoreSettling#settle} writes after this commit: until
   * then every reader takes the batch's files from its document, and its partitions are CLAIMED,
   * so no other claim can take them.
   */
  private Created createBatch(Transaction t, String table, List<Map<String, Object>> partitions,
      List<Map<String, Object>> fileDocs, boolean inline, List<String> superseding, Duration lease, Instant now,
      String tooLarge) {
    String batchId = BatchRules.newBatchId(store.clock.instant());
    List<FileRecord> files = fileDocs.stream().map(FirestoreDocuments::file).toList();
    for (int position = 0; inline && position < files.size(); position++) {
      store.set(t, fileDocs.get(position), FileRules.claimed(files.get(position), batchId), position);
    }
    List<String> tokens = new ArrayList<>();
    for (Map<String, Object> partition : partitions) {
      PartitionRecord claimed = PartitionRules.claimed(FirestoreDocuments.partition(partition), batchId, now);
      store.set(t, partition, claimed);
      tokens.add(claimed.partition());
    }
    Map<String, Object> batch = FirestoreDocuments.put(new HashMap<>(), BatchRules.planned(batchId, table, tokens,
        files.stream().map(FileRecord::fileId).toList(), files.stream().map(FileRecord::eventId).toList(), lease, now));
    if (!inline) {
      FirestoreSettling.owe(batch, FileState.CLAIMED);
      if (!superseding.isEmpty()) {
        batch.put(SUPERSEDING, superseding);
      }
    }
    DocumentReference batchRef = store.batches.document(batchId);
    long size = FirestoreDocuments.storedSize(batchRef.getPath(), batch);
    if (size > MAX_DOCUMENT_BYTES) {
      throw new IllegalStateException("Cannot claim batch " + batchId + " of table " + table + " (partitions "
          + tokens + "): its document " + batchRef.getPath() + " would hold " + size + " bytes (" + files.size()
          + " file and event ids), over Firestore's limit of 1 MiB per document; " + tooLarge);
    }
    t.create(batchRef, batch);
    return new Created(FirestoreDocuments.batch(batch), !inline);
  }

  private Instant now() {
    return Instant.ofEpochMilli(store.clock.millis());
  }
}
