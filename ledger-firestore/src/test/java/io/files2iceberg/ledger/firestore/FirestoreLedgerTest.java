package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.FieldValue;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.WriteBatch;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.SettlingContractTest;
import io.files2iceberg.core.ledger.LedgerProvider;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
class FirestoreLedgerTest extends SettlingContractTest {
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
  protected int writesPerCommit() {
    return FirestoreLedger.MAX_WRITES_PER_COMMIT;
  }

  @Override
  protected Optional<String> transactionsNotIsolatedBecause() {
    return FIRESTORE.emulator().transactionsNotIsolatedBecause();
  }

  private Firestore db() {
    return FIRESTORE.emulator().client();
  }

  @Test
  void aListingOfMoreFilesThanOneCommitHoldsIsRecordedInCommitsOfAtMostFiveHundredWrites() {
    FirestoreLedger firestore = (FirestoreLedger) ledger;
    List<RecordFile> listing = IntStream.range(0, 1_200)
        .mapToObj(i -> file(TABLE, "2024-01-01", String.format("part-%05d.parquet", i))).toList();
    long before = firestore.transactionRuns();

    List<FileRecorded> recorded = ledger.recordFiles(listing);

    // 499 files and their partition per commit (the store refuses a commit of more): 3 commits,
    // one more should the emulator rerun one on contention. One file per commit before.
    assertThat(firestore.transactionRuns() - before).isBetween(3L, 4L);
    assertThat(recorded).allSatisfy(r -> assertThat(r.isNew()).isTrue());
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 1_200L));
  }

  @Test
  void aListingOfFilesInAsManyNewPartitionsCountsThePartitionWritesTowardsEachCommit() {
    FirestoreLedger firestore = (FirestoreLedger) ledger;
    List<RecordFile> listing = IntStream.range(0, 400)
        .mapToObj(i -> file(TABLE, String.format("p-%04d", i), "part-0.parquet")).toList();
    long before = firestore.transactionRuns();

    List<FileRecorded> recorded = ledger.recordFiles(listing);

    // 800 writes: a file and a new partition each, 250 of each per commit.
    assertThat(firestore.transactionRuns() - before).isBetween(2L, 3L);
    assertThat(recorded).allSatisfy(r -> assertThat(r.partition().state()).isEqualTo(PartitionState.OPEN));
    assertThat(ledger.tableStatus(TABLE).partitionsByState()).isEqualTo(Map.of(PartitionState.OPEN, 400L));
  }

  @Test
  void claimOfATableWithNothingReadyRunsNoTransaction() {
    FirestoreLedger firestore = (FirestoreLedger) ledger;
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet")); // OPEN: no marker yet
    long before = firestore.transactionRuns();

    // A batcher's turn claims every table; one with nothing READY costs a query, no transaction
    // (which took a begin, two queries and a commit, and locked the table's READY partitions).
    for (int turn = 0; turn < 3; turn++) {
      assertThat(claim(10)).isEmpty();
      assertThat(ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();
    }

    assertThat(firestore.transactionRuns() - before).isZero();
    ledger.markReady(marker(TABLE, "2024-01-01"));
    assertThat(claim(10).orElseThrow().partitions()).containsExactly("2024-01-01");
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
  void batchDocumentWithoutTheUnknownOutcomeFieldHasItWhereItsErrorSaidSo() throws Exception {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord gaveUp = claim(1).orElseThrow();
    BatchRecord rejected = claim(1).orElseThrow();
    ledger.failBatch(new FailBatch(gaveUp.batchId(), "gave up after 3 attempt(s); the table may hold the batch: lost", 1, false));
    ledger.failBatch(new FailBatch(rejected.batchId(), "rejected: bad value", 1, true));
    // As an earlier build wrote them: the flag only a phrase of the error.
    for (BatchRecord batch : List.of(gaveUp, rejected)) {
      db().collection(prefix + BATCHES).document(batch.batchId())
          .update(LedgerSchema.OUTCOME_UNKNOWN, FieldValue.delete()).get();
    }

    assertThat(ledger.batch(gaveUp.batchId()).orElseThrow().outcomeUnknown()).isTrue();
    assertThat(ledger.batch(rejected.batchId()).orElseThrow().outcomeUnknown()).isFalse();
    assertThat(ledger.reviveBatch(gaveUp.batchId()).outcomeUnknown()).isTrue();
    assertThat(db().collection(prefix + BATCHES).document(gaveUp.batchId()).get().get()
        .getBoolean(LedgerSchema.OUTCOME_UNKNOWN)).isTrue();
  }

  @Test
  void everyFileWriteCarriesItsLandingAndAFileWrittenBeforeCleanupExistedIsNeverACandidate() throws Exception {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 9L, METRICS));
    Map<String, Object> loaded = db().collection(prefix + FILES).document(files.get(0)).get().get().getData();
    assertThat(loaded).containsEntry(LedgerSchema.LANDING, LedgerSchema.LANDING_PRESENT)
        .containsEntry(LedgerSchema.REMOVAL_PENDING, false)
        .containsKey(LedgerSchema.INGESTED_AT);
    // As a build before version 10 left a loaded file: no load time, no landing.
    db().collection(prefix + FILES).document(files.get(1)).update(LedgerSchema.INGESTED_AT, FieldValue.delete(),
        LedgerSchema.LANDING, FieldValue.delete(), LedgerSchema.REMOVAL_PENDING, FieldValue.delete()).get();
    clock.advance(Duration.ofDays(40));

    assertThat(ledger.file(files.get(1)).orElseThrow().ingestedAt()).isEmpty();
    assertThat(ledger.file(files.get(1)).orElseThrow().cleaned()).isEmpty();
    assertThat(ledger.filesToClean(TABLE, clock.instant(), 10)).extracting(FileRecord::fileId)
        .containsExactly(files.get(0));
    assertThatThrownBy(() -> ledger.cleanFiles(TABLE, List.of(new Ledger.CleanFile(files.get(1),
        CleanedObject.deleted(clock.instant())))))
        .hasMessageContaining(files.get(1))
        .hasMessageContaining("has no load time");

    ledger.cleanFiles(TABLE, List.of(new Ledger.CleanFile(files.get(0),
        CleanedObject.archived("gs://archive/a.parquet", 12L, clock.instant()))));
    Map<String, Object> cleaned = db().collection(prefix + FILES).document(files.get(0)).get().get().getData();
    assertThat(cleaned).containsEntry(LedgerSchema.LANDING, CleanedObject.Action.ARCHIVED.code())
        .containsEntry(LedgerSchema.REMOVAL_PENDING, true)
        .containsEntry(LedgerSchema.ARCHIVE_URI, "gs://archive/a.parquet")
        .containsEntry(LedgerSchema.ARCHIVE_GENERATION, 12L);
    ledger.confirmRemoved(List.of(files.get(0)));
    assertThat(db().collection(prefix + FILES).document(files.get(0)).get().get()
        .getBoolean(LedgerSchema.REMOVAL_PENDING)).isFalse();
    assertThat(ledger.filesBeingCleaned(TABLE, 10)).isEmpty();
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
        .anySatisfy(provider -> assertThat(provider.type()).isEqualTo("firestore"));
    LedgerSettings settings = new LedgerSettings(
        FirestoreLedgerProvider.TYPE, "unused.db", Optional.of(FirestoreEmulator.PROJECT), "(default)", prefix);

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

  /**
   * {@code count} RECORDED files of one READY partition, fast: the first is recorded, the others are
   * copies of its document under their own ids, names and Pub/Sub-style event ids, written 500 to a batched
   * write (recording 10,000 files one transaction each would take the emulator minutes).
   */
  private List<String> seedReadyPartition(String partition, int count) throws Exception {
    RecordFile first = file(TABLE, partition, String.format("part-%05d.parquet", 0));
    ledger.recordFile(first);
    Map<String, Object> template = db().collection(prefix + FILES).document(first.fileId()).get().get().getData();
    List<String> ids = new ArrayList<>(List.of(first.fileId()));
    WriteBatch batch = db().batch();
    for (int i = 1; i < count; i++) {
      RecordFile command = file(TABLE, partition, String.format("part-%05d.parquet", i));
      Map<String, Object> doc = new HashMap<>(template);
      doc.put(LedgerSchema.FILE_ID, command.fileId());
      doc.put(LedgerSchema.NAME, command.name());
      doc.put(LedgerSchema.URI, command.uri());
      // A Pub/Sub message id (17 digits): the batch document lists 10,000 of them within 1 MiB.
      doc.put(LedgerSchema.EVENT_ID, String.valueOf(17_000_000_000_000_000L + i));
      batch.create(db().collection(prefix + FILES).document(command.fileId()), doc);
      ids.add(command.fileId());
      if (i % 500 == 0 || i == count - 1) {
        batch.commit().get();
        batch = db().batch();
      }
    }
    ledger.markReady(marker(TABLE, partition));
    return ids;
  }

  @Test
  void tenThousandFilePartitionIsClaimedWholeAndCommitted() throws Exception {
    int count = 10_000;
    FirestoreLedger firestore = (FirestoreLedger) ledger;
    long start = System.nanoTime();
    List<String> files = seedReadyPartition("2024-01-01", count);
    long seeded = millis(start, System.nanoTime());
    Map<String, Long> took = new java.util.LinkedHashMap<>();
    Map<String, Long> commits = new java.util.LinkedHashMap<>();

    NewestPartitionClaimed newest = timed(took, commits, firestore, "claimed whole",
        () -> ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)).orElseThrow());
    BatchRecord batch = newest.batch();
    assertThat(batch.fileIds()).hasSize(count).containsExactlyInAnyOrderElementsOf(files);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.CLAIMED, (long) count));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    ledger.markRunning(batch.batchId(), LEASE);
    timed(took, commits, firestore, "committed",
        () -> ledger.commitBatch(new CommitBatch(batch.batchId(), 51L, METRICS)));

    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.INGESTED, (long) count));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::batchId).containsOnly(Optional.of(batch.batchId()));
    String measured = count + " files (seeded in " + seeded + " ms), in ms: " + took + ", transaction runs: " + commits;
    System.out.println("FirestoreLedgerTest: " + measured);
    // Each step: the transaction that decides the batch, the files' commits, the one that clears
    // the batch's settling mark (23 on the emulator), and up to three reruns on contention.
    long fileCommits = (count + FirestoreLedger.SETTLE_FILES_PER_COMMIT - 1) / FirestoreLedger.SETTLE_FILES_PER_COMMIT;
    assertThat(commits.get("claimed whole")).as(measured).isBetween(fileCommits + 2, fileCommits + 5);
    assertThat(commits.get("committed")).as(measured).isBetween(fileCommits + 2, fileCommits + 5);
  }

  /** Runs the step, keeping how long it took and how many transactions it ran. */
  private static <T> T timed(Map<String, Long> took, Map<String, Long> commits, FirestoreLedger firestore,
      String step, Callable<T> call) throws Exception {
    long start = System.nanoTime();
    long runsBefore = firestore.transactionRuns();
    T result = call.call();
    took.put(step, millis(start, System.nanoTime()));
    commits.put(step, firestore.transactionRuns() - runsBefore);
    return result;
  }

  private static long millis(long from, long to) {
    return (to - from) / 1_000_000;
  }

  @Test
  void claimTakesOnlyTheFilesWhoseIdsFitTheBatchDocumentAndANewestClaimThatCannotIsRefusedNamingIt() {
    String bigEventId = "e".repeat(40_000);
    for (int i = 0; i < 30; i++) {
      RecordFile base = file(TABLE, "2024-01-01", String.format("part-%02d.parquet", i));
      ledger.recordFile(new RecordFile(base.table(), base.partition(), base.bucket(), base.name(), base.generation(),
          base.uri(), base.size(), bigEventId + i, base.eventTime(), Optional.empty(), false));
    }
    ledger.markReady(marker(TABLE, "2024-01-01"));

    assertThatThrownBy(() -> ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(prefix + BATCHES + "/")
        .hasMessageContaining("2024-01-01")
        .hasMessageContaining("1 MiB")
        .hasMessageContaining("whole");
    // Nothing was claimed.
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 30L));

    BatchRecord first = claim(100).orElseThrow();

    // Each file adds its id (64 hex digits) and its event id, one byte more each.
    int fit = 0;
    for (long bytes = 0; fit < 30; fit++) {
      bytes += 64 + 1 + (bigEventId + fit).length() + 1;
      if (bytes > FirestoreLedger.MAX_FILE_LIST_BYTES) {
        break;
      }
    }
    assertThat(fit).isBetween(20, 29);
    assertThat(first.fileIds()).hasSize(fit);
    ledger.commitBatch(new CommitBatch(first.batchId(), 1L, METRICS));
    assertThat(claim(100).orElseThrow().fileIds()).hasSize(30 - fit);
  }
}
