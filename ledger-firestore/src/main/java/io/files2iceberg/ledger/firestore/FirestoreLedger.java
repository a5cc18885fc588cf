package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.MESSAGE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.OBJECT_URI;
import static io.files2iceberg.core.ledger.LedgerSchema.RAW_PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RECEIVED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING_MAX_ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.SUPERSEDING;
import static io.files2iceberg.ledger.firestore.FirestoreReads.IN_FLIGHT;
import static io.files2iceberg.ledger.firestore.FirestoreStore.data;
import static io.files2iceberg.ledger.firestore.FirestoreStore.optional;

import com.google.cloud.NoCredentials;
import com.google.cloud.ServiceOptions;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.Transaction;
import com.google.cloud.firestore.WriteBatch;
import io.files2iceberg.core.ledger.BatchCommitted;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.NewestClaimWalk;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
 * <p>A Firestore commit holds at most {@value #MAX_WRITES_PER_COMMIT} writes, and a batch's life
 * (claim, commit, failure, revival) writes the batch, each of its files and each of its partitions.
 * A transition that fits one commit is made in one. A larger one (a partition of 10,000 files) is
 * decided in one transaction, which writes the batch document, with its whole file list and a mark
 * of what it still owes ({@link LedgerSchema#SETTLING}), and, for a claim or revival, its
 * partitions CLAIMED; then {@link FirestoreSettling#settle} moves the files, a commit's worth at a
 * time, and last releases the partitions (commit, failure) and clears the mark. In between, the
 * batch document is the record: every reader takes a batch's files from its list, never from the
 * files' batch ids; its partitions stay CLAIMED, so no claim takes their files; and every later
 * call on the batch (commit, failure, revival, recovery's takeover, retry) and every claim or
 * prune of its table first finishes what it owes. So a process that dies between two commits
 * leaves nothing lost or claimed twice, and the next call completes its work.
 *
 * <p>Transient Firestore errors are retried with backoff ({@link FirestoreRetry}); after the bound,
 * or when no answer came within {@code ledger.deadline}, they surface as {@code
 * LedgerUnavailableException}, other errors as {@code IllegalStateException}, both naming the
 * document.
 */
public final class FirestoreLedger implements Ledger {
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
  /** Files reopened per transaction: well below the 500 writes of one commit. */
  private static final int REOPEN_FILES_PER_COMMIT = MAX_WRITES_PER_COMMIT - 100;

  private final FirestoreStore store;
  private final FirestoreReads reads;
  private final FirestoreSettling settling;

  private FirestoreLedger(Firestore db, boolean ownsClient, String prefix, Clock clock, FirestoreRetry retry) {
    this.store = new FirestoreStore(db, ownsClient, prefix, clock, retry);
    this.reads = new FirestoreReads(store);
    this.settling = new FirestoreSettling(store);
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
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(clock, "clock");
    String project = settings.firestoreProject().orElseThrow(() -> new IllegalArgumentException(
        "ledger.firestore-project: is required when ledger.type = firestore"));
    FirestoreOptions.Builder options = FirestoreOptions.newBuilder()
        .setProjectId(project)
        .setDatabaseId(settings.firestoreDatabase())
        // The client's own retries of one RPC end within the deadline too, so a frozen backend
        // does not keep a call (and its worker) waiting for the client's default of a minute.
        .setRetrySettings(ServiceOptions.getDefaultRetrySettings().toBuilder()
            .setLogicalTimeout(settings.deadline()).build());
    boolean onEmulator = emulatorHost != null && !emulatorHost.isBlank();
    if (onEmulator) {
      emulator(options, emulatorHost);
    }
    String prefix = requireValidPrefix(settings.collectionPrefix());
    FirestoreLedger ledger = new FirestoreLedger(options.build().getService(), true, prefix, clock,
        FirestoreRetry.within(settings.deadline()));
    LOG.info("Opened the Firestore ledger: project {}, database {}, collection prefix '{}', deadline {}{}", project,
        settings.firestoreDatabase(), prefix, settings.deadline(), onEmulator ? ", emulator " + emulatorHost : "");
    return ledger;
  }

  /**
   * A ledger on a client the caller owns (and closes): tests, or a process that already has one.
   *
   * @param collectionPrefix prefixed to every collection name; may be empty
   */
  public static FirestoreLedger open(Firestore client, String collectionPrefix, Clock clock) {
    return open(client, collectionPrefix, clock, FirestoreRetry.DEFAULT);
  }

  static FirestoreLedger open(Firestore client, String collectionPrefix, Clock clock, FirestoreRetry retry) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(clock, "clock");
    return new FirestoreLedger(client, false, requireValidPrefix(collectionPrefix), clock, retry);
  }

  /**
   * Points the options at an emulator, without credentials. The host is needed as well: with {@code
   * NoCredentials} the client opens a plaintext channel to {@code getHost()}, not to the emulator
   * host (and without credentials set it would look for Application Default Credentials first).
   */
  static FirestoreOptions.Builder emulator(FirestoreOptions.Builder options, String emulatorHost) {
    return options.setHost(emulatorHost).setEmulatorHost(emulatorHost).setCredentials(NoCredentials.getInstance());
  }

  private static String requireValidPrefix(String prefix) {
    Objects.requireNonNull(prefix, "collectionPrefix");
    if (prefix.contains("/") || prefix.startsWith("__") || !prefix.matches("[\\x21-\\x7e]*")) {
      throw new IllegalArgumentException("ledger.collection-prefix: '" + prefix
          + "' cannot start a Firestore collection id (printable ASCII without '/', not starting with '__')");
    }
    return prefix;
  }

  /** The collection prefix, possibly empty. */
  public String collectionPrefix() {
    return store.prefix;
  }

  /**
   * A point between two commits of one call: {@code step} is the transition just decided ({@code
   * claimed}, {@code committed}, {@code failed}, {@code revived}) or {@code settled} (after each
   * later commit of its writes).
   */
  @FunctionalInterface
  interface BetweenCommits {
    void reached(String step, String batchId);
  }

  /** For crash tests: a hook that throws there stops the call as a process that dies would. */
  void onBetweenCommits(BetweenCommits hook) {
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
    DocumentReference partitionRef = store.partitionRef(command.table(), command.partition());
    return store.transaction("recordFile", fileRef.getPath() + " (" + command.uri() + ")", t -> {
      List<DocumentSnapshot> read = t.getAll(fileRef, partitionRef).get();
      if (read.get(0).exists()) {
        // A redelivery (or a replay): the stored file and its partition stay as they are.
        FileRecord file = FirestoreDocuments.file(data(read.get(0)));
        DocumentSnapshot partition = file.table().equals(command.table()) && file.partition().equals(command.partition())
            ? read.get(1) : t.get(store.partitionRef(file.table(), file.partition())).get();
        return new FileRecorded(false, file, requirePartition(partition, file.table(), file.partition()));
      }
      Instant now = now();
      Optional<Map<String, Object>> stored = optional(read.get(1));
      Optional<PartitionRecord> partition = stored.map(FirestoreDocuments::partition);
      Optional<PartitionRecord> moved = PartitionRules.onFileRecorded(partition, command, now);
      Map<String, Object> file = FirestoreDocuments.file(FileRules.recorded(command, now));
      t.create(fileRef, file);
      return new FileRecorded(true, FirestoreDocuments.file(file),
          moved.isPresent() ? write(t, stored, moved.get()) : partition.orElseThrow());
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

  // --- claiming ----------------------------------------------------------------------------------

  @Override
  public Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    String table = command.table();
    settling.settleTable(table);
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
      ClaimWalk walk = new ClaimWalk(command.maxFiles());
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
        ClaimWalk.Step step = walk.offer(pending.size(), fitting);
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

  @Override
  public Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    String table = command.table();
    settling.settleTable(table);
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
  private static long listedBytes(DocumentSnapshot file) {
    return FirestoreDocuments.listedBytes(file.getString(FILE_ID)) + FirestoreDocuments.listedBytes(file.getString(EVENT_ID));
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
    Decided<BatchCommitted> decided = decide("commitBatch", batchId, "Cannot commit batch " + batchId, (t, doc, stored) -> {
      Instant now = now();
      Optional<BatchRecord> committed = BatchRules.committed(stored, command, now);
      if (committed.isEmpty()) {
        return new Decided<>(new BatchCommitted(stored, true), false, List.of());
      }
      // The checkpoint is this commit; its files and partitions follow in it when they fit, else
      // after it (settle), partitions last.
      boolean inline = fitsOneCommit(stored);
      List<Map<String, Object>> files = inline ? filesIn(t, stored) : List.of();
      // A split partition (or one that got late files while claimed) is READY again for the rest.
      List<FirestoreSettling.Release> releases = inline ? settling.partitionsOf(t, stored, true) : List.of();
      if (!inline) {
        FirestoreSettling.owe(doc, FileState.INGESTED);
      }
      BatchRecord written = write(t, doc, committed.get());
      for (Map<String, Object> file : files) {
        FileRules.afterCommit(FirestoreDocuments.file(file), batchId).ifPresent(f -> store.set(t, file, f, null));
      }
      for (FirestoreSettling.Release release : releases) {
        settling.release(t, stored, release, p -> PartitionRules.afterCommit(p, batchId, release.pending(), now));
      }
      return new Decided<>(new BatchCommitted(written, false), !inline, List.of());
    }, "committed");
    if (!decided.result().alreadyCommitted()) {
      LOG.info("Committed batch {} of table {} with snapshot {}", batchId, decided.result().batch().table(),
          command.snapshotId());
    }
    return decided.result();
  }

  @Override
  public BatchRecord failBatch(FailBatch command) {
    String batchId = command.batchId();
    Decided<BatchRecord> decided = decide("failBatch", batchId, "Cannot fail batch " + batchId, (t, doc, stored) -> {
      Instant now = now();
      BatchRecord failed = BatchRules.failed(stored, command, now);
      boolean inline = fitsOneCommit(stored);
      List<Map<String, Object>> files = inline ? filesIn(t, stored) : List.of();
      List<FirestoreSettling.Release> releases = inline ? settling.partitionsOf(t, stored, false) : List.of();
      if (!inline) {
        FirestoreSettling.owe(doc, FileState.RECORDED);
        doc.put(SETTLING_MAX_ATTEMPTS, (long) command.maxAttempts());
      }
      BatchRecord written = write(t, doc, failed);
      for (Map<String, Object> file : files) {
        FileRules.afterFailure(FirestoreDocuments.file(file), batchId).ifPresent(f -> store.set(t, file, f, null));
      }
      List<String> exhausted = new ArrayList<>();
      for (FirestoreSettling.Release release : releases) {
        settling.releaseFailed(t, written, release, command.maxAttempts(), now).ifPresent(exhausted::add);
      }
      return new Decided<>(written, !inline, exhausted);
    }, "failed");
    for (String exhausted : decided.exhausted()) {
      LOG.warn("Partition {} of table {} FAILED (batch {}): {}", exhausted, decided.result().table(), batchId,
          command.error());
    }
    LOG.warn("Failed batch {} of table {}: {}", batchId, decided.result().table(), command.error());
    return decided.result();
  }

  /**
   * A transition's outcome; {@code owed}: its writes did not fit its commit and are still to be
   * made; {@code exhausted}: the partitions a failure left FAILED (for the log).
   */
  private record Decided<T>(T result, boolean owed, List<String> exhausted) {}

  @FunctionalInterface
  private interface Decision<T> {
    Decided<T> apply(Transaction t, Map<String, Object> doc, BatchRecord stored) throws Exception;
  }

  /**
   * A transition of a batch that may write more than one commit: a batch owing the writes of an
   * earlier one has those made first; then the decision's transaction; then (at {@code step}) the
   * writes it owes.
   */
  private <T> Decided<T> decide(String operation, String batchId, String action, Decision<T> decision, String step) {
    while (true) {
      Optional<Decided<T>> decided = store.batchTransition(operation, batchId, action, (t, doc, checked) ->
          doc.get(SETTLING) != null ? Optional.<Decided<T>>empty()
              : Optional.of(decision.apply(t, doc, FirestoreDocuments.batch(doc))));
      if (decided.isEmpty()) {
        settling.settle(batchId);
        continue;
      }
      if (!decided.get().owed()) {
        return decided.get();
      }
      settling.reached(step, batchId);
      List<String> exhausted = new ArrayList<>(decided.get().exhausted());
      exhausted.addAll(settling.settle(batchId));
      return new Decided<>(decided.get().result(), true, exhausted);
    }
  }

  /** Whether a commit or failure of the batch (it, its files and its partitions) fits one commit. */
  private static boolean fitsOneCommit(BatchRecord batch) {
    return 1 + batch.fileIds().size() + batch.partitions().size() <= MAX_WRITES_PER_COMMIT;
  }

  /** The batch's file documents that exist, in its order, read in the transaction. */
  private List<Map<String, Object>> filesIn(Transaction t, BatchRecord batch) throws Exception {
    return store.getAllIn(t, batch.fileIds()).stream().flatMap(doc -> optional(doc).stream()).toList();
  }

  @Override
  public List<BatchRecord> findExpiredLeases() {
    return reads.expiredLeases();
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
    return store.read("pruneCommitted", store.batches.getPath() + " (table " + table + ")", () -> {
      int deleted = 0;
      while (true) {
        List<QueryDocumentSnapshot> committed = LedgerQuery.BATCHES_IN_STATE_BY_COMMITTED_AT.on(store.batches, table,
            BatchState.COMMITTED.code()).limit(keep + MAX_WRITES_PER_COMMIT).get().get().getDocuments();
        if (committed.size() <= keep) {
          break;
        }
        WriteBatch delete = store.db.batch();
        committed.subList(keep, committed.size()).forEach(doc -> delete.delete(doc.getReference()));
        delete.commit().get();
        deleted += committed.size() - keep;
        if (committed.size() < keep + MAX_WRITES_PER_COMMIT) {
          break;
        }
      }
      if (deleted > 0) {
        LOG.info("Pruned {} committed batches of table {}, kept the newest {}", deleted, table, keep);
      }
      return deleted;
    });
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
    DocumentReference ref = store.quarantine.document(LedgerSchema.quarantineId(message.messageId()));
    store.transaction("quarantineMessage", ref.getPath(), t -> {
      if (t.get(ref).get().exists()) {
        return null; // idempotent by message id: the first record stays
      }
      String payload = message.rawPayload();
      if (payload.length() > MAX_RAW_PAYLOAD_CHARS) {
        LOG.warn("Quarantined message {}: keeping the first {} of its {} characters",
            message.messageId(), MAX_RAW_PAYLOAD_CHARS, payload.length());
        payload = payload.substring(0, MAX_RAW_PAYLOAD_CHARS);
      }
      Map<String, Object> doc = new HashMap<>();
      doc.put(MESSAGE_ID, message.messageId());
      doc.put(REASON, message.reason());
      doc.put(RAW_PAYLOAD, payload);
      FirestoreDocuments.putOrClear(doc, OBJECT_URI, message.objectUri());
      doc.put(RECEIVED_AT, FirestoreDocuments.timestamp(message.receivedAt()));
      t.create(ref, doc);
      return null;
    });
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

  @Override
  public boolean releaseMessage(String messageId) {
    DocumentReference ref = store.quarantine.document(LedgerSchema.quarantineId(messageId));
    return store.transaction("releaseMessage", ref.getPath(), t -> {
      if (!t.get(ref).get().exists()) {
        return false;
      }
      t.delete(ref);
      return true;
    });
  }

  // --- operator commands: replay, retry, revive --------------------------------------------------

  /**
   * One transaction per chunk of files, the last one also turning the partition READY: a
   * partition's files may exceed one commit. An interrupted reopen leaves the partition INGESTED
   * with some files RECORDED; calling it again finishes the job.
   */
  @Override
  public PartitionRecord reopenPartition(String table, String partition) {
    DocumentReference ref = store.partitionRef(table, partition);
    while (true) {
      Optional<PartitionRecord> done = store.transaction("reopenPartition", ref.getPath() + " (" + table + "/"
          + partition + ")", t -> {
        Map<String, Object> doc = optional(t.get(ref).get()).orElseThrow(() -> new IllegalArgumentException(
            "Cannot reopen partition " + table + "/" + partition + ": no such partition"));
        Optional<PartitionRecord> reopened = PartitionRules.reopened(FirestoreDocuments.partition(doc), now());
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
        LOG.info("Reopened partition {}/{}: its ingested files load again", table, partition);
        return done.get();
      }
    }
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
          for (FirestoreSettling.Release release : settling.partitionsOf(t, stored, false)) {
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
    Decided<BatchRecord> decided = decide("reviveBatch", batchId, "Cannot revive batch " + batchId, (t, doc, stored) -> {
      String action = "Cannot revive batch " + batchId;
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
      for (FirestoreSettling.Release release : settling.partitionsOf(t, stored, false)) {
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

  // --- reads -------------------------------------------------------------------------------------

  @Override
  public Optional<BatchRecord> batch(String batchId) {
    return reads.batch(batchId);
  }

  @Override
  public Optional<PartitionRecord> partition(String table, String partition) {
    return reads.partition(table, partition);
  }

  @Override
  public Optional<FileRecord> file(String fileId) {
    return reads.file(fileId);
  }

  @Override
  public List<FileRecord> filesOfBatch(String batchId) {
    return reads.filesOfBatch(batchId);
  }

  @Override
  public List<String> tables() {
    return reads.tables();
  }

  @Override
  public TableStatus tableStatus(String table) {
    return reads.tableStatus(table);
  }

  @Override
  public List<QuarantinedMessage> quarantinedMessages() {
    return reads.quarantinedMessages();
  }

  @Override
  public List<PartitionRecord> partitions(String table) {
    return reads.partitions(table);
  }

  @Override
  public List<FileRecord> filesOfPartition(String table, String partition) {
    return reads.filesOfPartition(table, partition);
  }

  @Override
  public List<FileRecord> quarantinedFiles() {
    return reads.quarantinedFiles();
  }

  @Override
  public List<FileRecord> filesNamed(String bucket, String name) {
    return reads.filesNamed(bucket, name);
  }

  @Override
  public List<BatchRecord> batchesOfPartition(String table, String partition) {
    return reads.batchesOfPartition(table, partition);
  }

  @Override
  public Optional<String> unavailableBecause() {
    return store.unavailableBecause();
  }

  @Override
  public void close() {
    store.close();
  }

  private static PartitionRecord requirePartition(DocumentSnapshot partition, String table, String token) {
    return optional(partition).map(FirestoreDocuments::partition).orElseThrow(
        () -> new IllegalStateException("Partition " + table + "/" + token + " is missing from the ledger"));
  }

  private Instant now() {
    return Instant.ofEpochMilli(store.clock.millis());
  }
}
