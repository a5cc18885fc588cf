package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_KEY;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_POSITION;
import static io.files2iceberg.core.ledger.LedgerSchema.BUCKET;
import static io.files2iceberg.core.ledger.LedgerSchema.COMMITTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_TIME;
import static io.files2iceberg.core.ledger.LedgerSchema.FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.GENERATION;
import static io.files2iceberg.core.ledger.LedgerSchema.LAST_ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.LAUNCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.LEASE_UNTIL;
import static io.files2iceberg.core.ledger.LedgerSchema.MARKER_SEEN;
import static io.files2iceberg.core.ledger.LedgerSchema.MESSAGE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.METRICS;
import static io.files2iceberg.core.ledger.LedgerSchema.NAME;
import static io.files2iceberg.core.ledger.LedgerSchema.OBJECT_URI;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTCOME_UNKNOWN;
import static io.files2iceberg.core.ledger.LedgerSchema.OVERWROTE_GENERATION;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITION;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS_FIELD;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITION_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.PREFIX;
import static io.files2iceberg.core.ledger.LedgerSchema.PROBE;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE_REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RAW_PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.READY_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RECEIVED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.RECORDED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.SIZE;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLED_FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING_MAX_ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.SNAPSHOT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.SUPERSEDING;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.URI;
import static io.files2iceberg.ledger.firestore.FirestoreDocuments.timestamp;

import com.google.api.core.ApiFuture;
import com.google.cloud.NoCredentials;
import com.google.cloud.ServiceOptions;
import com.google.cloud.Timestamp;
import com.google.cloud.firestore.AggregateQuerySnapshot;
import com.google.cloud.firestore.CollectionReference;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.FieldMask;
import com.google.cloud.firestore.FieldValue;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import com.google.cloud.firestore.Query;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.QuerySnapshot;
import com.google.cloud.firestore.Transaction;
import com.google.cloud.firestore.TransactionOptions;
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
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.States;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.profile.LedgerSettings;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production ledger: Cloud Firestore in native mode, one document per file, partition, batch
 * and quarantined message, in four collections whose names carry the deployment's collection
 * prefix ({@code <prefix>files}, {@code <prefix>partitions}, {@code <prefix>batches}, {@code
 * <prefix>quarantine}); field names, document ids and state codes are {@link LedgerSchema}'s and
 * the state enums'.
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
 * partitions CLAIMED; then {@link #settle} moves the files, a commit's worth at a time, and last
 * releases the partitions (commit, failure) and clears the mark. In between, the batch document
 * is the record: every reader takes a batch's files from its list, never from the files' batch
 * ids; its partitions stay CLAIMED, so no claim takes their files; and every later call on the
 * batch (commit, failure, revival, recovery's takeover, retry) and every claim or prune of its
 * table first finishes what it owes. So a process that dies between two commits leaves nothing
 * lost or claimed twice, and the next call completes its work.
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
  /** Reruns of one transaction on contention, inside the client, before {@link FirestoreRetry}. */
  static final int TRANSACTION_ATTEMPTS = 10;

  private static final DateTimeFormatter BATCH_ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int FAILED_BATCHES_SHOWN = 10;
  /** The partition states an operator's retry accepts. */
  private static final List<String> IN_FLIGHT = List.of(BatchState.PLANNED.code(), BatchState.RUNNING.code());

  private final Firestore db;
  private final boolean ownsClient;
  private final String prefix;
  private final Clock clock;
  private final FirestoreRetry retry;
  private final CollectionReference files;
  private final CollectionReference partitions;
  private final CollectionReference batches;
  private final CollectionReference quarantine;
  /** This process's probe document: one per ledger, so health checks of many instances never share one. */
  private final DocumentReference probe;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Called between two commits of one call, where a process may die: crash tests stop it there. */
  private volatile BetweenCommits betweenCommits = (step, batchId) -> {};
  private final LongAdder transactionRuns = new LongAdder();

  private FirestoreLedger(Firestore db, boolean ownsClient, String prefix, Clock clock, FirestoreRetry retry) {
    this.db = db;
    this.ownsClient = ownsClient;
    this.prefix = prefix;
    this.clock = clock;
    this.retry = retry;
    this.files = db.collection(prefix + FILES);
    this.partitions = db.collection(prefix + PARTITIONS);
    this.batches = db.collection(prefix + BATCHES);
    this.quarantine = db.collection(prefix + QUARANTINE);
    this.probe = db.collection(prefix + PROBE).document(newProbeId());
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
    if (emulatorHost != null && !emulatorHost.isBlank()) {
      emulator(options, emulatorHost);
    }
    String prefix = requireValidPrefix(settings.collectionPrefix());
    FirestoreLedger ledger = new FirestoreLedger(options.build().getService(), true, prefix, clock,
        FirestoreRetry.within(settings.deadline()));
    LOG.info("Opened the Firestore ledger: project {}, database {}, collection prefix '{}', deadline {}{}",
        project, settings.firestoreDatabase(), prefix, settings.deadline(),
        emulatorHost == null || emulatorHost.isBlank() ? "" : ", emulator " + emulatorHost);
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
    return prefix;
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
    this.betweenCommits = Objects.requireNonNull(hook, "hook");
  }

  /** How many times a transaction body ran, reruns on contention included (for tests and metrics). */
  long transactionRuns() {
    return transactionRuns.sum();
  }

  // --- files and markers -------------------------------------------------------------------------

  @Override
  public FileRecorded recordFile(RecordFile command) {
    DocumentReference fileRef = files.document(command.fileId());
    DocumentReference partitionRef = partitionRef(command.table(), command.partition());
    return transaction("recordFile", fileRef.getPath() + " (" + command.uri() + ")", t -> {
      List<DocumentSnapshot> read = t.getAll(fileRef, partitionRef).get();
      DocumentSnapshot known = read.get(0);
      if (known.exists()) {
        // A redelivery (or a replay): the stored file and its partition stay as they are.
        FileRecord file = FirestoreDocuments.file(data(known));
        DocumentSnapshot partition = file.table().equals(command.table()) && file.partition().equals(command.partition())
            ? read.get(1) : t.get(partitionRef(file.table(), file.partition())).get();
        return new FileRecorded(false, file, FirestoreDocuments.partition(requirePartition(partition, file.table(), file.partition())));
      }
      Timestamp now = now();
      Map<String, Object> partition;
      DocumentSnapshot stored = read.get(1);
      if (!stored.exists()) {
        PartitionState state = command.readyOnArrival() ? PartitionState.READY : PartitionState.OPEN;
        partition = newPartition(command.table(), command.partition(), null, state, false, now);
        t.create(partitionRef, partition);
      } else {
        partition = data(stored);
        PartitionState state = PartitionState.fromCode((String) partition.get(STATE));
        // INGESTED re-opens for just this file (the files already ingested stay INGESTED and are
        // never claimed again); READY and CLAIMED pick the file up on the next claim; FAILED and
        // SUPERSEDED keep it RECORDED until an operator acts.
        if (state == PartitionState.INGESTED || (state == PartitionState.OPEN && command.readyOnArrival())) {
          States.requireTransition("Cannot re-open partition " + command.table() + "/" + command.partition(),
              state, PartitionState.READY, PartitionState::next);
          partition.put(STATE, PartitionState.READY.code());
          partition.put(READY_AT, now);
          partition.put(UPDATED_AT, now);
          t.set(partitionRef, partition);
        }
      }
      Map<String, Object> file = new HashMap<>();
      file.put(FILE_ID, command.fileId());
      file.put(TABLE, command.table());
      file.put(PARTITION, command.partition());
      file.put(BUCKET, command.bucket());
      file.put(NAME, command.name());
      file.put(GENERATION, command.generation());
      file.put(URI, command.uri());
      file.put(SIZE, command.size());
      file.put(EVENT_ID, command.eventId());
      file.put(EVENT_TIME, timestamp(command.eventTime()));
      FirestoreDocuments.putOrClear(file, OVERWROTE_GENERATION, command.overwroteGeneration());
      file.put(STATE, FileState.RECORDED.code());
      file.put(RECORDED_AT, now);
      t.create(fileRef, file);
      return new FileRecorded(true, FirestoreDocuments.file(file), FirestoreDocuments.partition(partition));
    });
  }

  @Override
  public PartitionRecord markReady(MarkReady command) {
    DocumentReference ref = partitionRef(command.table(), command.partition());
    return transaction("markReady", ref.getPath() + " (" + command.table() + "/" + command.partition() + ")", t -> {
      DocumentSnapshot stored = t.get(ref).get();
      Timestamp now = now();
      if (!stored.exists()) {
        // The marker came first: files recorded later join the READY partition.
        Map<String, Object> created =
            newPartition(command.table(), command.partition(), command.prefix(), PartitionState.READY, true, now);
        t.create(ref, created);
        return FirestoreDocuments.partition(created);
      }
      Map<String, Object> partition = data(stored);
      switch (PartitionState.fromCode((String) partition.get(STATE))) {
        case OPEN -> {
          marker(partition, command.prefix(), now);
          ready(partition, now);
          t.set(ref, partition);
        }
        case READY, CLAIMED -> {
          if (!Boolean.TRUE.equals(partition.get(MARKER_SEEN)) || !command.prefix().equals(partition.get(PREFIX))) {
            marker(partition, command.prefix(), now);
            t.set(ref, partition);
          }
        }
        case INGESTED -> {
          if (hasPending(t, command.table(), command.partition())) {
            marker(partition, command.prefix(), now);
            ready(partition, now);
            t.set(ref, partition);
          }
        }
        case FAILED, SUPERSEDED -> {
          // An operator decides; a repeated marker does not retry a failed partition.
        }
      }
      return FirestoreDocuments.partition(partition);
    });
  }

  // --- claiming ----------------------------------------------------------------------------------

  @Override
  public Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    String table = command.table();
    settleTable(table);
    int maxFiles = command.maxFiles();
    Optional<Created> created = transaction("claimPartitions", partitions.getPath() + " (table " + table + ")", t -> {
      if (command.exclusive()
          && !t.get(LedgerQuery.BATCHES_IN_STATES.on(batches, table, IN_FLIGHT).limit(1)).get().isEmpty()) {
        return Optional.<Created>empty();
      }
      Timestamp now = now();
      // Reads first (a Firestore transaction reads everything before it writes), then the writes.
      // Every partition walked costs a write in this commit (its files may come after it), so more
      // than one commit's worth is never read.
      List<QueryDocumentSnapshot> ready = t.get(LedgerQuery.PARTITIONS_IN_STATE
          .on(partitions, table, PartitionState.READY.code()).limit(MAX_WRITES_PER_COMMIT - 1)).get().getDocuments();
      List<Map<String, Object>> claimedPartitions = new ArrayList<>();
      List<Map<String, Object>> settled = new ArrayList<>();
      List<Map<String, Object>> claimedFiles = new ArrayList<>();
      long listBytes = 0;
      for (QueryDocumentSnapshot snapshot : ready) {
        Map<String, Object> partition = data(snapshot);
        String token = (String) partition.get(PARTITION);
        int room = maxFiles - claimedFiles.size();
        if (room < 1 || 1 + claimedPartitions.size() + settled.size() + 1 > MAX_WRITES_PER_COMMIT) {
          break;
        }
        // One more than fits tells whether the whole partition does.
        List<QueryDocumentSnapshot> pending = t.get(LedgerQuery.PENDING_FILES
            .on(files, table, token, FileState.RECORDED.code()).limit(room + 1)).get().getDocuments();
        if (pending.isEmpty()) {
          // Nothing to load (its files were quarantined, or a marker without data files).
          States.requireTransition("Cannot settle partition " + table + "/" + token,
              PartitionState.READY, PartitionState.INGESTED, PartitionState::next);
          settled.add(partition);
          continue;
        }
        boolean first = claimedPartitions.isEmpty();
        // The batch document lists every file and event id: take files while it stays within 1 MiB.
        int fitting = 0;
        long bytes = listBytes;
        while (fitting < Math.min(pending.size(), room)
            && bytes + listedBytes(pending.get(fitting)) <= MAX_FILE_LIST_BYTES) {
          bytes += listedBytes(pending.get(fitting));
          fitting++;
        }
        if (!first && fitting < pending.size()) {
          break; // whole partitions only after the first; a later one must fit entirely
        }
        // The first partition may exceed the limit: it then yields its first files in claim order,
        // and the next claim (after this batch commits or fails) continues the range.
        fitting = Math.max(fitting, 1);
        for (QueryDocumentSnapshot file : pending.subList(0, fitting)) {
          claimedFiles.add(data(file));
        }
        listBytes = bytes;
        claimedPartitions.add(partition);
        if (claimedFiles.size() >= maxFiles || fitting < pending.size()) {
          break;
        }
      }
      for (Map<String, Object> partition : settled) {
        partition.put(STATE, PartitionState.INGESTED.code());
        partition.put(UPDATED_AT, now);
        t.set(partitionRef(partition), partition);
      }
      if (claimedPartitions.isEmpty()) {
        return Optional.<Created>empty();
      }
      boolean inline = 1 + settled.size() + claimedPartitions.size() + claimedFiles.size() <= MAX_WRITES_PER_COMMIT;
      return Optional.of(createBatch(t, table, claimedPartitions, claimedFiles, inline, List.of(), command.lease(), now,
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
    settleTable(table);
    List<String> superseded = new ArrayList<>();
    Optional<Created> created = transaction("claimNewestPartition", partitions.getPath() + " (table " + table + ")",
        t -> newest(t, command, superseded));
    Optional<NewestPartitionClaimed> claimed = created.map(c ->
        new NewestPartitionClaimed(settleCreated(c, "claimed"), superseded.stream().sorted().toList()));
    claimed.ifPresent(c -> LOG.info("Claimed batch {} of table {}: {} files of the newest partition {}; superseded {}",
        c.batch().batchId(), table, c.batch().fileIds().size(), c.batch().partitions(), c.superseded()));
    return claimed;
  }

  /**
   * {@link #claimNewestPartition}'s one transaction. It decides everything: the newest READY
   * partition with files pending is claimed whole, every older READY one superseded. When its
   * writes fit one commit they are all made here; otherwise the batch document carries what is
   * still owed (the older partitions to supersede, the files to mark claimed) and {@link #settle}
   * applies it right after, one commit at a time.
   */
  private Optional<Created> newest(Transaction t, ClaimNewestPartition command, List<String> superseded)
      throws Exception {
    superseded.clear();
    String table = command.table();
    if (!t.get(LedgerQuery.BATCHES_IN_STATES.on(batches, table, IN_FLIGHT).limit(1)).get().isEmpty()) {
      return Optional.empty();
    }
    Timestamp now = now();
    // Reads first: every READY partition (oldest first), then the pending files of the newest ones.
    List<Map<String, Object>> ready = new ArrayList<>();
    for (QueryDocumentSnapshot snapshot : t.get(LedgerQuery.PARTITIONS_IN_STATE
        .on(partitions, table, PartitionState.READY.code())).get().getDocuments()) {
      ready.add(data(snapshot));
    }
    List<Map<String, Object>> settled = new ArrayList<>();
    Map<String, Object> newest = null;
    List<QueryDocumentSnapshot> pending = List.of();
    for (int i = ready.size() - 1; i >= 0 && newest == null; i--) {
      Map<String, Object> partition = ready.get(i);
      String token = (String) partition.get(PARTITION);
      pending = t.get(LedgerQuery.PENDING_FILES.on(files, table, token, FileState.RECORDED.code())).get().getDocuments();
      if (pending.isEmpty()) {
        States.requireTransition("Cannot settle partition " + table + "/" + token,
            PartitionState.READY, PartitionState.INGESTED, PartitionState::next);
        settled.add(partition);
      } else {
        newest = partition;
      }
    }
    List<Map<String, Object>> older = newest == null ? List.of() : ready.subList(0, ready.indexOf(newest));
    boolean inline = 2 + settled.size() + older.size() + pending.size() <= MAX_WRITES_PER_COMMIT;
    // Settled partitions that do not fit this commit stay READY with nothing pending: newer than
    // the claimed one, they are settled by the next claim and supersede nothing.
    int settledFitting = Math.min(settled.size(), MAX_WRITES_PER_COMMIT - (newest == null ? 0 : 2));
    for (Map<String, Object> partition : settled.subList(0, settledFitting)) {
      partition.put(STATE, PartitionState.INGESTED.code());
      partition.put(UPDATED_AT, now);
      t.set(partitionRef(partition), partition);
    }
    if (newest == null) {
      return Optional.empty();
    }
    List<String> olderTokens = new ArrayList<>();
    for (Map<String, Object> partition : older) {
      States.requireTransition("Cannot supersede partition " + table + "/" + partition.get(PARTITION),
          PartitionState.READY, PartitionState.SUPERSEDED, PartitionState::next);
      if (inline) {
        supersede(t, partition, now);
      }
      olderTokens.add((String) partition.get(PARTITION));
    }
    superseded.addAll(olderTokens);
    List<Map<String, Object>> claimedFiles = new ArrayList<>();
    for (QueryDocumentSnapshot file : pending) {
      claimedFiles.add(data(file));
    }
    return Optional.of(createBatch(t, table, List.of(newest), claimedFiles, inline,
        inline ? List.of() : olderTokens, command.lease(), now,
        "ingestion-type last loads the newest partition whole, so its files cannot be split over batches"));
  }

  private void supersede(Transaction t, Map<String, Object> partition, Timestamp now) {
    partition.put(STATE, PartitionState.SUPERSEDED.code());
    partition.put(UPDATED_AT, now);
    t.set(partitionRef(partition), partition);
  }

  /** A batch created by a claim's transaction; {@code owed}: its files (and supersedes) still to be written. */
  private record Created(BatchRecord batch, boolean owed) {}

  /** After the claim's commit: applies what it owes, if anything. */
  private BatchRecord settleCreated(Created created, String step) {
    if (created.owed()) {
      betweenCommits.reached(step, created.batch().batchId());
      settle(created.batch().batchId());
    }
    return created.batch();
  }

  /** What a file adds to its batch document: its id and its event id. */
  private static long listedBytes(DocumentSnapshot file) {
    return FirestoreDocuments.listedBytes(file.getString(FILE_ID)) + FirestoreDocuments.listedBytes(file.getString(EVENT_ID));
  }

  /**
   * The claim's writes, in the caller's transaction after its reads: the partitions CLAIMED by a
   * new batch, the batch PLANNED, and ({@code inline}) the files CLAIMED. Otherwise the batch
   * document owes the files' move ({@link LedgerSchema#SETTLING} {@code claimed}) and the older
   * partitions to supersede, which {@link #settle} writes after this commit: until then every
   * reader takes the batch's files from its document, and its partitions are CLAIMED, so no other
   * claim can take them.
   */
  private Created createBatch(Transaction t, String table, List<Map<String, Object>> claimedPartitions,
      List<Map<String, Object>> claimedFiles, boolean inline, List<String> superseding, Duration lease,
      Timestamp now, String tooLarge) {
    String batchId = newBatchId();
    List<String> fileIds = new ArrayList<>();
    List<String> eventIds = new ArrayList<>();
    for (int position = 0; position < claimedFiles.size(); position++) {
      Map<String, Object> file = claimedFiles.get(position);
      if (inline) {
        claimFile(file, batchId, position);
        t.set(files.document((String) file.get(FILE_ID)), file);
      }
      fileIds.add((String) file.get(FILE_ID));
      eventIds.add((String) file.get(EVENT_ID));
    }
    List<String> tokens = new ArrayList<>();
    for (Map<String, Object> partition : claimedPartitions) {
      partition.put(STATE, PartitionState.CLAIMED.code());
      partition.put(BATCH_ID, batchId);
      partition.put(UPDATED_AT, now);
      t.set(partitionRef(partition), partition);
      tokens.add((String) partition.get(PARTITION));
    }
    Collections.sort(tokens);
    Map<String, Object> batch = new HashMap<>();
    batch.put(BATCH_ID, batchId);
    batch.put(TABLE, table);
    batch.put(STATE, BatchState.PLANNED.code());
    batch.put(PARTITIONS_FIELD, tokens);
    batch.put(FILE_IDS, fileIds);
    batch.put(EVENT_IDS, eventIds);
    batch.put(ATTEMPTS, 0L);
    batch.put(LAUNCHES, 0L);
    batch.put(OUTCOME_UNKNOWN, false);
    batch.put(LEASE_UNTIL, timestamp(clock.millis() + lease.toMillis()));
    batch.put(CREATED_AT, now);
    batch.put(UPDATED_AT, now);
    if (!inline) {
      owe(batch, FileState.CLAIMED);
      if (!superseding.isEmpty()) {
        batch.put(SUPERSEDING, superseding);
      }
    }
    DocumentReference batchRef = batches.document(batchId);
    long size = FirestoreDocuments.storedSize(batchRef.getPath(), batch);
    if (size > MAX_DOCUMENT_BYTES) {
      throw new IllegalStateException("Cannot claim batch " + batchId + " of table " + table + " (partitions "
          + tokens + "): its document " + batchRef.getPath() + " would hold " + size + " bytes (" + fileIds.size()
          + " file and event ids), over Firestore's limit of 1 MiB per document; " + tooLarge);
    }
    t.create(batchRef, batch);
    return new Created(FirestoreDocuments.batch(batch), !inline);
  }

  /** A RECORDED file document CLAIMED by the batch at its position in the batch's list. */
  private static void claimFile(Map<String, Object> file, String batchId, int position) {
    file.put(STATE, FileState.CLAIMED.code());
    file.put(BATCH_ID, batchId);
    file.put(BATCH_KEY, LedgerSchema.batchKey(batchId));
    file.put(BATCH_POSITION, (long) position);
  }

  // --- settling: transitions that write more than one commit holds --------------------------------

  /**
   * Marks a batch document as owing its files' move to {@code target} (and, for a commit or a
   * failure, its partitions' release after them), from the first file on.
   */
  private static void owe(Map<String, Object> batch, FileState target) {
    batch.put(SETTLING, target.code());
    batch.put(SETTLED_FILES, 0L);
  }

  /**
   * One file's move while its batch settles to {@code target}; false when the file is not the
   * batch's to move: moved already (a settling that resumes), or left out while the batch was in
   * flight (QUARANTINED, SUPERSEDED, IGNORED, or released from the quarantine: RECORDED without a
   * batch). A RECORDED file is claimed only by a claim or revival of this batch, which holds its
   * partition: no other batch can claim it meanwhile.
   */
  private static boolean settleFile(FileState target, Map<String, Object> file, String batchId, int position) {
    FileState state = FileState.fromCode((String) file.get(STATE));
    boolean ours = state == FileState.CLAIMED && batchId.equals(file.get(BATCH_ID));
    switch (target) {
      case CLAIMED -> {
        if (state != FileState.RECORDED) {
          return false;
        }
        claimFile(file, batchId, position);
      }
      case INGESTED -> {
        if (!ours) {
          return false;
        }
        file.put(STATE, FileState.INGESTED.code());
      }
      case RECORDED -> {
        if (!ours) {
          return false;
        }
        backToRecorded(file);
      }
      default -> throw new IllegalStateException("Batch " + batchId + " cannot settle its files to " + target);
    }
    return true;
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
  private List<String> settle(String batchId) {
    DocumentReference ref = batches.document(batchId);
    List<String> exhausted = new ArrayList<>();
    // A batch's file list never changes once claimed: read whole once, the commits after it read
    // the document without it (10,000 ids are most of a megabyte).
    List<String> fileIds = new ArrayList<>();
    while (true) {
      boolean more = transaction("settle", ref.getPath(), t -> {
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
        Timestamp now = now();
        List<String> superseding = FirestoreDocuments.strings(batch, SUPERSEDING);
        if (!superseding.isEmpty()) {
          List<String> chunk = superseding.subList(0, Math.min(superseding.size(), MAX_WRITES_PER_COMMIT - 1));
          List<DocumentSnapshot> docs = t.getAll(chunk.stream().map(token -> partitionRef(stored.table(), token))
              .toArray(DocumentReference[]::new)).get();
          for (DocumentSnapshot doc : docs) {
            // Moved meanwhile (a late operator command): left as it is.
            optional(doc).filter(partition -> PartitionState.READY.code().equals(partition.get(STATE)))
                .ifPresent(partition -> supersede(t, partition, now));
          }
          t.update(ref, SUPERSEDING, new ArrayList<>(superseding.subList(chunk.size(), superseding.size())));
          return true;
        }
        int from = (int) FirestoreDocuments.settledFiles(batch);
        if (from < fileIds.size()) {
          int to = Math.min(fileIds.size(), from + SETTLE_FILES_PER_COMMIT);
          List<DocumentSnapshot> docs = getAllIn(t, fileIds.subList(from, to));
          for (int i = 0; i < docs.size(); i++) {
            Optional<Map<String, Object>> file = optional(docs.get(i));
            if (file.isPresent() && settleFile(target, file.get(), batchId, from + i)) {
              t.set(files.document(fileIds.get(from + i)), file.get());
            }
          }
          t.update(ref, SETTLED_FILES, (long) to);
          return true;
        }
        // The last commit: the partitions (after a commit or a failure), and the mark cleared.
        if (target == FileState.INGESTED) {
          for (PartitionRelease release : partitionsOf(t, stored, true)) {
            releaseCommitted(t, stored, release, now);
          }
        } else if (target == FileState.RECORDED) {
          int maxAttempts = (int) FirestoreDocuments.settlingMaxAttempts(batch);
          for (PartitionRelease release : partitionsOf(t, stored, false)) {
            releaseFailed(t, stored, release, stored.error().orElse(""), maxAttempts, now).ifPresent(exhausted::add);
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
  private void settleTable(String table) {
    List<String> owing = read("settleTable", batches.getPath() + " (table " + table + ")", () -> {
      List<String> ids = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.BATCHES_SETTLING.on(batches, table, SETTLING_CODES).get().get()) {
        ids.add(doc.getId());
      }
      return ids;
    });
    for (String batchId : owing) {
      LOG.info("Batch {} of table {} still owes writes to its files or partitions; writing them", batchId, table);
      settle(batchId);
    }
  }

  /** A batch document without its file and event ids: what {@link #settle} reads after its first commit. */
  private static final FieldMask WITHOUT_FILE_LIST = FieldMask.of(BATCH_ID, TABLE, STATE, PARTITIONS_FIELD, ATTEMPTS,
      LAUNCHES, OUTCOME_UNKNOWN, LEASE_UNTIL, SNAPSHOT_ID, METRICS, ERROR, CREATED_AT, UPDATED_AT, SETTLING, SETTLED_FILES,
      SETTLING_MAX_ATTEMPTS, SUPERSEDING);

  /** The codes {@link LedgerSchema#SETTLING} holds. */
  private static final List<String> SETTLING_CODES =
      List.of(FileState.CLAIMED.code(), FileState.INGESTED.code(), FileState.RECORDED.code());

  // --- batches -----------------------------------------------------------------------------------

  @Override
  public BatchRecord markRunning(String batchId, Duration lease) {
    Objects.requireNonNull(lease, "lease");
    return batchTransition("markRunning", batchId, "Cannot mark batch " + batchId + " running", (t, batch, action) -> {
      States.requireTransition(action, state(batch), BatchState.RUNNING, BatchState::next);
      batch.put(ATTEMPTS, ((Number) batch.get(ATTEMPTS)).longValue() + 1);
      batch.put(LAUNCHES, FirestoreDocuments.launches(batch) + 1);
      batch.put(LEASE_UNTIL, timestamp(clock.millis() + lease.toMillis()));
      batch.put(STATE, BatchState.RUNNING.code());
      batch.put(UPDATED_AT, now());
      t.set(batches.document(batchId), batch);
      return FirestoreDocuments.batch(batch);
    });
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
    settle(batchId);
    return taken;
  }

  /** A new lease for a batch in flight; with {@code onlyExpired}, only once the old one ran out. */
  private BatchRecord newLease(String operation, String action, String batchId, Duration lease, boolean onlyExpired) {
    Objects.requireNonNull(lease, "lease");
    return batchTransition(operation, batchId, action, (t, batch, checked) -> {
      States.requireOneOf(checked, state(batch), EnumSet.of(BatchState.PLANNED, BatchState.RUNNING));
      long now = clock.millis();
      if (onlyExpired) {
        States.requireLeaseExpired(checked, FirestoreDocuments.batch(batch), Instant.ofEpochMilli(now));
      }
      batch.put(LEASE_UNTIL, timestamp(now + lease.toMillis()));
      batch.put(UPDATED_AT, now());
      t.set(batches.document(batchId), batch);
      return FirestoreDocuments.batch(batch);
    });
  }

  @Override
  public BatchCommitted commitBatch(CommitBatch command) {
    String batchId = command.batchId();
    while (true) {
      Optional<Decided<BatchCommitted>> decided = batchTransition("commitBatch", batchId, "Cannot commit batch " + batchId,
          (t, batch, action) -> {
            if (batch.get(SETTLING) != null) {
              return Optional.<Decided<BatchCommitted>>empty(); // owes writes of an earlier transition: those first
            }
            BatchRecord stored = FirestoreDocuments.batch(batch);
            if (stored.state() == BatchState.COMMITTED) {
              // The checkpoint is idempotent for the snapshot that wrote it, and only for that one: a
              // second snapshot for one batch would mean its rows were written twice.
              if (stored.snapshotId().equals(Optional.of(command.snapshotId()))) {
                return Optional.of(new Decided<>(new BatchCommitted(stored, true), false));
              }
              throw new IllegalTransitionException(action + " with snapshot " + command.snapshotId()
                  + ": it is already committed with snapshot " + stored.snapshotId().map(String::valueOf).orElse("none"));
            }
            States.requireTransition(action, stored.state(), BatchState.COMMITTED, BatchState::next);
            // The checkpoint is this commit; its files and partitions follow in it when they fit,
            // else after it (settle), partitions last.
            boolean inline = fitsOneCommit(stored);
            List<Map<String, Object>> batchFiles = inline ? filesIn(t, stored) : List.of();
            // A split partition (or one that got late files while claimed) is READY again for the rest.
            List<PartitionRelease> releases = inline ? partitionsOf(t, stored, true) : List.of();
            Timestamp now = now();
            batch.put(STATE, BatchState.COMMITTED.code());
            batch.put(SNAPSHOT_ID, command.snapshotId());
            batch.put(METRICS, FirestoreDocuments.metrics(command.metrics()));
            batch.put(LEASE_UNTIL, null);
            batch.put(OUTCOME_UNKNOWN, false);
            batch.put(COMMITTED_AT, now);
            batch.put(UPDATED_AT, now);
            if (!inline) {
              owe(batch, FileState.INGESTED);
            }
            t.set(batches.document(batchId), batch);
            writeSettledFiles(t, FileState.INGESTED, batchFiles, batchId);
            for (PartitionRelease release : releases) {
              releaseCommitted(t, stored, release, now);
            }
            return Optional.of(new Decided<>(new BatchCommitted(FirestoreDocuments.batch(batch), false), !inline));
          });
      if (decided.isEmpty()) {
        settle(batchId);
        continue;
      }
      BatchCommitted committed = decided.get().result();
      if (decided.get().owed()) {
        betweenCommits.reached("committed", batchId);
        settle(batchId);
      }
      if (!committed.alreadyCommitted()) {
        LOG.info("Committed batch {} of table {} with snapshot {}", batchId, committed.batch().table(), command.snapshotId());
      }
      return committed;
    }
  }

  @Override
  public BatchRecord failBatch(FailBatch command) {
    String batchId = command.batchId();
    String error = command.error();
    int maxAttempts = command.maxAttempts();
    List<String> exhaustedPartitions = new ArrayList<>();
    while (true) {
      Optional<Decided<BatchRecord>> decided = batchTransition("failBatch", batchId, "Cannot fail batch " + batchId,
          (t, batch, action) -> {
            if (batch.get(SETTLING) != null) {
              return Optional.<Decided<BatchRecord>>empty(); // owes writes of an earlier transition: those first
            }
            BatchRecord stored = FirestoreDocuments.batch(batch);
            States.requireTransition(action, stored.state(), BatchState.FAILED, BatchState::next);
            exhaustedPartitions.clear();
            boolean inline = fitsOneCommit(stored);
            List<Map<String, Object>> batchFiles = inline ? filesIn(t, stored) : List.of();
            List<PartitionRelease> releases = inline ? partitionsOf(t, stored, false) : List.of();
            Timestamp now = now();
            batch.put(STATE, BatchState.FAILED.code());
            batch.put(ERROR, error);
            batch.put(OUTCOME_UNKNOWN, command.outcomeUnknown());
            batch.put(LEASE_UNTIL, null);
            batch.put(UPDATED_AT, now);
            if (!inline) {
              owe(batch, FileState.RECORDED);
              batch.put(SETTLING_MAX_ATTEMPTS, (long) maxAttempts);
            }
            t.set(batches.document(batchId), batch);
            writeSettledFiles(t, FileState.RECORDED, batchFiles, batchId);
            for (PartitionRelease release : releases) {
              releaseFailed(t, stored, release, error, maxAttempts, now).ifPresent(exhaustedPartitions::add);
            }
            return Optional.of(new Decided<>(FirestoreDocuments.batch(batch), !inline));
          });
      if (decided.isEmpty()) {
        settle(batchId);
        continue;
      }
      BatchRecord failed = decided.get().result();
      if (decided.get().owed()) {
        betweenCommits.reached("failed", batchId);
        exhaustedPartitions.addAll(settle(batchId));
      }
      for (String exhausted : exhaustedPartitions) {
        LOG.warn("Partition {} of table {} FAILED (batch {}): {}", exhausted, failed.table(), batchId, error);
      }
      LOG.warn("Failed batch {} of table {}: {}", batchId, failed.table(), error);
      return failed;
    }
  }

  /** A transition's outcome; {@code owed}: its writes did not fit its commit and are still to be made. */
  private record Decided<T>(T result, boolean owed) {}

  /** Whether a commit or failure of the batch (it, its files and its partitions) fits one commit. */
  private static boolean fitsOneCommit(BatchRecord batch) {
    return 1 + batch.fileIds().size() + batch.partitions().size() <= MAX_WRITES_PER_COMMIT;
  }

  /** Writes the files that move when the batch settles to {@code target} (all in this commit). */
  private void writeSettledFiles(Transaction t, FileState target, List<Map<String, Object>> batchFiles, String batchId) {
    for (int position = 0; position < batchFiles.size(); position++) {
      Map<String, Object> file = batchFiles.get(position);
      if (settleFile(target, file, batchId, position)) {
        t.set(files.document((String) file.get(FILE_ID)), file);
      }
    }
  }

  /** After the commit of a batch: its partition INGESTED, or READY again when files are still pending. */
  private void releaseCommitted(Transaction t, BatchRecord batch, PartitionRelease release, Timestamp now) {
    PartitionState next = release.pending() ? PartitionState.READY : PartitionState.INGESTED;
    release(t, batch, release, next, 0, null, release.pending() ? now : null, now);
  }

  /**
   * After the failure of a batch: its partition READY again with one more attempt counted, or
   * FAILED once {@code maxAttempts} is reached (then returned, for the log).
   */
  private Optional<String> releaseFailed(Transaction t, BatchRecord batch, PartitionRelease release, String error,
      int maxAttempts, Timestamp now) {
    int attempts = release.stored().exists()
        ? ((Number) Objects.requireNonNullElse(release.stored().get(ATTEMPTS), 0L)).intValue() + 1 : 1;
    boolean exhausted = attempts >= maxAttempts;
    PartitionState next = exhausted ? PartitionState.FAILED : PartitionState.READY;
    boolean released = release(t, batch, release, next, attempts, error, exhausted ? null : now, now);
    return released && exhausted ? Optional.of(release.token() + " after " + attempts + " attempts") : Optional.empty();
  }

  @Override
  public List<BatchRecord> findExpiredLeases() {
    return read("findExpiredLeases", batches.getPath(), () -> {
      List<BatchRecord> expired = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.EXPIRED_LEASES.on(batches, IN_FLIGHT, now()).get().get()) {
        expired.add(FirestoreDocuments.batch(data(doc)));
      }
      return expired;
    });
  }

  @Override
  public int pruneCommitted(String table, int keep) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep must not be negative, was " + keep);
    }
    // Not one transaction: a committed batch never changes again, so deleting the ones beyond the
    // newest `keep` is idempotent, and each round is one batched write of at most one commit. A
    // commit still owing its files' writes needs its document: those are written first.
    settleTable(table);
    return read("pruneCommitted", batches.getPath() + " (table " + table + ")", () -> {
      int deleted = 0;
      while (true) {
        List<QueryDocumentSnapshot> committed = LedgerQuery.BATCHES_IN_STATE_BY_COMMITTED_AT
            .on(batches, table, BatchState.COMMITTED.code()).limit(keep + MAX_WRITES_PER_COMMIT).get().get().getDocuments();
        if (committed.size() <= keep) {
          break;
        }
        WriteBatch delete = db.batch();
        for (QueryDocumentSnapshot doc : committed.subList(keep, committed.size())) {
          delete.delete(doc.getReference());
        }
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

  @Override
  public FileRecord quarantineFile(String fileId, String reason) {
    Objects.requireNonNull(reason, "reason");
    DocumentReference ref = files.document(fileId);
    FileRecord quarantined = transaction("quarantineFile", ref.getPath(), t -> {
      DocumentSnapshot stored = t.get(ref).get();
      if (!stored.exists()) {
        throw new IllegalArgumentException("Cannot quarantine file " + fileId + ": no such file");
      }
      Map<String, Object> file = data(stored);
      States.requireTransition("Cannot quarantine file " + fileId + " (" + file.get(URI) + ")",
          FileState.fromCode((String) file.get(STATE)), FileState.QUARANTINED, FileState::next);
      file.put(STATE, FileState.QUARANTINED.code());
      file.put(QUARANTINE_REASON, reason);
      t.set(ref, file);
      return FirestoreDocuments.file(file);
    });
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

  /** SUPERSEDED or IGNORED with the reason, kept in the quarantine reason's field: why the file is left out. */
  private FileRecord leaveOut(String operation, String action, String fileId, FileState target, String reason) {
    Objects.requireNonNull(reason, "reason");
    DocumentReference ref = files.document(fileId);
    FileRecord left = transaction(operation, ref.getPath(), t -> {
      DocumentSnapshot stored = t.get(ref).get();
      if (!stored.exists()) {
        throw new IllegalArgumentException(action + fileId + ": no such file");
      }
      Map<String, Object> file = data(stored);
      if (States.requireLeftOut(action + fileId + " (" + file.get(URI) + ")",
          FileState.fromCode((String) file.get(STATE)), target)) {
        file.put(STATE, target.code());
        file.put(QUARANTINE_REASON, reason);
        t.set(ref, file);
      }
      return FirestoreDocuments.file(file);
    });
    LOG.warn("File {} generation {} of table {} is {}: {}", left.uri(), left.generation(), left.table(),
        left.state(), left.quarantineReason().orElse(reason));
    return left;
  }

  @Override
  public void quarantineMessage(QuarantinedMessage message) {
    DocumentReference ref = quarantine.document(LedgerSchema.quarantineId(message.messageId()));
    transaction("quarantineMessage", ref.getPath(), t -> {
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
      doc.put(RECEIVED_AT, timestamp(message.receivedAt()));
      t.create(ref, doc);
      return null;
    });
  }

  // --- reads -------------------------------------------------------------------------------------

  @Override
  public Optional<BatchRecord> batch(String batchId) {
    DocumentReference ref = batches.document(batchId);
    return read("batch", ref.getPath(), () -> optional(ref.get().get()).map(FirestoreDocuments::batch));
  }

  @Override
  public Optional<PartitionRecord> partition(String table, String partition) {
    DocumentReference ref = partitionRef(table, partition);
    return read("partition", ref.getPath() + " (" + table + "/" + partition + ")",
        () -> optional(ref.get().get()).map(FirestoreDocuments::partition));
  }

  @Override
  public Optional<FileRecord> file(String fileId) {
    DocumentReference ref = files.document(fileId);
    return read("file", ref.getPath(), () -> optional(ref.get().get()).map(FirestoreDocuments::file));
  }

  @Override
  public List<FileRecord> filesOfBatch(String batchId) {
    DocumentReference ref = batches.document(batchId);
    return read("filesOfBatch", ref.getPath(), () -> {
      Optional<Map<String, Object>> batch = optional(ref.get().get());
      if (batch.isEmpty()) {
        // Pruned: its files still carry the batch (by key) and their position in it.
        List<Map<String, Object>> found = new ArrayList<>();
        for (QueryDocumentSnapshot doc : LedgerQuery.FILES_OF_BATCH.on(files, LedgerSchema.batchKey(batchId)).get().get()) {
          Map<String, Object> file = data(doc);
          if (batchId.equals(file.get(BATCH_ID))) {
            found.add(file);
          }
        }
        found.sort(Comparator.comparingLong(file -> ((Number) file.get(BATCH_POSITION)).longValue()));
        return found.stream().map(FirestoreDocuments::file).toList();
      }
      // The batch document's list also covers a FAILED batch, whose files were released.
      List<String> ids = FirestoreDocuments.batch(batch.get()).fileIds();
      List<FileRecord> result = new ArrayList<>();
      for (DocumentSnapshot doc : getAll(ids).get()) {
        optional(doc).map(FirestoreDocuments::file).ifPresent(result::add);
      }
      return result;
    });
  }

  @Override
  public List<String> tables() {
    return read("tables", partitions.getPath(), () -> {
      // One indexed read per table: the first partition whose table sorts after the last one seen.
      List<String> tables = new ArrayList<>();
      String last = "";
      while (true) {
        List<QueryDocumentSnapshot> next = LedgerQuery.TABLE_AFTER.on(partitions, last).limit(1).get().get().getDocuments();
        if (next.isEmpty()) {
          return tables;
        }
        last = next.get(0).getString(TABLE);
        tables.add(last);
      }
    });
  }

  @Override
  public TableStatus tableStatus(String table) {
    return read("tableStatus", partitions.getPath() + " (table " + table + ")", () -> {
      // Counts are aggregation queries (billed per index entry read, no document read).
      Map<PartitionState, ApiFuture<AggregateQuerySnapshot>> partitionCounts = new EnumMap<>(PartitionState.class);
      for (PartitionState state : PartitionState.values()) {
        partitionCounts.put(state, LedgerQuery.PARTITION_COUNT.on(partitions, table, state.code()).count().get());
      }
      Map<FileState, ApiFuture<AggregateQuerySnapshot>> fileCounts = new EnumMap<>(FileState.class);
      for (FileState state : FileState.values()) {
        fileCounts.put(state, LedgerQuery.FILE_COUNT.on(files, table, state.code()).count().get());
      }
      Map<PartitionState, Long> partitionsByState = new EnumMap<>(PartitionState.class);
      for (Map.Entry<PartitionState, ApiFuture<AggregateQuerySnapshot>> count : partitionCounts.entrySet()) {
        long value = count.getValue().get().getCount();
        if (value > 0) {
          partitionsByState.put(count.getKey(), value);
        }
      }
      Map<FileState, Long> filesByState = new EnumMap<>(FileState.class);
      for (Map.Entry<FileState, ApiFuture<AggregateQuerySnapshot>> count : fileCounts.entrySet()) {
        long value = count.getValue().get().getCount();
        if (value > 0) {
          filesByState.put(count.getKey(), value);
        }
      }
      List<BatchRecord> inFlight = batchList(LedgerQuery.BATCHES_IN_STATES_BY_CREATED_AT.on(batches, table, IN_FLIGHT));
      Optional<BatchRecord> lastCommitted = batchList(LedgerQuery.BATCHES_IN_STATE_BY_COMMITTED_AT
          .on(batches, table, BatchState.COMMITTED.code()).limit(1)).stream().findFirst();
      Optional<Instant> oldestReadyAt = LedgerQuery.PARTITIONS_IN_STATE_BY_READY_AT
          .on(partitions, table, PartitionState.READY.code()).limit(1).get().get().getDocuments().stream()
          .findFirst().map(doc -> FirestoreDocuments.partition(data(doc))).flatMap(PartitionRecord::readyAt);
      List<PartitionRecord> failedPartitions = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.PARTITIONS_IN_STATE
          .on(partitions, table, PartitionState.FAILED.code()).get().get()) {
        failedPartitions.add(FirestoreDocuments.partition(data(doc)));
      }
      List<BatchRecord> failedBatches = batchList(LedgerQuery.BATCHES_IN_STATE_BY_UPDATED_AT
          .on(batches, table, BatchState.FAILED.code()).limit(FAILED_BATCHES_SHOWN));
      return new TableStatus(table, Collections.unmodifiableMap(partitionsByState),
          Collections.unmodifiableMap(filesByState), inFlight, lastCommitted, oldestReadyAt, failedPartitions,
          failedBatches);
    });
  }

  // --- operator commands: replay, backfill, reconcile -----------------------------------------

  /** Files reopened per transaction: well below the 500 writes of one commit. */
  private static final int REOPEN_FILES_PER_COMMIT = MAX_WRITES_PER_COMMIT - 100;

  @Override
  public List<PartitionRecord> partitions(String table) {
    return read("partitions", partitions.getPath() + " (table " + table + ")", () -> {
      List<PartitionRecord> found = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.PARTITIONS_OF_TABLE.on(partitions, table).get().get()) {
        found.add(FirestoreDocuments.partition(data(doc)));
      }
      found.sort(Comparator.comparing(PartitionRecord::partition));
      return found;
    });
  }

  @Override
  public List<FileRecord> filesOfPartition(String table, String partition) {
    return read("filesOfPartition", files.getPath() + " (" + table + "/" + partition + ")", () -> {
      List<FileRecord> found = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.FILES_OF_PARTITION.on(files, table, partition).get().get()) {
        found.add(FirestoreDocuments.file(data(doc)));
      }
      found.sort(Comparator.comparing(FileRecord::uri).thenComparingLong(FileRecord::generation));
      return found;
    });
  }

  /**
   * One transaction per chunk of files, the last one also turning the partition READY: a
   * partition's files may exceed one commit. An interrupted reopen leaves the partition INGESTED
   * with some files RECORDED; calling it again finishes the job.
   */
  @Override
  public PartitionRecord reopenPartition(String table, String partition) {
    DocumentReference ref = partitionRef(table, partition);
    String action = "Cannot reopen partition " + table + "/" + partition;
    while (true) {
      Optional<PartitionRecord> done = transaction("reopenPartition", ref.getPath() + " (" + table + "/" + partition + ")", t -> {
        DocumentSnapshot stored = t.get(ref).get();
        if (!stored.exists()) {
          throw new IllegalArgumentException(action + ": no such partition");
        }
        Map<String, Object> doc = data(stored);
        PartitionState state = PartitionState.fromCode((String) doc.get(STATE));
        if (state == PartitionState.READY) {
          return Optional.of(FirestoreDocuments.partition(doc));
        }
        States.requireOneOf(action, state, EnumSet.of(PartitionState.INGESTED, PartitionState.READY));
        List<QueryDocumentSnapshot> ingested = t.get(LedgerQuery.PENDING_FILES
            .on(files, table, partition, FileState.INGESTED.code()).limit(REOPEN_FILES_PER_COMMIT)).get().getDocuments();
        for (QueryDocumentSnapshot fileDoc : ingested) {
          Map<String, Object> file = data(fileDoc);
          backToRecorded(file);
          t.set(files.document((String) file.get(FILE_ID)), file);
        }
        if (ingested.size() == REOPEN_FILES_PER_COMMIT) {
          return Optional.<PartitionRecord>empty(); // more to come: the partition stays INGESTED
        }
        ready(doc, now());
        t.set(ref, doc);
        return Optional.of(FirestoreDocuments.partition(doc));
      });
      if (done.isPresent()) {
        LOG.info("Reopened partition {}/{}: its ingested files load again", table, partition);
        return done.get();
      }
    }
  }

  /**
   * A file document back to RECORDED (released by a failed batch, reopened by a replay, released
   * from quarantine): it forgets its batch, since only CLAIMED and later states carry one.
   */
  private static void backToRecorded(Map<String, Object> file) {
    file.put(STATE, FileState.RECORDED.code());
    file.put(BATCH_ID, null);
    file.put(BATCH_KEY, null);
    file.put(BATCH_POSITION, null);
  }

  @Override
  public List<QuarantinedMessage> quarantinedMessages() {
    return read("quarantinedMessages", quarantine.getPath(), () -> {
      // Rare and operator-facing: read whole and sorted here, so receivedAt needs no index.
      List<QuarantinedMessage> messages = new ArrayList<>();
      for (QueryDocumentSnapshot doc : quarantine.get().get()) {
        messages.add(FirestoreDocuments.quarantined(data(doc)));
      }
      messages.sort(Comparator.comparing(QuarantinedMessage::receivedAt).thenComparing(QuarantinedMessage::messageId));
      return messages;
    });
  }

  // --- operator commands: retry, inspect, quarantine ----------------------------------------------

  @Override
  public PartitionRecord retryPartition(String table, String partition) {
    DocumentReference ref = partitionRef(table, partition);
    String action = "Cannot retry partition " + table + "/" + partition;
    return transaction("retryPartition", ref.getPath() + " (" + table + "/" + partition + ")", t -> {
      Map<String, Object> stored = optional(t.get(ref).get())
          .orElseThrow(() -> new IllegalArgumentException(action + ": no such partition"));
      return retry(t, stored, action, now());
    });
  }

  @Override
  public List<PartitionRecord> retryBatch(String batchId) {
    settle(batchId); // a failure cut short still holds its partitions
    List<PartitionRecord> retried = batchTransition("retryBatch", batchId, "Cannot retry batch " + batchId,
        (t, batch, action) -> {
          BatchRecord stored = FirestoreDocuments.batch(batch);
          States.requireOneOf(action, stored.state(), EnumSet.of(BatchState.FAILED));
          List<PartitionRecord> requeued = new ArrayList<>();
          Timestamp now = now();
          for (PartitionRelease release : partitionsOf(t, stored, false)) {
            Optional<Map<String, Object>> partition = optional(release.stored());
            if (partition.isPresent()
                && PartitionState.RETRYABLE.contains(PartitionState.fromCode((String) partition.get().get(STATE)))) {
              requeued.add(retry(t, partition.get(), action, now));
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
    while (true) {
      Optional<Decided<BatchRecord>> decided = batchTransition("reviveBatch", batchId, "Cannot revive batch " + batchId,
          (t, batch, action) -> {
            if (batch.get(SETTLING) != null) {
              return Optional.<Decided<BatchRecord>>empty(); // a failure cut short: its writes first
            }
            BatchRecord stored = FirestoreDocuments.batch(batch);
            States.requireTransition(action, stored.state(), BatchState.PLANNED, BatchState::next);
            // Reads and checks of every file and partition before the first write: a refusal
            // changes nothing, and what is checked here is what the settling claims.
            List<Map<String, Object>> claimed = new ArrayList<>();
            List<Integer> positions = new ArrayList<>();
            List<DocumentSnapshot> fileDocs = getAllIn(t, stored.fileIds());
            for (int position = 0; position < fileDocs.size(); position++) {
              String fileId = stored.fileIds().get(position);
              Map<String, Object> file = optional(fileDocs.get(position)).orElseThrow(() ->
                  new IllegalStateException(action + ": its file " + fileId + " is missing from the ledger"));
              if (States.requireRevivable(action, fileId, (String) file.get(URI),
                  FileState.fromCode((String) file.get(STATE)))) {
                claimed.add(file);
                positions.add(position);
              }
            }
            List<Map<String, Object>> partitionDocs = new ArrayList<>();
            for (PartitionRelease release : partitionsOf(t, stored, false)) {
              Map<String, Object> partition = requirePartition(release.stored(), stored.table(), release.token());
              States.requireRevivable(action, stored.table(), release.token(),
                  PartitionState.fromCode((String) partition.get(STATE)));
              partitionDocs.add(partition);
            }
            boolean inline = 1 + claimed.size() + partitionDocs.size() <= MAX_WRITES_PER_COMMIT;
            Timestamp now = now();
            batch.put(STATE, BatchState.PLANNED.code());
            // A fresh count of attempts; the launches go on counting, so the relaunch gets a new job.
            batch.put(ATTEMPTS, 0L);
            batch.put(LAUNCHES, FirestoreDocuments.launches(batch));
            // Kept, as the error is (an earlier build's document has it only in the error's words).
            batch.put(OUTCOME_UNKNOWN, FirestoreDocuments.outcomeUnknown(batch));
            // Already expired: recovery's takeOverExpiredLease accepts it at once.
            batch.put(LEASE_UNTIL, timestamp(clock.millis() - 1));
            batch.put(UPDATED_AT, now);
            if (!inline) {
              owe(batch, FileState.CLAIMED);
            }
            t.set(batches.document(batchId), batch);
            for (int i = 0; inline && i < claimed.size(); i++) {
              claimFile(claimed.get(i), batchId, positions.get(i));
              t.set(files.document((String) claimed.get(i).get(FILE_ID)), claimed.get(i));
            }
            for (Map<String, Object> partition : partitionDocs) {
              partition.put(STATE, PartitionState.CLAIMED.code());
              partition.put(BATCH_ID, batchId);
              partition.put(ATTEMPTS, 0L);
              partition.put(UPDATED_AT, now);
              t.set(partitionRef(partition), partition);
            }
            return Optional.of(new Decided<>(FirestoreDocuments.batch(batch), !inline));
          });
      if (decided.isEmpty()) {
        settle(batchId);
        continue;
      }
      BatchRecord revived = decided.get().result();
      if (decided.get().owed()) {
        betweenCommits.reached("revived", batchId);
        settle(batchId);
      }
      LOG.info("Revived batch {} of table {}: files and partitions {} claimed again for a relaunch", batchId,
          revived.table(), revived.partitions());
      return revived;
    }
  }

  /** The documents of these files, in their order, read in the transaction (a call per commit's worth). */
  private List<DocumentSnapshot> getAllIn(Transaction t, List<String> fileIds) throws Exception {
    List<ApiFuture<List<DocumentSnapshot>>> reads = new ArrayList<>();
    for (int from = 0; from < fileIds.size(); from += MAX_WRITES_PER_COMMIT) {
      reads.add(t.getAll(fileIds.subList(from, Math.min(fileIds.size(), from + MAX_WRITES_PER_COMMIT)).stream()
          .map(files::document).toArray(DocumentReference[]::new)));
    }
    List<DocumentSnapshot> docs = new ArrayList<>(fileIds.size());
    for (ApiFuture<List<DocumentSnapshot>> read : reads) {
      docs.addAll(read.get());
    }
    return docs;
  }

  /** FAILED to READY (or READY kept) with the attempts reset; the last error stays for inspect. */
  private PartitionRecord retry(Transaction t, Map<String, Object> partition, String action, Timestamp now) {
    PartitionState state = PartitionState.fromCode((String) partition.get(STATE));
    States.requireOneOf(action, state, PartitionState.RETRYABLE);
    if (state == PartitionState.FAILED) {
      ready(partition, now);
    }
    partition.put(ATTEMPTS, 0L);
    partition.put(UPDATED_AT, now);
    t.set(partitionRef(partition), partition);
    return FirestoreDocuments.partition(partition);
  }

  @Override
  public FileRecord releaseFile(String fileId) {
    DocumentReference ref = files.document(fileId);
    FileRecord released = transaction("releaseFile", ref.getPath(), t -> {
      Map<String, Object> file = optional(t.get(ref).get())
          .orElseThrow(() -> new IllegalArgumentException("Cannot release file " + fileId + ": no such file"));
      States.requireOneOf("Cannot release file " + fileId + " (" + file.get(URI) + ") from the quarantine",
          FileState.fromCode((String) file.get(STATE)), EnumSet.of(FileState.QUARANTINED));
      String table = (String) file.get(TABLE);
      String token = (String) file.get(PARTITION);
      DocumentReference partitionRef = partitionRef(table, token);
      Map<String, Object> partition = requirePartition(t.get(partitionRef).get(), table, token);
      if (PartitionState.INGESTED.code().equals(partition.get(STATE))) {
        // Like a late file: the partition is READY again for just this file.
        ready(partition, now());
        t.set(partitionRef, partition);
      }
      backToRecorded(file);
      file.put(QUARANTINE_REASON, null);
      t.set(ref, file);
      return FirestoreDocuments.file(file);
    });
    LOG.info("Released file {} of table {} from the quarantine", released.uri(), released.table());
    return released;
  }

  @Override
  public boolean releaseMessage(String messageId) {
    DocumentReference ref = quarantine.document(LedgerSchema.quarantineId(messageId));
    return transaction("releaseMessage", ref.getPath(), t -> {
      if (!t.get(ref).get().exists()) {
        return false;
      }
      t.delete(ref);
      return true;
    });
  }

  @Override
  public List<FileRecord> quarantinedFiles() {
    return read("quarantinedFiles", files.getPath(), () -> {
      List<FileRecord> found = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.FILES_IN_STATE.on(files, FileState.QUARANTINED.code()).get().get()) {
        found.add(FirestoreDocuments.file(data(doc)));
      }
      found.sort(Comparator.comparing(FileRecord::table).thenComparing(FileRecord::partition)
          .thenComparing(FileRecord::uri).thenComparingLong(FileRecord::generation));
      return found;
    });
  }

  @Override
  public List<FileRecord> filesNamed(String bucket, String name) {
    return read("filesNamed", files.getPath() + " (" + bucket + "/" + name + ")", () -> {
      List<FileRecord> found = new ArrayList<>();
      for (QueryDocumentSnapshot doc : LedgerQuery.FILES_NAMED.on(files, bucket, name).get().get()) {
        found.add(FirestoreDocuments.file(data(doc)));
      }
      return found;
    });
  }

  @Override
  public List<BatchRecord> batchesOfPartition(String table, String partition) {
    return read("batchesOfPartition", batches.getPath() + " (" + table + "/" + partition + ")", () -> {
      List<BatchRecord> found = new ArrayList<>();
      for (BatchRecord batch : batchList(LedgerQuery.BATCHES_OF_TABLE.on(batches, table))) {
        if (batch.partitions().contains(partition)) {
          found.add(batch);
        }
      }
      found.sort(Comparator.comparing(BatchRecord::createdAt).thenComparing(BatchRecord::batchId));
      return found;
    });
  }

  @Override
  public Optional<String> unavailableBecause() {
    if (closed.get()) {
      return Optional.of("The Firestore ledger is closed");
    }
    try {
      // A write, not a read: a database that answers reads but refuses writes (quota, permission)
      // fails every push as well. Within the deadline, as every call.
      retry.run("probe", probe.getPath(), () -> probe.set(Map.of(UPDATED_AT, now())).get());
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn("The Firestore ledger (collections '{}*') cannot take a write: {}", prefix, e.toString());
      return Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      // Best effort: a probe document left by a process that died is a few bytes nothing reads.
      probe.delete().get(retry.deadline().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.debug("Deleting the probe document {} failed", probe.getPath(), e);
    }
    if (ownsClient) {
      try {
        db.close();
      } catch (Exception e) {
        LOG.warn("Closing the Firestore client failed", e);
      }
    }
  }

  // --- units of work -----------------------------------------------------------------------------

  @FunctionalInterface
  private interface Body<T> {
    T apply(Transaction t) throws Exception;
  }

  @FunctionalInterface
  private interface BatchBody<T> {
    T apply(Transaction t, Map<String, Object> batch, String action) throws Exception;
  }

  private <T> T transaction(String operation, String path, Body<T> body) {
    requireOpen(operation, path);
    TransactionOptions options = TransactionOptions.createReadWriteOptionsBuilder()
        .setNumberOfAttempts(TRANSACTION_ATTEMPTS).build();
    return retry.run(operation, path, () -> {
      ApiFuture<T> run = db.runTransaction(t -> {
        transactionRuns.increment();
        T result = body.apply(t);
        // Firestore refuses a commit of more writes; the emulator does not, so the ledger checks
        // its own bound and every test on the emulator shows it is kept.
        if (t.getMutationsSize() > MAX_WRITES_PER_COMMIT) {
          throw new IllegalStateException("Ledger " + operation + " for " + path + " would commit "
              + t.getMutationsSize() + " writes, more than Firestore's " + MAX_WRITES_PER_COMMIT + " per commit");
        }
        return result;
      }, options);
      try {
        return run.get();
      } catch (InterruptedException e) {
        // Abandoned at the deadline: no reruns of it after Firestore answers again.
        run.cancel(true);
        throw e;
      }
    });
  }

  /** A transition of one batch: reads it first; an unknown id fails naming it. */
  private <T> T batchTransition(String operation, String batchId, String action, BatchBody<T> body) {
    DocumentReference ref = batches.document(batchId);
    return transaction(operation, ref.getPath(), t -> {
      DocumentSnapshot stored = t.get(ref).get();
      if (!stored.exists()) {
        throw new IllegalArgumentException(action + ": no such batch");
      }
      return body.apply(t, data(stored), action);
    });
  }

  private <T> T read(String operation, String path, FirestoreRetry.Work<T> work) {
    requireOpen(operation, path);
    return retry.run(operation, path, work);
  }

  private void requireOpen(String operation, String path) {
    if (closed.get()) {
      throw new IllegalStateException("The Firestore ledger is closed (" + operation + " " + path + ")");
    }
  }

  // --- documents ---------------------------------------------------------------------------------

  private record PartitionRelease(String token, DocumentSnapshot stored, boolean pending) {}

  /**
   * Releases a partition this batch still holds; the guard makes commit and fail no-ops for
   * partitions another path has already moved.
   */
  private boolean release(Transaction t, BatchRecord batch, PartitionRelease release, PartitionState next,
      int attempts, String lastError, Timestamp readyAt, Timestamp now) {
    Optional<Map<String, Object>> stored = optional(release.stored());
    boolean held = stored.isPresent()
        && PartitionState.CLAIMED.code().equals(stored.get().get(STATE))
        && batch.batchId().equals(stored.get().get(BATCH_ID));
    if (!held) {
      LOG.warn("Partition {} of table {} is no longer claimed by batch {}; left as it is",
          release.token(), batch.table(), batch.batchId());
      return false;
    }
    Map<String, Object> partition = stored.get();
    partition.put(STATE, next.code());
    partition.put(ATTEMPTS, (long) attempts);
    FirestoreDocuments.putOrClear(partition, LAST_ERROR, Optional.ofNullable(lastError));
    if (readyAt != null) {
      partition.put(READY_AT, readyAt);
    }
    partition.put(UPDATED_AT, now);
    t.set(partitionRef(batch.table(), release.token()), partition);
    return true;
  }

  /**
   * The batch's partitions, read in one call, and (with {@code checkPending}) whether each still has
   * RECORDED files, asked concurrently.
   */
  private List<PartitionRelease> partitionsOf(Transaction t, BatchRecord batch, boolean checkPending) throws Exception {
    List<String> tokens = batch.partitions();
    if (tokens.isEmpty()) {
      return List.of();
    }
    List<DocumentSnapshot> stored = t.getAll(
        tokens.stream().map(token -> partitionRef(batch.table(), token)).toArray(DocumentReference[]::new)).get();
    List<ApiFuture<QuerySnapshot>> pending = new ArrayList<>();
    if (checkPending) {
      for (String token : tokens) {
        pending.add(t.get(LedgerQuery.PENDING_FILES.on(files, batch.table(), token, FileState.RECORDED.code()).limit(1)));
      }
    }
    List<PartitionRelease> releases = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      releases.add(new PartitionRelease(tokens.get(i), stored.get(i), checkPending && !pending.get(i).get().isEmpty()));
    }
    return releases;
  }

  /** The batch's file documents that exist, in its order, read in the transaction. */
  private List<Map<String, Object>> filesIn(Transaction t, BatchRecord batch) throws Exception {
    List<Map<String, Object>> found = new ArrayList<>();
    for (DocumentSnapshot doc : getAllIn(t, batch.fileIds())) {
      optional(doc).ifPresent(found::add);
    }
    return found;
  }

  private boolean hasPending(Transaction t, String table, String partition) throws Exception {
    return !t.get(LedgerQuery.PENDING_FILES.on(files, table, partition, FileState.RECORDED.code()).limit(1))
        .get().isEmpty();
  }

  private ApiFuture<List<DocumentSnapshot>> getAll(List<String> fileIds) {
    if (fileIds.isEmpty()) {
      return com.google.api.core.ApiFutures.immediateFuture(List.of());
    }
    return db.getAll(fileIds.stream().map(files::document).toArray(DocumentReference[]::new));
  }

  private List<BatchRecord> batchList(Query query) throws Exception {
    List<BatchRecord> list = new ArrayList<>();
    for (QueryDocumentSnapshot doc : query.get().get()) {
      list.add(FirestoreDocuments.batch(data(doc)));
    }
    return list;
  }

  private static Map<String, Object> newPartition(String table, String partition, String prefix,
      PartitionState state, boolean markerSeen, Timestamp now) {
    Map<String, Object> doc = new HashMap<>();
    doc.put(PARTITION_ID, LedgerSchema.partitionId(table, partition));
    doc.put(TABLE, table);
    doc.put(PARTITION, partition);
    FirestoreDocuments.putOrClear(doc, PREFIX, Optional.ofNullable(prefix));
    doc.put(STATE, state.code());
    doc.put(MARKER_SEEN, markerSeen);
    doc.put(ATTEMPTS, 0L);
    if (state == PartitionState.READY) {
      doc.put(READY_AT, now);
    }
    doc.put(UPDATED_AT, now);
    return doc;
  }

  private static void marker(Map<String, Object> partition, String prefix, Timestamp now) {
    partition.put(MARKER_SEEN, true);
    partition.put(PREFIX, prefix);
    partition.put(UPDATED_AT, now);
  }

  private static void ready(Map<String, Object> partition, Timestamp now) {
    partition.put(STATE, PartitionState.READY.code());
    partition.put(READY_AT, now);
    partition.put(UPDATED_AT, now);
  }

  private static Map<String, Object> requirePartition(DocumentSnapshot partition, String table, String token) {
    return optional(partition).orElseThrow(
        () -> new IllegalStateException("Partition " + table + "/" + token + " is missing from the ledger"));
  }

  private DocumentReference partitionRef(String table, String partition) {
    return partitions.document(LedgerSchema.partitionId(table, partition));
  }

  private DocumentReference partitionRef(Map<String, Object> partition) {
    return partitions.document((String) partition.get(PARTITION_ID));
  }

  private static BatchState state(Map<String, Object> batch) {
    return BatchState.fromCode((String) batch.get(STATE));
  }

  private static Map<String, Object> data(DocumentSnapshot snapshot) {
    return new HashMap<>(Objects.requireNonNull(snapshot.getData(), "document data"));
  }

  private static Optional<Map<String, Object>> optional(DocumentSnapshot snapshot) {
    return snapshot.exists() ? Optional.of(data(snapshot)) : Optional.empty();
  }

  private Timestamp now() {
    return timestamp(clock.millis());
  }

  private static String newProbeId() {
    byte[] random = new byte[8];
    RANDOM.nextBytes(random);
    return HexFormat.of().formatHex(random);
  }

  /** Sortable by creation second, unique by its random part (as the SQLite ledger's). */
  private String newBatchId() {
    byte[] random = new byte[4];
    RANDOM.nextBytes(random);
    return BATCH_ID_TIME.format(clock.instant()) + "-" + HexFormat.of().formatHex(random);
  }
}
