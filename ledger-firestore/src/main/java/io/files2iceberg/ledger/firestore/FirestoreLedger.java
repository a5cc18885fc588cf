package io.files2iceberg.ledger.firestore;

import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.service.LedgerService;
import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Clock;
import java.time.Duration;

/**
 * The production ledger: the {@link LedgerService} over Cloud Firestore in native mode ({@link
 * FirestoreLedgerStore}), one document per file, partition, batch and quarantined message, in four
 * collections whose names carry the deployment's collection prefix ({@code <prefix>files}, {@code
 * <prefix>partitions}, {@code <prefix>batches}, {@code <prefix>quarantine}); field names, document
 * ids and state codes are {@link LedgerSchema}'s and the state enums'.
 *
 * <p>Every call that changes state is one Firestore transaction, or, for a batch whose transition
 * writes more than one commit's {@value #MAX_WRITES_PER_COMMIT} writes, one that decides it and
 * commits after it that write the rest (the service's settling), so a process that dies between
 * two commits leaves nothing lost or claimed twice.
 */
public final class FirestoreLedger extends LedgerService {
  /** Firestore's bound on the writes of one commit (transaction or batched write). */
  static final int MAX_WRITES_PER_COMMIT = 500;
  /** Files moved per commit while a batch settles: with the batch document's own write, one commit. */
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

  private final FirestoreStore firestore;

  private FirestoreLedger(FirestoreStore store) {
    super(new FirestoreLedgerStore(store), store.clock);
    this.firestore = store;
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
    return firestore.prefix;
  }

  /** How many times a transaction body ran, reruns on contention included (for tests and metrics). */
  long transactionRuns() {
    return firestore.transactionRuns();
  }
}
