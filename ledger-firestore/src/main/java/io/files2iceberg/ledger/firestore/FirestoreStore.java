package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS;
import static io.files2iceberg.core.ledger.LedgerSchema.PROBE;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.MAX_WRITES_PER_COMMIT;

import com.google.api.core.ApiFuture;
import com.google.cloud.NoCredentials;
import com.google.cloud.ServiceOptions;
import com.google.cloud.firestore.CollectionReference;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import com.google.cloud.firestore.Query;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.Transaction;
import com.google.cloud.firestore.TransactionOptions;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.profile.LedgerSettings;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Firestore ledger's store: the client, its collections, and units of work on them (a
 * transaction that checks the 500-write bound, a read), each retried within the deadline by
 * {@link FirestoreRetry}; documents read here come back as maps ({@link FirestoreDocuments} turns
 * them into records).
 */
final class FirestoreStore {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreLedger.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  /** Reruns of one transaction on contention, inside the client, before {@link FirestoreRetry}. */
  static final int TRANSACTION_ATTEMPTS = 10;

  final Firestore db;
  private final boolean ownsClient;
  final String prefix;
  final Clock clock;
  final FirestoreRetry retry;
  final CollectionReference files;
  final CollectionReference partitions;
  final CollectionReference batches;
  final CollectionReference quarantine;
  final CollectionReference changes;
  final CollectionReference outbox;
  /** This process's probe document: one per ledger, so health checks of many instances never share one. */
  private final DocumentReference probe;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final LongAdder transactionRuns = new LongAdder();

  FirestoreStore(Firestore db, boolean ownsClient, String prefix, Clock clock, FirestoreRetry retry) {
    this.db = db;
    this.ownsClient = ownsClient;
    this.prefix = prefix;
    this.clock = clock;
    this.retry = retry;
    this.files = db.collection(prefix + FILES);
    this.partitions = db.collection(prefix + PARTITIONS);
    this.batches = db.collection(prefix + BATCHES);
    this.quarantine = db.collection(prefix + QUARANTINE);
    this.changes = db.collection(prefix + io.files2iceberg.core.ledger.LedgerSchema.CHANGES);
    this.outbox = db.collection(prefix + io.files2iceberg.core.ledger.LedgerSchema.OUTBOX);
    byte[] random = new byte[8];
    RANDOM.nextBytes(random);
    this.probe = db.collection(prefix + PROBE).document(HexFormat.of().formatHex(random));
  }

  /**
   * The store the settings name ({@link FirestoreLedger#open(LedgerSettings, Clock)}): a client of
   * its own, whose retries of one RPC end within the deadline, on the emulator when {@code
   * emulatorHost} is set.
   */
  static FirestoreStore open(LedgerSettings settings, Clock clock, String emulatorHost) {
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
    FirestoreStore store = new FirestoreStore(options.build().getService(), true, prefix, clock,
        FirestoreRetry.within(settings.deadline()));
    LOG.info("Opened the Firestore ledger: project {}, database {}, collection prefix '{}', deadline {}{}", project,
        settings.firestoreDatabase(), prefix, settings.deadline(), onEmulator ? ", emulator " + emulatorHost : "");
    return store;
  }

  /** A store on a client the caller owns (and closes). */
  static FirestoreStore open(Firestore client, String collectionPrefix, Clock clock, FirestoreRetry retry) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(clock, "clock");
    return new FirestoreStore(client, false, requireValidPrefix(collectionPrefix), clock, retry);
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




  @FunctionalInterface
  interface Body<T> {
    T apply(Transaction t) throws Exception;
  }


  <T> T transaction(String operation, String path, Body<T> body) {
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


  <T> T read(String operation, String path, FirestoreRetry.Work<T> work) {
    requireOpen(operation, path);
    return retry.run(operation, path, work);
  }

  private void requireOpen(String operation, String path) {
    if (closed.get()) {
      throw new IllegalStateException("The Firestore ledger is closed (" + operation + " " + path + ")");
    }
  }

  long transactionRuns() {
    return transactionRuns.sum();
  }

  /** Writes this process's probe document; why it cannot, or empty. */
  Optional<String> unavailableBecause() {
    if (closed.get()) {
      return Optional.of("The Firestore ledger is closed");
    }
    try {
      // A write, not a read: a database that answers reads but refuses writes (quota, permission)
      // fails every push as well. Within the deadline, as every call.
      Map<String, Object> written = Map.of(UPDATED_AT, FirestoreDocuments.timestamp(clock.millis()));
      retry.run("probe", probe.getPath(), () -> probe.set(written).get());
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn("The Firestore ledger (collections '{}*') cannot take a write: {}", prefix, e.toString());
      return Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  void close() {
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

  // --- documents ---------------------------------------------------------------------------------

  DocumentReference partitionRef(String table, String partition) {
    return partitions.document(LedgerSchema.partitionId(table, partition));
  }

  DocumentReference partitionRef(PartitionRecord partition) {
    return partitionRef(partition.table(), partition.partition());
  }







  static <T> List<T> records(Query query, Function<Map<String, Object>, T> codec) throws Exception {
    List<T> list = new ArrayList<>();
    for (QueryDocumentSnapshot doc : query.get().get()) {
      list.add(codec.apply(data(doc)));
    }
    return list;
  }

  static List<BatchRecord> batchList(Query query) throws Exception {
    return records(query, FirestoreDocuments::batch);
  }

  static Map<String, Object> data(DocumentSnapshot snapshot) {
    return new HashMap<>(Objects.requireNonNull(snapshot.getData(), "document data"));
  }

  static Optional<Map<String, Object>> optional(DocumentSnapshot snapshot) {
    return snapshot.exists() ? Optional.of(data(snapshot)) : Optional.empty();
  }
}
