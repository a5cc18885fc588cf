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
import static io.files2iceberg.core.ledger.LedgerSchema.SNAPSHOT_ID;
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
 * file in two batches: a file is claimed only in the transaction that moves its partition from
 * READY to CLAIMED and finds it RECORDED, and a transaction that read either document stale is
 * rerun.
 *
 * <p>A Firestore commit holds at most {@value #MAX_WRITES_PER_COMMIT} writes. A batch's life
 * (claim, commit, fail) writes the batch, each of its files and each of its partitions, so a claim
 * takes files and partitions only while they fit one commit: a batch holds at most {@value
 * #MAX_FILES_PER_BATCH} files, whatever {@code maxFiles} asks for. The alternative, claiming in
 * several commits, would leave states half-moved between them for every reader to repair.
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
  /** One commit: the batch document, its files and at least one partition. */
  public static final int MAX_FILES_PER_BATCH = MAX_WRITES_PER_COMMIT - 2;
  /** Below Firestore's 1 MiB per document, with room for the document name and overhead. */
  static final long MAX_DOCUMENT_BYTES = 1_000_000;
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
  private final AtomicBoolean warnedAboutCap = new AtomicBoolean();
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
    if (command.maxFiles() > MAX_FILES_PER_BATCH && warnedAboutCap.compareAndSet(false, true)) {
      LOG.warn("Claims of table {} ask for up to {} files; a Firestore batch holds at most {} (one commit of {} writes)",
          table, command.maxFiles(), MAX_FILES_PER_BATCH, MAX_WRITES_PER_COMMIT);
    }
    int maxFiles = Math.min(command.maxFiles(), MAX_FILES_PER_BATCH);
    Optional<BatchRecord> claimed = transaction("claimPartitions", partitions.getPath() + " (table " + table + ")", t -> {
      if (command.exclusive()
          && !t.get(LedgerQuery.BATCHES_IN_STATES.on(batches, table, IN_FLIGHT).limit(1)).get().isEmpty()) {
        return Optional.<BatchRecord>empty();
      }
      Timestamp now = now();
      // Reads first (a Firestore transaction reads everything before it writes), then the writes.
      // Every partition walked costs at least one write, so more than one commit's worth is never
      // read.
      List<QueryDocumentSnapshot> ready = t.get(LedgerQuery.PARTITIONS_IN_STATE
          .on(partitions, table, PartitionState.READY.code()).limit(MAX_WRITES_PER_COMMIT - 1)).get().getDocuments();
      List<Map<String, Object>> claimedPartitions = new ArrayList<>();
      List<Map<String, Object>> settled = new ArrayList<>();
      List<Map<String, Object>> claimedFiles = new ArrayList<>();
      for (QueryDocumentSnapshot snapshot : ready) {
        Map<String, Object> partition = data(snapshot);
        String token = (String) partition.get(PARTITION);
        int writes = 1 + claimedFiles.size() + claimedPartitions.size() + settled.size();
        int room = Math.min(maxFiles - claimedFiles.size(), MAX_WRITES_PER_COMMIT - writes - 1);
        if (room < 1) {
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
        if (!first && pending.size() > room) {
          break; // whole partitions only after the first; a later one must fit entirely
        }
        // The first partition may exceed the limit: it then yields its first files in claim order,
        // and the next claim (after this batch commits or fails) continues the range.
        for (QueryDocumentSnapshot file : pending.subList(0, Math.min(pending.size(), room))) {
          claimedFiles.add(data(file));
        }
        claimedPartitions.add(partition);
        if (claimedFiles.size() >= maxFiles) {
          break;
        }
      }
      for (Map<String, Object> partition : settled) {
        partition.put(STATE, PartitionState.INGESTED.code());
        partition.put(UPDATED_AT, now);
        t.set(partitionRef(partition), partition);
      }
      if (claimedPartitions.isEmpty()) {
        return Optional.<BatchRecord>empty();
      }
      return Optional.of(createBatch(t, table, claimedPartitions, claimedFiles, command.lease(), now));
    });
    // Logged once the transaction committed (its body may run more than once).
    claimed.ifPresent(batch -> LOG.info("Claimed batch {} of table {}: {} files in partitions {}",
        batch.batchId(), table, batch.fileIds().size(), batch.partitions()));
    return claimed;
  }

  @Override
  public Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    String table = command.table();
    String path = partitions.getPath() + " (table " + table + ")";
    List<String> superseded = new ArrayList<>();
    // One commit holds 500 writes. When superseding every older READY partition and claiming the
    // newest do not fit in one, the oldest are superseded first, a commit at a time: they are
    // older than the newest READY partition in any case, and it stays READY for the claim.
    while (true) {
      NewestStep step = transaction("claimNewestPartition", path, t -> newestStep(t, command));
      superseded.addAll(step.superseded());
      if (!step.again()) {
        Optional<NewestPartitionClaimed> claimed =
            step.batch().map(batch -> new NewestPartitionClaimed(batch, superseded.stream().sorted().toList()));
        claimed.ifPresent(c -> LOG.info("Claimed batch {} of table {}: {} files of the newest partition {}; superseded {}",
            c.batch().batchId(), table, c.batch().fileIds().size(), c.batch().partitions(), c.superseded()));
        return claimed;
      }
    }
  }

  /** One transaction of {@link #claimNewestPartition}. */
  private record NewestStep(Optional<BatchRecord> batch, List<String> superseded, boolean again) {}

  private NewestStep newestStep(Transaction t, ClaimNewestPartition command) throws Exception {
    String table = command.table();
    List<String> superseded = new ArrayList<>();
    if (!t.get(LedgerQuery.BATCHES_IN_STATES.on(batches, table, IN_FLIGHT).limit(1)).get().isEmpty()) {
      return new NewestStep(Optional.empty(), superseded, false);
    }
    Timestamp now = now();
    // Reads first: the READY partitions (oldest first), then the pending files of the newest ones.
    List<Map<String, Object>> ready = new ArrayList<>();
    for (QueryDocumentSnapshot snapshot : t.get(LedgerQuery.PARTITIONS_IN_STATE
        .on(partitions, table, PartitionState.READY.code()).limit(MAX_WRITES_PER_COMMIT)).get().getDocuments()) {
      ready.add(data(snapshot));
    }
    if (ready.size() == MAX_WRITES_PER_COMMIT) {
      // There may be more: all but the last of this page are older than the newest.
      for (Map<String, Object> partition : ready.subList(0, ready.size() - 1)) {
        supersede(t, partition, now);
        superseded.add((String) partition.get(PARTITION));
      }
      return new NewestStep(Optional.empty(), superseded, true);
    }
    List<Map<String, Object>> settled = new ArrayList<>();
    Map<String, Object> newest = null;
    List<QueryDocumentSnapshot> pending = List.of();
    for (int i = ready.size() - 1; i >= 0 && newest == null; i--) {
      Map<String, Object> partition = ready.get(i);
      String token = (String) partition.get(PARTITION);
      pending = t.get(LedgerQuery.PENDING_FILES.on(files, table, token, FileState.RECORDED.code())
          .limit(MAX_FILES_PER_BATCH + 1)).get().getDocuments();
      if (pending.isEmpty()) {
        States.requireTransition("Cannot settle partition " + table + "/" + token,
            PartitionState.READY, PartitionState.INGESTED, PartitionState::next);
        settled.add(partition);
      } else {
        newest = partition;
      }
    }
    if (newest != null && pending.size() > MAX_FILES_PER_BATCH) {
      throw new IllegalStateException("Cannot claim partition " + table + "/" + newest.get(PARTITION)
          + " whole: it has more than " + MAX_FILES_PER_BATCH + " files, the most one Firestore batch holds"
          + " (ingestion-type last loads a partition whole)");
    }
    List<Map<String, Object>> older = newest == null ? List.of() : ready.subList(0, ready.indexOf(newest));
    int claimWrites = newest == null ? 0 : pending.size() + 2;
    int room = MAX_WRITES_PER_COMMIT - settled.size() - claimWrites;
    for (Map<String, Object> partition : settled) {
      partition.put(STATE, PartitionState.INGESTED.code());
      partition.put(UPDATED_AT, now);
      t.set(partitionRef(partition), partition);
    }
    if (older.size() > room) {
      // Not all in one commit: supersede the oldest now, claim in the next transaction.
      int fit = Math.max(0, MAX_WRITES_PER_COMMIT - settled.size());
      for (Map<String, Object> partition : older.subList(0, Math.min(fit, older.size()))) {
        supersede(t, partition, now);
        superseded.add((String) partition.get(PARTITION));
      }
      return new NewestStep(Optional.empty(), superseded, true);
    }
    if (newest == null) {
      return new NewestStep(Optional.empty(), superseded, false);
    }
    for (Map<String, Object> partition : older) {
      supersede(t, partition, now);
      superseded.add((String) partition.get(PARTITION));
    }
    List<Map<String, Object>> claimedFiles = new ArrayList<>();
    for (QueryDocumentSnapshot file : pending) {
      claimedFiles.add(data(file));
    }
    return new NewestStep(
        Optional.of(createBatch(t, table, List.of(newest), claimedFiles, command.lease(), now)), superseded, false);
  }

  private void supersede(Transaction t, Map<String, Object> partition, Timestamp now) {
    States.requireTransition("Cannot supersede partition " + partition.get(TABLE) + "/" + partition.get(PARTITION),
        PartitionState.READY, PartitionState.SUPERSEDED, PartitionState::next);
    partition.put(STATE, PartitionState.SUPERSEDED.code());
    partition.put(UPDATED_AT, now);
    t.set(partitionRef(partition), partition);
  }

  /**
   * The claim's writes, in the caller's transaction after its reads: the files and partitions
   * CLAIMED by a new batch, and the batch PLANNED.
   */
  private BatchRecord createBatch(Transaction t, String table, List<Map<String, Object>> claimedPartitions,
      List<Map<String, Object>> claimedFiles, Duration lease, Timestamp now) {
    String batchId = newBatchId();
    List<String> fileIds = new ArrayList<>();
    List<String> eventIds = new ArrayList<>();
    for (int position = 0; position < claimedFiles.size(); position++) {
      Map<String, Object> file = claimedFiles.get(position);
      file.put(STATE, FileState.CLAIMED.code());
      file.put(BATCH_ID, batchId);
      file.put(BATCH_KEY, LedgerSchema.batchKey(batchId));
      file.put(BATCH_POSITION, (long) position);
      t.set(files.document((String) file.get(FILE_ID)), file);
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
    batch.put(LEASE_UNTIL, timestamp(clock.millis() + lease.toMillis()));
    batch.put(CREATED_AT, now);
    batch.put(UPDATED_AT, now);
    DocumentReference batchRef = batches.document(batchId);
    long size = FirestoreDocuments.storedSize(batchRef.getPath(), batch);
    if (size > MAX_DOCUMENT_BYTES) {
      throw new IllegalStateException("Cannot claim batch " + batchId + " of table " + table + ": its document "
          + batchRef.getPath() + " would hold " + size + " bytes (" + fileIds.size()
          + " file and event ids), over Firestore's limit of 1 MiB per document; lower max-batch-size");
    }
    t.create(batchRef, batch);
    return FirestoreDocuments.batch(batch);
  }

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
    return newLease("takeOverExpiredLease", "Cannot take over batch " + batchId, batchId, lease, true);
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
    BatchCommitted committed = batchTransition("commitBatch", batchId, "Cannot commit batch " + batchId, (t, batch, action) -> {
      BatchRecord stored = FirestoreDocuments.batch(batch);
      if (stored.state() == BatchState.COMMITTED) {
        // The checkpoint is idempotent for the snapshot that wrote it, and only for that one: a
        // second snapshot for one batch would mean its rows were written twice.
        if (stored.snapshotId().equals(Optional.of(command.snapshotId()))) {
          return new BatchCommitted(stored, true);
        }
        throw new IllegalTransitionException(action + " with snapshot " + command.snapshotId()
            + ": it is already committed with snapshot " + stored.snapshotId().map(String::valueOf).orElse("none"));
      }
      States.requireTransition(action, stored.state(), BatchState.COMMITTED, BatchState::next);
      List<Map<String, Object>> batchFiles = batchFilesIn(t, stored, FileState.CLAIMED);
      // A split partition (or one that got late files while claimed) is READY again for the rest.
      List<PartitionRelease> releases = partitionsOf(t, stored, true);
      Timestamp now = now();
      batch.put(STATE, BatchState.COMMITTED.code());
      batch.put(SNAPSHOT_ID, command.snapshotId());
      batch.put(METRICS, FirestoreDocuments.metrics(command.metrics()));
      batch.put(LEASE_UNTIL, null);
      batch.put(COMMITTED_AT, now);
      batch.put(UPDATED_AT, now);
      t.set(batches.document(batchId), batch);
      for (Map<String, Object> file : batchFiles) {
        file.put(STATE, FileState.INGESTED.code());
        t.set(files.document((String) file.get(FILE_ID)), file);
      }
      for (PartitionRelease release : releases) {
        PartitionState next = release.pending() ? PartitionState.READY : PartitionState.INGESTED;
        release(t, stored, release, next, 0, null, release.pending() ? now : null, now);
      }
      return new BatchCommitted(FirestoreDocuments.batch(batch), false);
    });
    if (!committed.alreadyCommitted()) {
      LOG.info("Committed batch {} of table {} with snapshot {}", batchId, committed.batch().table(), command.snapshotId());
    }
    return committed;
  }

  @Override
  public BatchRecord failBatch(String batchId, String error, int maxAttempts) {
    Objects.requireNonNull(error, "error");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    List<String> exhaustedPartitions = new ArrayList<>();
    BatchRecord failed = batchTransition("failBatch", batchId, "Cannot fail batch " + batchId, (t, batch, action) -> {
      BatchRecord stored = FirestoreDocuments.batch(batch);
      States.requireTransition(action, stored.state(), BatchState.FAILED, BatchState::next);
      exhaustedPartitions.clear();
      List<Map<String, Object>> batchFiles = batchFilesIn(t, stored, FileState.CLAIMED);
      List<PartitionRelease> releases = partitionsOf(t, stored, false);
      Timestamp now = now();
      batch.put(STATE, BatchState.FAILED.code());
      batch.put(ERROR, error);
      batch.put(LEASE_UNTIL, null);
      batch.put(UPDATED_AT, now);
      t.set(batches.document(batchId), batch);
      for (Map<String, Object> file : batchFiles) {
        backToRecorded(file);
        t.set(files.document((String) file.get(FILE_ID)), file);
      }
      for (PartitionRelease release : releases) {
        int attempts = release.stored().exists()
            ? ((Number) Objects.requireNonNullElse(release.stored().get(ATTEMPTS), 0L)).intValue() + 1 : 1;
        boolean exhausted = attempts >= maxAttempts;
        PartitionState next = exhausted ? PartitionState.FAILED : PartitionState.READY;
        release(t, stored, release, next, attempts, error, exhausted ? null : now, now);
        if (exhausted) {
          exhaustedPartitions.add(release.token() + " after " + attempts + " attempts");
        }
      }
      return FirestoreDocuments.batch(batch);
    });
    for (String exhausted : exhaustedPartitions) {
      LOG.warn("Partition {} of table {} FAILED (batch {}): {}", exhausted, failed.table(), batchId, error);
    }
    LOG.warn("Failed batch {} of table {}: {}", batchId, failed.table(), error);
    return failed;
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
    // newest `keep` is idempotent, and each round is one batched write of at most one commit.
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
    // At most MAX_FILES_PER_BATCH files and their partitions: the claim's writes, so one commit.
    BatchRecord revived = batchTransition("reviveBatch", batchId, "Cannot revive batch " + batchId,
        (t, batch, action) -> {
          BatchRecord stored = FirestoreDocuments.batch(batch);
          States.requireTransition(action, stored.state(), BatchState.PLANNED, BatchState::next);
          // Reads and checks before the first write: a refusal changes nothing.
          List<Map<String, Object>> claimed = new ArrayList<>();
          List<DocumentSnapshot> fileDocs = getAllIn(t, stored.fileIds());
          for (int position = 0; position < fileDocs.size(); position++) {
            String fileId = stored.fileIds().get(position);
            Map<String, Object> file = optional(fileDocs.get(position)).orElseThrow(() ->
                new IllegalStateException(action + ": its file " + fileId + " is missing from the ledger"));
            if (States.requireRevivable(action, fileId, (String) file.get(URI),
                FileState.fromCode((String) file.get(STATE)))) {
              file.put(BATCH_POSITION, (long) position);
              claimed.add(file);
            }
          }
          List<Map<String, Object>> partitionDocs = new ArrayList<>();
          for (PartitionRelease release : partitionsOf(t, stored, false)) {
            Map<String, Object> partition = requirePartition(release.stored(), stored.table(), release.token());
            States.requireRevivable(action, stored.table(), release.token(),
                PartitionState.fromCode((String) partition.get(STATE)));
            partitionDocs.add(partition);
          }
          Timestamp now = now();
          batch.put(STATE, BatchState.PLANNED.code());
          // A fresh count of attempts; the launches go on counting, so the relaunch gets a new job.
          batch.put(ATTEMPTS, 0L);
          batch.put(LAUNCHES, FirestoreDocuments.launches(batch));
          // Already expired: recovery's takeOverExpiredLease accepts it at once.
          batch.put(LEASE_UNTIL, timestamp(clock.millis() - 1));
          batch.put(UPDATED_AT, now);
          t.set(batches.document(batchId), batch);
          for (Map<String, Object> file : claimed) {
            file.put(STATE, FileState.CLAIMED.code());
            file.put(BATCH_ID, batchId);
            file.put(BATCH_KEY, LedgerSchema.batchKey(batchId));
            t.set(files.document((String) file.get(FILE_ID)), file);
          }
          for (Map<String, Object> partition : partitionDocs) {
            partition.put(STATE, PartitionState.CLAIMED.code());
            partition.put(BATCH_ID, batchId);
            partition.put(ATTEMPTS, 0L);
            partition.put(UPDATED_AT, now);
            t.set(partitionRef(partition), partition);
          }
          return FirestoreDocuments.batch(batch);
        });
    LOG.info("Revived batch {} of table {}: files and partitions {} claimed again for a relaunch", batchId,
        revived.table(), revived.partitions());
    return revived;
  }

  /** The documents of these files, in their order, read in the transaction. */
  private List<DocumentSnapshot> getAllIn(Transaction t, List<String> fileIds) throws Exception {
    if (fileIds.isEmpty()) {
      return List.of();
    }
    return t.getAll(fileIds.stream().map(files::document).toArray(DocumentReference[]::new)).get();
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
        return body.apply(t);
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
  private void release(Transaction t, BatchRecord batch, PartitionRelease release, PartitionState next,
      int attempts, String lastError, Timestamp readyAt, Timestamp now) {
    Optional<Map<String, Object>> stored = optional(release.stored());
    boolean held = stored.isPresent()
        && PartitionState.CLAIMED.code().equals(stored.get().get(STATE))
        && batch.batchId().equals(stored.get().get(BATCH_ID));
    if (!held) {
      LOG.warn("Partition {} of table {} is no longer claimed by batch {}; left as it is",
          release.token(), batch.table(), batch.batchId());
      return;
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

  /** The batch's files that are still in {@code state} for this batch, read in the transaction. */
  private List<Map<String, Object>> batchFilesIn(Transaction t, BatchRecord batch, FileState state) throws Exception {
    List<Map<String, Object>> found = new ArrayList<>();
    if (batch.fileIds().isEmpty()) {
      return found;
    }
    DocumentReference[] refs = batch.fileIds().stream().map(files::document).toArray(DocumentReference[]::new);
    for (DocumentSnapshot doc : t.getAll(refs).get()) {
      optional(doc)
          .filter(file -> state.code().equals(file.get(STATE)) && batch.batchId().equals(file.get(BATCH_ID)))
          .ifPresent(found::add);
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
