package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.FILE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING_MAX_ATTEMPTS;
import static io.files2iceberg.ledger.firestore.FirestoreStore.data;
import static io.files2iceberg.ledger.firestore.FirestoreStore.optional;

import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import com.google.cloud.firestore.Transaction;
import io.files2iceberg.core.ledger.BatchCommitted;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import io.files2iceberg.core.ledger.rules.RecordingWalk;
import io.files2iceberg.core.profile.LedgerSettings;
import io.files2iceberg.ledger.firestore.FirestoreSettling.Decided;
import io.files2iceberg.ledger.firestore.FirestoreSettling.Release;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production ledger: Cloud Firestore in native mode, one document per file, partition, batch
 * and quarantined message, in four collections whose names carry the deployment's collection
 * prefix ({@code <prefix>files}, {@code <prefix>partitions}, {@code <prefix>batches}, {@code
 * <prefix>quarantine}); field names, document ids and state codes are {@link LedgerSchema}'s and
 * the state enums'. A port: every decision is the rules' ({@code core.ledger.rules}); this class
 * reads the documents a call needs, as records, and writes the records the rules return.
 *
 * <p>Every method that changes state is one Firestore transaction: it reads what it checks, checks
 * it, and writes; Firestore reruns it when a document it read changed before the commit. So the
 * SQLite ledger's guarantees hold here too, in particular that concurrent claimers never put one
 * file in two batches: a file joins a batch (its id in the batch document's list) only in the
 * transaction that moves its partition from READY to CLAIMED and finds it RECORDED, and a
 * transaction that read either document stale is rerun.
 *
 * <p>A Firestore commit holds at most {@value #MAX_WRITES_PER_COMMIT} writes: a batch's transition
 * that writes more is decided in one transaction and its other writes made after it, a commit at a
 * time ({@link FirestoreSettling}), so a process that dies between two commits leaves nothing lost
 * or claimed twice.
 *
 * <p>Transient Firestore errors are retried with backoff ({@link FirestoreRetry}); after the bound,
 * or when no answer came within {@code ledger.deadline}, they surface as {@code
 * LedgerUnavailableException}, other errors as {@code IllegalStateException}, both naming the
 * document.
 */
public final class FirestoreLedger extends FirestoreReads {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreLedger.class);

  /** Firestore's bound on the writes of one commit (transaction or batched write). */
  static final int MAX_WRITES_PER_COMMIT = 500;
  /** Files moved per commit while a batch settles: with the batch document's count, one commit. */
  static final int SETTLE_FILES_PER_COMMIT = MAX_WRITES_PER_COMMIT - 1;
  /** Below Firestore's 1 MiB per document, with room for the document name and overhead. */
  static final long MAX_DOCUMENT_BYTES = 1_000_000;
  /**
   * What a claim lets a batch document's file and event ids take (the rest of it, partitions and
   * counters, is far smaller): about 11,000 files with Pub/Sub message ids.
   */
  static final long MAX_FILE_LIST_BYTES = MAX_DOCUMENT_BYTES - 64 * 1024;
  /** A quarantined message's payload is cut to this many characters to fit one document. */
  static final int MAX_RAW_PAYLOAD_CHARS = 256 * 1024;

  private final FirestoreSettling settling;
  private final FirestoreClaims claims;

  private FirestoreLedger(FirestoreStore store) {
    super(store);
    this.settling = new FirestoreSettling(store);
    this.claims = new FirestoreClaims(store, settling);
  }

  /**
   * Opens the ledger the settings name: {@code ledger.firestore-project}, {@code
   * ledger.firestore-database} and {@code ledger.collection-prefix}, with Application Default
   * Credentials; or, when {@code FIRESTORE_EMULATOR_HOST} is set, the emulator there without
   * credentials. Makes no call yet: {@link #unavailableBecause()} tells whether Firestore takes a
   * write. Every call, the client's own retries and the ledger's together, ends within {@code
   * ledger.deadline}: the client gives each call that long in all, and {@link FirestoreRetry}
   * stops waiting there.
   */
  public static FirestoreLedger open(LedgerSettings settings, Clock clock) {
    return open(settings, clock, System.getenv("FIRESTORE_EMULATOR_HOST"));
  }

  static FirestoreLedger open(LedgerSettings settings, Clock clock, String emulatorHost) {
    return new FirestoreLedger(FirestoreStore.open(settings, clock, emulatorHost));
  }

  /**
   * A ledger on a client the caller owns (and closes): tests, or a process that already has one.
   *
   * @param collectionPrefix prefixed to every collection name; may be empty
   */
  public static FirestoreLedger open(Firestore client, String collectionPrefix, Clock clock) {
    return open(client, collectionPrefix, clock, FirestoreRetry.DEFAULT);
  }

  /**
   * A ledger on a client the caller owns (and closes), whose calls each end within {@code
   * deadline} (as {@code ledger.deadline} bounds them): an emulator on a busy machine, a benchmark.
   *
   * @param collectionPrefix prefixed to every collection name; may be empty
   */
  public static FirestoreLedger open(Firestore client, String collectionPrefix, Clock clock, Duration deadline) {
    return open(client, collectionPrefix, clock, FirestoreRetry.within(deadline));
  }

  static FirestoreLedger open(Firestore client, String collectionPrefix, Clock clock, FirestoreRetry retry) {
    return new FirestoreLedger(FirestoreStore.open(client, collectionPrefix, clock, retry));
  }

  /** Points the options at an emulator, without credentials ({@link FirestoreStore#emulator}). */
  static FirestoreOptions.Builder emulator(FirestoreOptions.Builder options, String emulatorHost) {
    return FirestoreStore.emulator(options, emulatorHost);
  }

  /** The collection prefix, possibly empty. */
  public String collectionPrefix() {
    return store.prefix;
  }

  /** For crash tests: a hook that throws there stops the call as a process that dies would. */
  void onBetweenCommits(FirestoreSettling.BetweenCommits hook) {
    settling.onBetweenCommits(hook);
  }

  /** How many times a transaction body ran, reruns on contention included (for tests and metrics). */
  long transactionRuns() {
    return store.transactionRuns();
  }

  // --- files and markers -------------------------------------------------------------------------

  @Override
  public FileRecorded recordFile(RecordFile command) {
    DocumentReference fileRef = store.files.document(command.fileId());
    return record("recordFile", fileRef.getPath() + " (" + command.uri() + ")", List.of(command)).get(0);
  }

  /**
   * Commits of at most {@value #MAX_WRITES_PER_COMMIT} writes, one after the other: each takes as
   * many of the files, in order, as fit with the partition documents they may change, and is one
   * transaction that reads what it checks (the files and their partitions), as {@link #recordFile}
   * is. A marker's listing of 10,000 files is 21 commits, not 10,000.
   */
  @Override
  public List<FileRecorded> recordFiles(List<RecordFile> commands) {
    List<FileRecorded> recorded = new ArrayList<>(commands.size());
    int from = 0;
    while (from < commands.size()) {
      Set<String> partitions = new HashSet<>();
      int to = from;
      while (to < commands.size()) {
        String partition = LedgerSchema.partitionId(commands.get(to).table(), commands.get(to).partition());
        int writes = to - from + 1 + partitions.size() + (partitions.contains(partition) ? 0 : 1);
        if (writes > MAX_WRITES_PER_COMMIT) {
          break;
        }
        partitions.add(partition);
        to++;
      }
      List<RecordFile> chunk = commands.subList(from, to);
      recorded.addAll(record("recordFiles", store.files.getPath() + " (" + chunk.size() + " files from "
          + chunk.get(0).uri() + " to " + chunk.get(chunk.size() - 1).uri() + ")", chunk));
      from = to;
    }
    return recorded;
  }

  /**
   * Records the files in one transaction, as {@link RecordingWalk} decides: reads the files and
   * their partitions (and the partitions of files already stored elsewhere), then writes.
   */
  private List<FileRecorded> record(String operation, String path, List<RecordFile> commands) {
    List<String> fileIds = commands.stream().map(RecordFile::fileId).distinct().toList();
    Map<String, DocumentReference> commandPartitions = new LinkedHashMap<>();
    for (RecordFile command : commands) {
      commandPartitions.computeIfAbsent(LedgerSchema.partitionId(command.table(), command.partition()),
          id -> store.partitionRef(command.table(), command.partition()));
    }
    return store.transaction(operation, path, t -> {
      List<DocumentReference> refs = new ArrayList<>(fileIds.size() + commandPartitions.size());
      fileIds.forEach(id -> refs.add(store.files.document(id)));
      refs.addAll(commandPartitions.values());
      List<DocumentSnapshot> read = store.getAllOf(t, refs);
      Map<String, FileRecord> stored = new HashMap<>();
      for (DocumentSnapshot doc : read.subList(0, fileIds.size())) {
        optional(doc).map(FirestoreDocuments::file).ifPresent(file -> stored.put(file.fileId(), file));
      }
      Map<String, Map<String, Object>> partitionDocs = new HashMap<>();
      List<String> partitionIds = new ArrayList<>(commandPartitions.keySet());
      for (int i = 0; i < partitionIds.size(); i++) {
        Optional<Map<String, Object>> doc = optional(read.get(fileIds.size() + i));
        if (doc.isPresent()) {
          partitionDocs.put(partitionIds.get(i), doc.get());
        }
      }
      // A stored file of another partition than its command names (a replay under a changed
      // profile): its partition, as it stands, is what the call reports.
      Map<String, DocumentReference> others = new LinkedHashMap<>();
      for (FileRecord file : stored.values()) {
        String id = LedgerSchema.partitionId(file.table(), file.partition());
        if (!commandPartitions.containsKey(id)) {
          others.putIfAbsent(id, store.partitionRef(file.table(), file.partition()));
        }
      }
      if (!others.isEmpty()) {
        List<String> otherIds = new ArrayList<>(others.keySet());
        List<DocumentSnapshot> otherDocs = store.getAllOf(t, new ArrayList<>(others.values()));
        for (int i = 0; i < otherIds.size(); i++) {
          Optional<Map<String, Object>> doc = optional(otherDocs.get(i));
          if (doc.isPresent()) {
            partitionDocs.put(otherIds.get(i), doc.get());
          }
        }
      }
      Map<String, PartitionRecord> partitions = new HashMap<>();
      partitionDocs.forEach((id, doc) -> partitions.put(id, FirestoreDocuments.partition(doc)));
      RecordingWalk.Plan plan = RecordingWalk.plan(commands, stored, partitions, now());
      Map<String, FileRecord> created = new HashMap<>();
      for (FileRecord file : plan.created()) {
        Map<String, Object> doc = FirestoreDocuments.file(file);
        t.create(store.files.document(file.fileId()), doc);
        created.put(file.fileId(), FirestoreDocuments.file(doc));
      }
      for (PartitionRecord partition : plan.partitions()) {
        write(t, Optional.ofNullable(partitionDocs.get(LedgerSchema.partitionId(partition.table(),
            partition.partition()))), partition);
      }
      return plan.recorded().stream()
          .map(r -> created.containsKey(r.file().fileId())
              ? new FileRecorded(r.isNew(), created.get(r.file().fileId()), r.partition()) : r)
          .toList();
    });
  }

  @Override
  public PartitionRecord markReady(MarkReady command) {
    DocumentReference ref = store.partitionRef(command.table(), command.partition());
    return store.transaction("markReady", ref.getPath() + " (" + command.table() + "/" + command.partition() + ")", t -> {
      Optional<Map<String, Object>> stored = optional(t.get(ref).get());
      Optional<PartitionRecord> partition = stored.map(FirestoreDocuments::partition);
      boolean pending = partition.filter(p -> p.state() == PartitionState.INGESTED).isPresent()
          && store.hasPending(t, command.table(), command.partition()).get();
      Optional<PartitionRecord> moved = PartitionRules.onMarker(partition, command, pending, now());
      return moved.isPresent() ? write(t, stored, moved.get()) : partition.orElseThrow();
    });
  }

  /** Creates or overwrites a partition's document; returns the record as stored. */
  private PartitionRecord write(Transaction t, Optional<Map<String, Object>> stored, PartitionRecord partition) {
    Map<String, Object> doc = FirestoreDocuments.put(stored.orElseGet(HashMap::new), partition);
    if (stored.isEmpty()) {
      t.create(store.partitionRef(partition), doc);
    } else {
      t.set(store.partitionRef(partition), doc);
    }
    return FirestoreDocuments.partition(doc);
  }

  @Override
  public Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    return claims.claimPartitions(command);
  }

  @Override
  public Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    return claims.claimNewestPartition(command);
  }

  // --- batches -----------------------------------------------------------------------------------

  @Override
  public BatchRecord markRunning(String batchId, Duration lease) {
    Objects.requireNonNull(lease, "lease");
    return store.batchTransition("markRunning", batchId, "Cannot mark batch " + batchId + " running",
        (t, batch, action) -> write(t, batch, BatchRules.running(FirestoreDocuments.batch(batch), lease, now())));
  }

  @Override
  public BatchRecord renewLease(String batchId, Duration lease) {
    return newLease("renewLease", "Cannot renew the lease of batch " + batchId, batchId, lease, false);
  }

  @Override
  public BatchRecord takeOverExpiredLease(String batchId, Duration lease) {
    BatchRecord taken = newLease("takeOverExpiredLease", "Cannot take over batch " + batchId, batchId, lease, true);
    // Recovery's batch may be one whose claim died before it wrote the files (they are the
    // batch's by its document either way): the new owner writes them first.
    settling.settle(batchId);
    return taken;
  }

  private BatchRecord newLease(String operation, String action, String batchId, Duration lease, boolean onlyExpired) {
    Objects.requireNonNull(lease, "lease");
    return store.batchTransition(operation, batchId, action, (t, batch, checked) ->
        write(t, batch, BatchRules.leased(FirestoreDocuments.batch(batch), lease, onlyExpired, checked, now())));
  }

  /** Writes a batch record over its stored document (its settling fields kept); returns it as stored. */
  private BatchRecord write(Transaction t, Map<String, Object> doc, BatchRecord batch) {
    t.set(store.batches.document(batch.batchId()), FirestoreDocuments.put(doc, batch));
    return FirestoreDocuments.batch(doc);
  }

  @Override
  public BatchCommitted commitBatch(CommitBatch command) {
    String batchId = command.batchId();
    String action = "Cannot commit batch " + batchId;
    Decided<BatchCommitted> decided = settling.decide("commitBatch", batchId, action, (t, doc, stored) -> {
      Instant now = now();
      Optional<BatchRecord> committed = BatchRules.committed(stored, command, now);
      if (committed.isEmpty()) {
        return new Decided<>(new BatchCommitted(stored, true), false, List.of());
      }
      // The checkpoint is this commit; its files and partitions follow in it when they fit, else
      // after it (settle), partitions last.
      boolean inline = FirestoreSettling.fitsOneCommit(stored);
      List<Map<String, Object>> files = inline ? settling.filesIn(t, stored) : List.of();
      // A split partition (or one that got late files while claimed) is READY again for the rest.
      List<Release> releases = inline ? settling.partitionsOf(t, stored, true) : List.of();
      if (!inline) {
        FirestoreSettling.owe(doc, FileState.INGESTED);
      }
      BatchRecord written = write(t, doc, committed.get());
      settling.moveFiles(t, files, FileState.INGESTED, committed.get(), command.fileRows());
      for (Release release : releases) {
        settling.release(t, stored, release, p -> PartitionRules.afterCommit(p, batchId, release.pending(), now));
      }
      return new Decided<>(new BatchCommitted(written, false), !inline, List.of());
    }, "committed", command.fileRows());
    if (!decided.result().alreadyCommitted()) {
      LOG.info("Committed batch {} of table {} with snapshot {}", batchId, decided.result().batch().table(),
          command.snapshotId());
    }
    return decided.result();
  }

  @Override
  public BatchRecord failBatch(FailBatch command) {
    String batchId = command.batchId();
    String action = "Cannot fail batch " + batchId;
    Decided<BatchRecord> decided = settling.decide("failBatch", batchId, action, (t, doc, stored) -> {
      Instant now = now();
      BatchRecord failed = BatchRules.failed(stored, command, now);
      boolean inline = FirestoreSettling.fitsOneCommit(stored);
      List<Map<String, Object>> files = inline ? settling.filesIn(t, stored) : List.of();
      List<Release> releases = inline ? settling.partitionsOf(t, stored, false) : List.of();
      if (!inline) {
        FirestoreSettling.owe(doc, FileState.RECORDED);
        doc.put(SETTLING_MAX_ATTEMPTS, (long) command.maxAttempts());
      }
      BatchRecord written = write(t, doc, failed);
      settling.moveFiles(t, files, FileState.RECORDED, failed, Map.of());
      List<String> exhausted = new ArrayList<>();
      for (Release release : releases) {
        settling.releaseFailed(t, written, release, command.maxAttempts(), now).ifPresent(exhausted::add);
      }
      return new Decided<>(written, !inline, exhausted);
    }, "failed");
    for (String exhausted : decided.exhausted()) {
      LOG.info("Partition {} of table {} FAILED (batch {})", exhausted, decided.result().table(), batchId);
    }
    // The error itself is the batcher's to log, once.
    LOG.info("Failed batch {} of table {}", batchId, decided.result().table());
    return decided.result();
  }

  @Override
  public int pruneCommitted(String table, int keep) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep must not be negative, was " + keep);
    }
    // Not one transaction: a committed batch never changes again, so deleting the ones beyond the
    // newest `keep` is idempotent, and each round is one batched write of at most one commit. A
    // commit still owing its files' writes needs its document: those are written first.
    settling.settleTable(table);
    int deleted = store.deleteCommittedBeyond(table, keep);
    if (deleted > 0) {
      LOG.info("Pruned {} committed batches of table {}, kept the newest {}", deleted, table, keep);
    }
    return deleted;
  }

  // --- quarantine --------------------------------------------------------------------------------

  @FunctionalInterface
  private interface FileChange {
    Optional<FileRecord> apply(FileRecord file);
  }

  /** One file's transition: the rule's record written over its document; the file as stored after. */
  private FileRecord changeFile(String operation, String fileId, String action, FileChange change) {
    DocumentReference ref = store.files.document(fileId);
    return store.transaction(operation, ref.getPath(), t -> {
      Map<String, Object> file = optional(t.get(ref).get())
          .orElseThrow(() -> new IllegalArgumentException(action + fileId + ": no such file"));
      Optional<FileRecord> changed = change.apply(FirestoreDocuments.file(file));
      changed.ifPresent(f -> store.set(t, file, f, null));
      return FirestoreDocuments.file(file);
    });
  }

  @Override
  public FileRecord quarantineFile(String fileId, String reason) {
    Objects.requireNonNull(reason, "reason");
    FileRecord quarantined = changeFile("quarantineFile", fileId, "Cannot quarantine file ",
        file -> Optional.of(FileRules.quarantined(file, reason)));
    LOG.warn("Quarantined file {} of table {}: {}", quarantined.uri(), quarantined.table(), reason);
    return quarantined;
  }

  @Override
  public FileRecord supersedeFile(String fileId, String reason) {
    return leaveOut("supersedeFile", "Cannot supersede file ", fileId, FileState.SUPERSEDED, reason);
  }

  @Override
  public FileRecord ignoreFile(String fileId, String reason) {
    return leaveOut("ignoreFile", "Cannot ignore file ", fileId, FileState.IGNORED, reason);
  }

  private FileRecord leaveOut(String operation, String action, String fileId, FileState target, String reason) {
    Objects.requireNonNull(reason, "reason");
    FileRecord left = changeFile(operation, fileId, action, file -> FileRules.leftOut(file, target, reason, action));
    LOG.warn("File {} generation {} of table {} is {}: {}", left.uri(), left.generation(), left.table(),
        left.state(), left.quarantineReason().orElse(reason));
    return left;
  }

  @Override
  public void quarantineMessage(QuarantinedMessage message) {
    store.createQuarantined(message, MAX_RAW_PAYLOAD_CHARS);
  }

  @Override
  public boolean releaseMessage(String messageId) {
    return store.deleteQuarantined(messageId);
  }

  @Override
  public FileRecord releaseFile(String fileId) {
    DocumentReference ref = store.files.document(fileId);
    FileRecord released = store.transaction("releaseFile", ref.getPath(), t -> {
      Map<String, Object> file = optional(t.get(ref).get())
          .orElseThrow(() -> new IllegalArgumentException("Cannot release file " + fileId + ": no such file"));
      FileRecord recorded = FileRules.released(FirestoreDocuments.file(file));
      Map<String, Object> partition = optional(t.get(store.partitionRef(recorded.table(), recorded.partition())).get())
          .orElseThrow(() -> new IllegalStateException("Partition " + recorded.table() + "/" + recorded.partition()
              + " is missing from the ledger"));
      // Like a late file: an INGESTED partition is READY again for just this file.
      PartitionRules.onFileReleased(FirestoreDocuments.partition(partition), now())
          .ifPresent(p -> store.set(t, partition, p));
      store.set(t, file, recorded, null);
      return FirestoreDocuments.file(file);
    });
    LOG.info("Released file {} of table {} from the quarantine", released.uri(), released.table());
    return released;
  }

  // --- operator commands: replay, retry, revive --------------------------------------------------

  @Override
  public PartitionRecord reopenPartition(String table, String partition) {
    PartitionRecord reopened = settling.reopen(table, partition);
    LOG.info("Reopened partition {}/{}: its ingested files load again", table, partition);
    return reopened;
  }

  @Override
  public PartitionRecord retryPartition(String table, String partition) {
    DocumentReference ref = store.partitionRef(table, partition);
    String action = "Cannot retry partition " + table + "/" + partition;
    return store.transaction("retryPartition", ref.getPath() + " (" + table + "/" + partition + ")", t -> {
      Map<String, Object> doc = optional(t.get(ref).get())
          .orElseThrow(() -> new IllegalArgumentException(action + ": no such partition"));
      store.set(t, doc, PartitionRules.retried(FirestoreDocuments.partition(doc), action, now()));
      return FirestoreDocuments.partition(doc);
    });
  }

  @Override
  public List<PartitionRecord> retryBatch(String batchId) {
    settling.settle(batchId); // a failure cut short still holds its partitions
    List<PartitionRecord> retried = store.batchTransition("retryBatch", batchId, "Cannot retry batch " + batchId,
        (t, batch, action) -> {
          BatchRecord stored = FirestoreDocuments.batch(batch);
          BatchRules.requireRetryable(stored, action);
          List<PartitionRecord> requeued = new ArrayList<>();
          for (Release release : settling.partitionsOf(t, stored, false)) {
            Optional<Map<String, Object>> doc = release.stored()
                .filter(p -> PartitionState.RETRYABLE.contains(FirestoreDocuments.partition(p).state()));
            if (doc.isPresent()) {
              store.set(t, doc.get(), PartitionRules.retried(FirestoreDocuments.partition(doc.get()), action, now()));
              requeued.add(FirestoreDocuments.partition(doc.get()));
            }
          }
          return requeued;
        });
    LOG.info("Retry of failed batch {} re-queued partitions {}", batchId,
        retried.stream().map(PartitionRecord::partition).toList());
    return retried;
  }

  @Override
  public BatchRecord reviveBatch(String batchId) {
    String action = "Cannot revive batch " + batchId;
    Decided<BatchRecord> decided = settling.decide("reviveBatch", batchId, action, (t, doc, stored) -> {
      Instant now = now();
      BatchRecord revived = BatchRules.revived(stored, action, now);
      // Reads and checks of every file and partition before the first write: a refusal changes
      // nothing, and what is checked here is what the settling claims.
      Map<String, Map<String, Object>> files = new HashMap<>();
      for (DocumentSnapshot snapshot : store.getAllIn(t, stored.fileIds())) {
        optional(snapshot).ifPresent(file -> files.put((String) file.get(FILE_ID), file));
      }
      List<FileRules.Placed> claimed = FileRules.revived(stored,
          files.values().stream().map(FirestoreDocuments::file).toList(), action);
      List<Map<String, Object>> partitions = new ArrayList<>();
      List<PartitionRecord> claimedPartitions = new ArrayList<>();
      for (Release release : settling.partitionsOf(t, stored, false)) {
        Map<String, Object> partition = release.stored().orElseThrow(() -> new IllegalStateException(
            "Partition " + stored.table() + "/" + release.token() + " is missing from the ledger"));
        claimedPartitions.add(PartitionRules.revived(FirestoreDocuments.partition(partition), batchId, action, now));
        partitions.add(partition);
      }
      boolean inline = 1 + claimed.size() + partitions.size() <= MAX_WRITES_PER_COMMIT;
      if (!inline) {
        FirestoreSettling.owe(doc, FileState.CLAIMED);
      }
      BatchRecord written = write(t, doc, revived);
      for (int i = 0; inline && i < claimed.size(); i++) {
        FileRules.Placed placed = claimed.get(i);
        store.set(t, files.get(placed.file().fileId()), placed.file(), placed.position());
      }
      for (int i = 0; i < partitions.size(); i++) {
        store.set(t, partitions.get(i), claimedPartitions.get(i));
      }
      return new Decided<>(written, !inline, List.of());
    }, "revived");
    LOG.info("Revived batch {} of table {}: files and partitions {} claimed again for a relaunch", batchId,
        decided.result().table(), decided.result().partitions());
    return decided.result();
  }

  @Override
  public Optional<String> unavailableBecause() {
    return store.unavailableBecause();
  }

  @Override
  public void close() {
    store.close();
  }

  private Instant now() {
    return Instant.ofEpochMilli(store.clock.millis());
  }
}
