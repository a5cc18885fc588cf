package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.Firestore;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerContractTest;
import io.files2iceberg.core.ledger.LedgerProvider;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.profile.LedgerSettings;
import io.files2iceberg.core.profile.LedgerSettings.LedgerType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ledger contract on Firestore (the emulator), plus what only the Firestore ledger has to show. */
class FirestoreLedgerTest extends LedgerContractTest {
  @RegisterExtension static final FirestoreEmulatorExtension FIRESTORE = new FirestoreEmulatorExtension();

  /** This test's store: its own collections in the shared emulator. */
  private final String prefix = FirestoreEmulator.newPrefix();

  /**
   * The emulator resolves contended transactions far more slowly than Firestore, and shares the
   * machine with the build: the contract is about outcomes, so its calls get a long deadline. What
   * the deadline itself does is {@link FirestoreOutageTest}'s and {@link FirestoreRetryTest}'s.
   */
  private static final Duration CONTRACT_DEADLINE = Duration.ofSeconds(60);

  @Override
  protected Ledger newLedger(MutableClock clock) {
    return FirestoreLedger.open(FIRESTORE.emulator().client(), prefix, clock, FirestoreRetry.within(CONTRACT_DEADLINE));
  }

  @Override
  protected Optional<String> transactionsNotIsolatedBecause() {
    return FIRESTORE.emulator().transactionsNotIsolatedBecause();
  }

  private Firestore db() {
    return FIRESTORE.emulator().client();
  }

  @Test
  void documentsLandInPrefixedCollectionsUnderIdsDerivedFromIdentity() throws Exception {
    RecordFile command = file(TABLE, "2024-01-01", "part-0.parquet");
    ledger.recordFile(command);
    ledger.markReady(marker(TABLE, "2024-01-01"));
    BatchRecord batch = claim(10).orElseThrow();

    DocumentSnapshot file = db().collection(prefix + FILES).document(LedgerSchema.fileId(BUCKET, command.name(), 1)).get().get();
    DocumentSnapshot partition = db().collection(prefix + PARTITIONS)
        .document(LedgerSchema.partitionId(TABLE, "2024-01-01")).get().get();
    DocumentSnapshot batchDoc = db().collection(prefix + BATCHES).document(batch.batchId()).get().get();

    assertThat(file.getString(LedgerSchema.STATE)).isEqualTo(FileState.CLAIMED.code());
    assertThat(file.getString(LedgerSchema.URI)).isEqualTo(command.uri());
    assertThat(file.get(LedgerSchema.GENERATION)).isEqualTo(1L);
    assertThat(file.get(LedgerSchema.EVENT_TIME)).isEqualTo(Timestamp.ofTimeSecondsAndNanos(
        command.eventTime().getEpochSecond(), command.eventTime().getNano()));
    assertThat(file.getString(LedgerSchema.BATCH_KEY)).isEqualTo(LedgerSchema.batchKey(batch.batchId()));
    assertThat(partition.getString(LedgerSchema.STATE)).isEqualTo(PartitionState.CLAIMED.code());
    assertThat(partition.getString(LedgerSchema.BATCH_ID)).isEqualTo(batch.batchId());
    assertThat(batchDoc.getString(LedgerSchema.STATE)).isEqualTo(BatchState.PLANNED.code());
    assertThat(batchDoc.get(LedgerSchema.FILE_IDS)).isEqualTo(batch.fileIds());
    assertThat(batchDoc.get(LedgerSchema.LEASE_UNTIL)).isInstanceOf(Timestamp.class);
    // Nothing outside the prefix.
    assertThat(db().collection(FILES).document(file.getId()).get().get().exists()).isFalse();
  }

  @Test
  void ledgersWithAnotherPrefixInTheSameDatabaseSeeNothingOfThisOne() {
    readyPartition(TABLE, "2024-01-01", 2);
    try (Ledger other = FirestoreLedger.open(db(), FirestoreEmulator.newPrefix(), clock)) {
      assertThat(other.tables()).isEmpty();
      assertThat(other.claimPartitions(new ClaimPartitions(TABLE, 10, LEASE, false))).isEmpty();
    }
    assertThat(claim(10)).isPresent();
  }

  @Test
  void claimAskingForMoreFilesThanOneCommitHoldsTakesWhatFits() {
    List<String> names = IntStream.range(0, 600).mapToObj(i -> String.format("part-%04d.parquet", i)).toList();
    for (String name : names) {
      ledger.recordFile(file(TABLE, "2024-01-01", name));
    }
    ledger.markReady(marker(TABLE, "2024-01-01"));

    BatchRecord first = ledger.claimPartitions(new ClaimPartitions(TABLE, 1000, LEASE, true)).orElseThrow();
    ledger.commitBatch(new CommitBatch(first.batchId(), 1L, METRICS));
    BatchRecord second = ledger.claimPartitions(new ClaimPartitions(TABLE, 1000, LEASE, true)).orElseThrow();
    ledger.commitBatch(new CommitBatch(second.batchId(), 2L, METRICS));

    // One commit: the batch, its partition and 498 files.
    assertThat(first.fileIds()).hasSize(FirestoreLedger.MAX_FILES_PER_BATCH);
    assertThat(second.fileIds()).hasSize(600 - FirestoreLedger.MAX_FILES_PER_BATCH);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.INGESTED, 600L));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void batchWhoseDocumentWouldExceedOneMebibyteIsRefusedNamingIt() {
    String bigEventId = "e".repeat(40_000);
    for (int i = 0; i < 30; i++) {
      RecordFile base = file(TABLE, "2024-01-01", "part-" + i + ".parquet");
      ledger.recordFile(new RecordFile(base.table(), base.partition(), base.bucket(), base.name(), base.generation(),
          base.uri(), base.size(), bigEventId + i, base.eventTime(), Optional.empty(), false));
    }
    ledger.markReady(marker(TABLE, "2024-01-01"));

    assertThatThrownBy(() -> claim(100))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(prefix + BATCHES + "/")
        .hasMessageContaining("1 MiB")
        .hasMessageContaining("max-batch-size");
    // Nothing was claimed.
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 30L));
  }

  @Test
  void concurrentRelaunchesOfOneBatchAreRetriedAndCountEveryAttempt() throws Exception {
    assumeIsolatedTransactions();
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    int threads = 6;
    int callsEach = 3;
    List<FirestoreLedger> ledgers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      ledgers.add((FirestoreLedger) openAnother(clock));
    }
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Callable<Void>> work = new ArrayList<>();
    for (FirestoreLedger own : ledgers) {
      work.add(() -> {
        start.await(10, TimeUnit.SECONDS);
        for (int call = 0; call < callsEach; call++) {
          own.markRunning(batch.batchId(), LEASE);
        }
        return null;
      });
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (Future<Void> result : pool.invokeAll(work, 2, TimeUnit.MINUTES)) {
        result.get();
      }
    } finally {
      pool.shutdownNow();
    }

    // Every read-modify-write counted once: none was lost to a concurrent one.
    assertThat(ledger.batch(batch.batchId()).orElseThrow().attempts()).isEqualTo(threads * callsEach);
    // And some ran more than once: contention made Firestore rerun them.
    long runs = ledgers.stream().mapToLong(FirestoreLedger::transactionRuns).sum();
    assertThat(runs).isGreaterThan((long) threads * callsEach);
  }

  @Test
  @SuppressWarnings("try") // Firestore.close() may throw InterruptedException
  void unreachableFirestoreIsReportedUnavailableNamingTheDocument() throws Exception {
    String deadHost = "127.0.0.1:" + FirestoreEmulator.freePort();
    try (Firestore dead = FirestoreLedger.emulator(FIRESTORE.emulator().options(), deadHost)
        .setRetrySettings(com.google.api.gax.retrying.RetrySettings.newBuilder()
            .setMaxAttempts(1).setTotalTimeout(org.threeten.bp.Duration.ofSeconds(5)).build())
        .build().getService()) {
      FirestoreLedger unreachable = FirestoreLedger.open(dead, prefix, clock,
          new FirestoreRetry(3, Duration.ofMillis(10), Duration.ofMillis(50)));

      assertThatThrownBy(() -> unreachable.file("f-1"))
          .isInstanceOf(LedgerUnavailableException.class)
          .hasMessageContaining("Ledger file for " + prefix + FILES + "/f-1")
          .hasMessageContaining("UNAVAILABLE 3 times");
      assertThat(unreachable.unavailableBecause()).hasValueSatisfying(reason -> assertThat(reason)
          .startsWith("Ledger probe for " + prefix + LedgerSchema.PROBE + "/").contains("UNAVAILABLE"));
    }
  }

  @Test
  void ledgersOpenFindsTheFirestoreLedgerThroughItsProvider() {
    assertThat(ServiceLoader.load(LedgerProvider.class).stream().map(ServiceLoader.Provider::get))
        .anySatisfy(provider -> assertThat(provider.type()).isEqualTo(LedgerType.FIRESTORE));
    LedgerSettings settings = new LedgerSettings(
        LedgerType.FIRESTORE, "unused.db", Optional.of(FirestoreEmulator.PROJECT), "(default)", prefix);

    try (Ledger opened = Ledgers.open(settings, clock)) {
      assertThat(opened).isInstanceOf(FirestoreLedger.class);
      assertThat(((FirestoreLedger) opened).collectionPrefix()).isEqualTo(prefix);
    }
    // The settings' project, database and prefix are the ones written to.
    try (Ledger configured = FirestoreLedger.open(settings, clock, FIRESTORE.emulator().host())) {
      FileRecorded recorded = configured.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));
      assertThat(ledger.file(recorded.file().fileId())).contains(recorded.file());
    }
  }

  @Test
  void invalidCollectionPrefixIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> FirestoreLedger.open(db(), "dev/", clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("ledger.collection-prefix: 'dev/'");
  }

  @Test
  void quarantinedMessageWithAnyIdIsStoredOnceAndItsPayloadKeptWithinOneDocument() throws Exception {
    QuarantinedMessage odd = new QuarantinedMessage(
        "projects/p/subscriptions/s/../__x__", "not a notification", "x".repeat(2_000_000), Optional.empty(), START);

    ledger.quarantineMessage(odd);
    ledger.quarantineMessage(odd);

    List<QuarantinedMessage> stored = ledger.quarantinedMessages();
    assertThat(stored).hasSize(1);
    assertThat(stored.get(0).messageId()).isEqualTo(odd.messageId());
    assertThat(stored.get(0).rawPayload()).hasSize(FirestoreLedger.MAX_RAW_PAYLOAD_CHARS);
    assertThat(db().collection(prefix + QUARANTINE).document(LedgerSchema.quarantineId(odd.messageId())).get().get()
        .exists()).isTrue();
  }

  @Test
  void closedLedgerRefusesCalls() {
    ledger.close();

    assertThatThrownBy(() -> ledger.batch("b-1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(ledger.isAvailable()).isFalse();
  }
}
