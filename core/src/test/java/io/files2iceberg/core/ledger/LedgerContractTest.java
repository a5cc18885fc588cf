package io.files2iceberg.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.files2iceberg.core.manifest.ManifestFile;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Ledger} implementation must do, asserted the way an operator would check it:
 * states, counts and ids. Subclasses supply the store.
 */
public abstract class LedgerContractTest {
  protected static final Instant START = Instant.parse("2024-05-01T10:00:00Z");
  protected static final String TABLE = "lake.clicks";
  protected static final String BUCKET = "landing";
  protected static final Duration LEASE = Duration.ofMinutes(30);
  protected static final BatchMetrics METRICS = new BatchMetrics(2, 200, 10, 1, 7, 2, 0, 0, 120, 340, 50, 61_000);

  protected MutableClock clock;
  protected Ledger ledger;
  private final List<Ledger> opened = new ArrayList<>();

  /**
   * A ledger over this test's store. Each test starts with a fresh, empty store; every call within
   * one test must return another ledger over that same store, as another process would open it.
   */
  protected abstract Ledger newLedger(MutableClock clock);

  /**
   * Why concurrent transactions on this store are not isolated, when they are not (a stand-in
   * that applies every commit without checking what the transaction read); the tests that race
   * ledgers are then skipped with the reason. Empty by default: a real store isolates them.
   */
  protected Optional<String> transactionsNotIsolatedBecause() {
    return Optional.empty();
  }

  /** Skips the calling test, naming the reason, unless concurrent transactions are isolated. */
  protected final void assumeIsolatedTransactions() {
    transactionsNotIsolatedBecause().ifPresent(Assumptions::abort);
  }

  /** Another ledger over this test's store, closed after the test. */
  protected final Ledger openAnother(MutableClock clock) {
    Ledger another = newLedger(clock);
    opened.add(another);
    return another;
  }

  @BeforeEach
  void openLedger() {
    clock = new MutableClock(START);
    ledger = openAnother(clock);
  }

  @AfterEach
  void closeLedgers() {
    Collections.reverse(opened);
    opened.forEach(Ledger::close);
    opened.clear();
  }

  // --- recording files and markers ---------------------------------------------------------------

  @Test
  void newFileIsRecordedAndItsPartitionOpened() {
    RecordFile command = file(TABLE, "2024-01-01", "part-0.parquet");

    FileRecorded recorded = ledger.recordFile(command);

    assertThat(recorded.isNew()).isTrue();
    FileRecord file = recorded.file();
    assertThat(file.fileId()).isEqualTo(LedgerSchema.fileId(BUCKET, command.name(), 1));
    assertThat(file.state()).isEqualTo(FileState.RECORDED);
    assertThat(file.table()).isEqualTo(TABLE);
    assertThat(file.partition()).isEqualTo("2024-01-01");
    assertThat(file.uri()).isEqualTo(command.uri());
    assertThat(file.size()).isEqualTo(command.size());
    assertThat(file.eventId()).isEqualTo(command.eventId());
    assertThat(file.eventTime()).isEqualTo(command.eventTime());
    assertThat(file.batchId()).isEmpty();
    assertThat(file.recordedAt()).isEqualTo(START);
    assertThat(recorded.partition().state()).isEqualTo(PartitionState.OPEN);
    assertThat(recorded.partition().markerSeen()).isFalse();
    assertThat(ledger.file(file.fileId())).contains(file);
    assertThat(ledger.partition(TABLE, "2024-01-01")).contains(recorded.partition());
  }

  @Test
  void redeliveredNotificationIsIgnored() {
    RecordFile command = file(TABLE, "2024-01-01", "part-0.parquet");
    FileRecorded first = ledger.recordFile(command);
    clock.advance(Duration.ofMinutes(5));

    FileRecorded again = ledger.recordFile(command);

    assertThat(again.isNew()).isFalse();
    assertThat(again.file()).isEqualTo(first.file());
    assertThat(again.partition()).isEqualTo(first.partition());
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 1L));
  }

  @Test
  void newGenerationOfTheSameNameIsANewFile() {
    FileRecorded first = ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet", 1, false));
    RecordFile overwrite = withOverwrote(file(TABLE, "2024-01-01", "part-0.parquet", 2, false), 1);

    FileRecorded second = ledger.recordFile(overwrite);

    assertThat(second.isNew()).isTrue();
    assertThat(second.file().fileId()).isNotEqualTo(first.file().fileId());
    assertThat(second.file().generation()).isEqualTo(2);
    assertThat(second.file().overwroteGeneration()).contains(1L);
    assertThat(first.file().overwroteGeneration()).isEmpty();
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 2L));
  }

  @Test
  void markerMakesOpenPartitionReady() {
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));
    clock.advance(Duration.ofMinutes(1));

    PartitionRecord partition = ledger.markReady(marker(TABLE, "2024-01-01"));

    assertThat(partition.state()).isEqualTo(PartitionState.READY);
    assertThat(partition.markerSeen()).isTrue();
    assertThat(partition.prefix()).contains(prefix(TABLE, "2024-01-01"));
    assertThat(partition.readyAt()).contains(START.plus(Duration.ofMinutes(1)));
  }

  @Test
  void markerBeforeAnyFileCreatesReadyPartitionThatLaterFilesJoin() {
    PartitionRecord created = ledger.markReady(marker(TABLE, "2024-01-01"));
    assertThat(created.state()).isEqualTo(PartitionState.READY);
    assertThat(created.markerSeen()).isTrue();

    FileRecorded late = ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));

    assertThat(late.partition().state()).isEqualTo(PartitionState.READY);
    BatchRecord batch = claim(10).orElseThrow();
    assertThat(batch.fileIds()).containsExactly(late.file().fileId());
  }

  @Test
  void repeatedMarkerChangesNothing() {
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));
    PartitionRecord ready = ledger.markReady(marker(TABLE, "2024-01-01"));
    clock.advance(Duration.ofMinutes(3));

    PartitionRecord again = ledger.markReady(marker(TABLE, "2024-01-01"));

    assertThat(again).isEqualTo(ready);
  }

  @Test
  void readyOnArrivalMakesPartitionReadyWithoutMarker() {
    FileRecorded recorded = ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet", 1, true));

    assertThat(recorded.partition().state()).isEqualTo(PartitionState.READY);
    assertThat(recorded.partition().markerSeen()).isFalse();
    assertThat(recorded.partition().readyAt()).contains(START);
    assertThat(claim(10)).isPresent();
  }

  @Test
  void openPartitionIsNotClaimed() {
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));

    assertThat(claim(10)).isEmpty();
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
  }

  // --- recording many files at once (a marker's listing) -------------------------------------------

  @Test
  void recordingManyFilesAtOnceHasTheOutcomeOfRecordingEachInTurn() {
    List<List<String>> oneByOne = recordScenario("lake.one_by_one", commands -> {
      List<FileRecorded> recorded = new ArrayList<>();
      commands.forEach(command -> recorded.add(ledger.recordFile(command)));
      return recorded;
    });
    List<List<String>> atOnce = recordScenario("lake.at_once", ledger::recordFiles);

    assertThat(atOnce).isEqualTo(oneByOne);
    assertThat(atOnce).containsExactly(
        List.of("false", "2024-01-02", "part-0.parquet", "recorded", "OPEN"),
        List.of("true", "2024-01-02", "part-1.parquet", "recorded", "OPEN"),
        List.of("true", "2024-01-01", "part-1.parquet", "recorded", "READY"),
        List.of("true", "2024-01-03", "part-0.parquet", "recorded", "OPEN"),
        List.of("true", "2024-01-03", "part-1.parquet", "recorded", "OPEN"),
        List.of("false", "2024-01-03", "part-0.parquet", "recorded", "OPEN"),
        List.of("true", "2024-01-04", "part-0.parquet", "recorded", "READY"),
        List.of("partitions", "2024-01-01 READY", "2024-01-02 OPEN", "2024-01-03 OPEN", "2024-01-04 READY"));
  }

  /**
   * Records the same listing into {@code table} with {@code record}: a known file, a new file of
   * an OPEN partition, a late file of an INGESTED one, two of a partition not seen yet (one listed
   * twice), one that makes its partition READY on arrival. Returns what each call said (new, the
   * partition, the name, the file's state, its partition's state) and the partitions afterwards.
   */
  private List<List<String>> recordScenario(String table, java.util.function.Function<List<RecordFile>, List<FileRecorded>> record) {
    ledger.recordFile(file(table, "2024-01-01", "part-0.parquet"));
    ledger.markReady(marker(table, "2024-01-01"));
    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(table, 10, LEASE, true)).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));
    FileRecorded known = ledger.recordFile(file(table, "2024-01-02", "part-0.parquet"));
    List<RecordFile> listing = List.of(
        file(table, "2024-01-02", "part-0.parquet"),
        file(table, "2024-01-02", "part-1.parquet"),
        file(table, "2024-01-01", "part-1.parquet"),
        file(table, "2024-01-03", "part-0.parquet"),
        file(table, "2024-01-03", "part-1.parquet"),
        file(table, "2024-01-03", "part-0.parquet"),
        file(table, "2024-01-04", "part-0.parquet", 1, true));

    List<FileRecorded> recorded = record.apply(listing);

    assertThat(recorded).hasSize(listing.size());
    assertThat(recorded.get(0).file()).isEqualTo(known.file());
    List<List<String>> outcome = new ArrayList<>();
    for (FileRecorded r : recorded) {
      assertThat(ledger.file(r.file().fileId())).contains(r.file());
      outcome.add(List.of(String.valueOf(r.isNew()), r.partition().partition(),
          r.file().name().substring(r.file().name().lastIndexOf('/') + 1), r.file().state().code(),
          r.partition().state().name()));
    }
    List<String> partitions = new ArrayList<>(List.of("partitions"));
    ledger.partitions(table).forEach(p -> partitions.add(p.partition() + " " + p.state()));
    outcome.add(partitions);
    return outcome;
  }

  @Test
  void listingOfMoreFilesThanOneCommitHoldsRecordsEachFileOnceAndThePartitionTakesThemAll() {
    List<String> known = IntStream.range(0, 100).mapToObj(i -> String.format("part-%05d.parquet", i * 7)).toList();
    known.forEach(name -> ledger.recordFile(file(TABLE, "2024-01-01", name)));
    List<RecordFile> listing = new ArrayList<>();
    for (int i = 0; i < LISTED_FILES; i++) {
      listing.add(file(TABLE, "2024-01-01", String.format("part-%05d.parquet", i)));
    }
    listing.add(file(TABLE, "2024-01-01", "part-00001.parquet")); // listed twice

    List<FileRecorded> recorded = ledger.recordFiles(listing);

    assertThat(recorded).hasSize(LISTED_FILES + 1);
    assertThat(recorded.stream().filter(FileRecorded::isNew)).hasSize(LISTED_FILES - known.size());
    for (int i = 0; i < LISTED_FILES; i++) {
      assertThat(recorded.get(i).isNew()).as("file %d", i).isEqualTo(i % 7 != 0 || i / 7 >= known.size());
      assertThat(recorded.get(i).file().fileId()).isEqualTo(listing.get(i).fileId());
    }
    assertThat(recorded.get(LISTED_FILES).isNew()).isFalse();
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, (long) LISTED_FILES));
    assertThat(ledger.file(listing.get(LISTED_FILES - 1).fileId())).contains(recorded.get(LISTED_FILES - 1).file());

    ledger.markReady(marker(TABLE, "2024-01-01"));
    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 5_000, LEASE, true)).orElseThrow();
    assertThat(batch.fileIds()).containsExactlyElementsOf(
        listing.subList(0, LISTED_FILES).stream().map(RecordFile::fileId).toList());
  }

  @Test
  void recordingNoFilesAtOnceRecordsNothing() {
    assertThat(ledger.recordFiles(List.of())).isEmpty();
    assertThat(ledger.tables()).isEmpty();
  }

  /** More files than one Firestore commit (500 writes) and one SQLite unit (1,000 files) hold. */
  protected static final int LISTED_FILES = 1_200;

  // --- claiming ----------------------------------------------------------------------------------

  @Test
  void oldestPartitionIsClaimedFirst() {
    for (String partition : List.of("2024-01-03", "2024-01-01", "2024-01-02")) {
      readyPartition(TABLE, partition, 2);
    }

    BatchRecord first = claim(2).orElseThrow();
    BatchRecord second = claim(2).orElseThrow();
    BatchRecord third = claim(2).orElseThrow();

    assertThat(first.partitions()).containsExactly("2024-01-01");
    assertThat(second.partitions()).containsExactly("2024-01-02");
    assertThat(third.partitions()).containsExactly("2024-01-03");
    assertThat(claim(2)).isEmpty();
  }

  @Test
  void claimTakesWholePartitionsUpToMaxFiles() {
    List<String> first = readyPartition(TABLE, "2024-01-01", 2);
    List<String> second = readyPartition(TABLE, "2024-01-02", 2);
    readyPartition(TABLE, "2024-01-03", 2);
    clock.advance(Duration.ofMinutes(1));

    BatchRecord batch = claim(4).orElseThrow();

    assertThat(batch.table()).isEqualTo(TABLE);
    assertThat(batch.state()).isEqualTo(BatchState.PLANNED);
    assertThat(batch.attempts()).isZero();
    assertThat(batch.leaseUntil()).contains(clock.instant().plus(LEASE));
    assertThat(batch.createdAt()).isEqualTo(clock.instant());
    assertThat(batch.partitions()).containsExactly("2024-01-01", "2024-01-02");
    List<String> claimed = new ArrayList<>(first);
    claimed.addAll(second);
    assertThat(batch.fileIds()).containsExactlyElementsOf(claimed);
    assertThat(batch.eventIds()).containsExactlyElementsOf(
        claimed.stream().map(id -> ledger.file(id).orElseThrow().eventId()).toList());
    assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::fileId).containsExactlyElementsOf(claimed);
    assertThat(ledger.filesOfBatch(batch.batchId())).allSatisfy(file -> {
      assertThat(file.state()).isEqualTo(FileState.CLAIMED);
      assertThat(file.batchId()).contains(batch.batchId());
    });
    for (String partition : List.of("2024-01-01", "2024-01-02")) {
      PartitionRecord claimedPartition = ledger.partition(TABLE, partition).orElseThrow();
      assertThat(claimedPartition.state()).isEqualTo(PartitionState.CLAIMED);
      assertThat(claimedPartition.batchId()).contains(batch.batchId());
    }
    assertThat(ledger.partition(TABLE, "2024-01-03").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(ledger.batch(batch.batchId())).contains(batch);
  }

  @Test
  void claimFillsTheBatchSplittingTheLastPartitionAndTheNextClaimContinuesIt() {
    List<String> first = readyPartition(TABLE, "2024-01-01", 2);
    List<String> second = readyPartition(TABLE, "2024-01-02", 4);
    List<String> third = readyPartition(TABLE, "2024-01-03", 1);

    BatchRecord batch = claim(5).orElseThrow();

    assertThat(batch.partitions()).containsExactly("2024-01-01", "2024-01-02");
    List<String> claimed = new ArrayList<>(first);
    claimed.addAll(second.subList(0, 3));
    assertThat(batch.fileIds()).containsExactlyElementsOf(claimed);
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1, METRICS));
    // The split partition is READY again with its last file, and goes first into the next batch.
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);

    BatchRecord next = claim(5).orElseThrow();

    assertThat(next.partitions()).containsExactly("2024-01-02", "2024-01-03");
    assertThat(next.fileIds()).containsExactly(second.get(3), third.get(0));
    ledger.commitBatch(new CommitBatch(next.batchId(), 2, METRICS));
    assertThat(claim(5)).isEmpty();
    for (String partition : List.of("2024-01-01", "2024-01-02", "2024-01-03")) {
      assertThat(ledger.partition(TABLE, partition).orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }
  }

  @Test
  void smallPartitionsArePackedIntoAsFewBatchesAsTheCapAllowsEachFileOnce() {
    // Ten partitions of three files with a cap of four: eight batches (30 files / 4), not ten.
    Set<String> recorded = new HashSet<>();
    for (int day = 1; day <= 10; day++) {
      recorded.addAll(readyPartition("packed_t", String.format("2024-01-%02d", day), 3));
    }
    List<Integer> sizes = new ArrayList<>();
    Set<String> loaded = new HashSet<>();
    long snapshot = 1;
    Optional<BatchRecord> batch;
    while ((batch = ledger.claimPartitions(new ClaimPartitions("packed_t", 4, LEASE, true))).isPresent()) {
      for (String id : batch.get().fileIds()) {
        assertThat(loaded.add(id)).as("file %s in two batches", id).isTrue();
      }
      sizes.add(batch.get().fileIds().size());
      ledger.commitBatch(new CommitBatch(batch.get().batchId(), snapshot++, METRICS));
    }

    assertThat(sizes).containsExactly(4, 4, 4, 4, 4, 4, 4, 2);
    assertThat(loaded).isEqualTo(recorded);
    assertThat(ledger.tableStatus("packed_t").filesByState()).isEqualTo(Map.of(FileState.INGESTED, 30L));
    assertThat(ledger.tableStatus("packed_t").partitionsByState()).isEqualTo(Map.of(PartitionState.INGESTED, 10L));
  }

  @Test
  void claimCappedByBytesFillsTheBatchUpToTheCap() {
    // Every file of the fixture is 100 bytes.
    List<String> first = readyPartition(TABLE, "2024-01-01", 2);
    List<String> second = readyPartition(TABLE, "2024-01-02", 1);
    List<String> third = readyPartition(TABLE, "2024-01-03", 2);

    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 10, LEASE, false, 450)).orElseThrow();

    // 300 bytes in two partitions and the third's first file; its second would pass 450.
    assertThat(batch.partitions()).containsExactly("2024-01-01", "2024-01-02", "2024-01-03");
    List<String> claimed = new ArrayList<>(first);
    claimed.addAll(second);
    claimed.add(third.get(0));
    assertThat(batch.fileIds()).containsExactlyElementsOf(claimed);
    assertThat(ledger.file(third.get(1)).orElseThrow().state()).isEqualTo(FileState.RECORDED);
  }

  @Test
  void claimCappedByBytesSplitsTheFirstPartitionButTakesAtLeastOneFile() {
    List<String> files = readyPartition("bytes_t", "2024-01-01", 3);
    readyPartition("bytes_t", "2024-01-02", 1);

    BatchRecord cut = ledger.claimPartitions(new ClaimPartitions("bytes_t", 10, LEASE, false, 250)).orElseThrow();
    assertThat(cut.fileIds()).containsExactlyElementsOf(files.subList(0, 2));
    assertThat(cut.partitions()).containsExactly("2024-01-01");

    List<String> huge = readyPartition("bytes_u", "2024-01-01", 2);
    BatchRecord one = ledger.claimPartitions(new ClaimPartitions("bytes_u", 10, LEASE, false, 10)).orElseThrow();
    assertThat(one.fileIds()).containsExactly(huge.get(0));
  }

  @Test
  void claimsOfDifferentTablesAreIndependent() {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition("lake.views", "2024-01-01", 1);

    BatchRecord clicks = claim(10).orElseThrow();
    BatchRecord views = ledger.claimPartitions(new ClaimPartitions("lake.views", 10, LEASE, true)).orElseThrow();

    assertThat(clicks.table()).isEqualTo(TABLE);
    assertThat(views.table()).isEqualTo("lake.views");
    assertThat(clicks.batchId()).isNotEqualTo(views.batchId());
    assertThat(ledger.tables()).containsExactly(TABLE, "lake.views");
  }

  @Test
  void partitionLargerThanMaxFilesIsSplitIntoDeterministicRanges() {
    List<String> names = IntStream.range(0, 10).mapToObj(i -> String.format("part-%02d.parquet", i)).toList();
    // The same files recorded in two orders, into two tables: the split must not depend on it.
    List<String> reversed = new ArrayList<>(names);
    Collections.reverse(reversed);
    List<String> shuffled = List.of(names.get(3), names.get(7), names.get(0), names.get(9), names.get(5),
        names.get(1), names.get(8), names.get(2), names.get(6), names.get(4));
    recordAll("lake.a", "2024-01-01", shuffled);
    recordAll("lake.b", "2024-01-01", reversed);

    List<List<String>> rangesA = claimAndCommitUntilDone("lake.a", 4);
    List<List<String>> rangesB = claimAndCommitUntilDone("lake.b", 4);

    assertThat(rangesA).containsExactly(names.subList(0, 4), names.subList(4, 8), names.subList(8, 10));
    assertThat(rangesB).isEqualTo(rangesA);
    assertThat(ledger.partition("lake.a", "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.tableStatus("lake.a").filesByState()).isEqualTo(Map.of(FileState.INGESTED, 10L));
  }

  @Test
  void thousandFilesInOnePartitionAreClaimedInBatchesOfMaxFiles() {
    List<String> names = IntStream.range(0, 1000).mapToObj(i -> String.format("part-%04d.parquet", i)).toList();
    recordAll(TABLE, "2024-01-01", names);

    List<List<String>> ranges = claimAndCommitUntilDone(TABLE, 300);

    assertThat(ranges).extracting(List::size).containsExactly(300, 300, 300, 100);
    List<String> union = ranges.stream().flatMap(List::stream).toList();
    assertThat(union).containsExactlyElementsOf(names);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.INGESTED, 1000L));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void exclusiveClaimReturnsNothingWhileABatchIsInFlight() {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);
    ClaimPartitions exclusive = new ClaimPartitions(TABLE, 1, LEASE, true);

    BatchRecord first = ledger.claimPartitions(exclusive).orElseThrow();
    assertThat(ledger.claimPartitions(exclusive)).isEmpty();
    ledger.markRunning(first.batchId(), LEASE);
    assertThat(ledger.claimPartitions(exclusive)).isEmpty();
    ledger.commitBatch(new CommitBatch(first.batchId(), 1L, METRICS));

    BatchRecord second = ledger.claimPartitions(exclusive).orElseThrow();
    assertThat(second.partitions()).containsExactly("2024-01-02");
  }

  @Test
  void nonExclusiveClaimTakesOtherPartitionsWhileABatchIsInFlight() {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);

    BatchRecord first = claim(1).orElseThrow();
    BatchRecord second = claim(1).orElseThrow();

    assertThat(first.partitions()).containsExactly("2024-01-01");
    assertThat(second.partitions()).containsExactly("2024-01-02");
    assertThat(ledger.tableStatus(TABLE).inFlight()).extracting(BatchRecord::batchId)
        .containsExactlyInAnyOrder(first.batchId(), second.batchId());
  }

  @Test
  void readyPartitionWithNothingPendingBecomesIngestedOnClaim() {
    ledger.markReady(marker(TABLE, "2024-01-01"));

    assertThat(claim(10)).isEmpty();
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  // --- claiming the newest partition (mode last) --------------------------------------------------

  @Test
  void newestReadyPartitionIsClaimedWholeAndOlderReadyOnesAreSuperseded() {
    readyPartition(TABLE, "2024-01-01", 2);
    readyPartition(TABLE, "2024-01-02", 1);
    List<String> newest = readyPartition(TABLE, "2024-01-03", 5);
    ledger.recordFile(file(TABLE, "2024-01-04", "part-0.parquet")); // OPEN: not complete, not touched
    clock.advance(Duration.ofMinutes(1));

    NewestPartitionClaimed claimed = ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)).orElseThrow();

    BatchRecord batch = claimed.batch();
    assertThat(batch.state()).isEqualTo(BatchState.PLANNED);
    assertThat(batch.partitions()).containsExactly("2024-01-03");
    assertThat(batch.fileIds()).containsExactlyElementsOf(newest); // whole, whatever max-batch-size says
    assertThat(batch.leaseUntil()).contains(clock.instant().plus(LEASE));
    assertThat(ledger.filesOfBatch(batch.batchId())).allSatisfy(f -> assertThat(f.state()).isEqualTo(FileState.CLAIMED));
    assertThat(claimed.superseded()).containsExactly("2024-01-01", "2024-01-02");
    for (String partition : List.of("2024-01-01", "2024-01-02")) {
      assertThat(ledger.partition(TABLE, partition).orElseThrow().state()).isEqualTo(PartitionState.SUPERSEDED);
    }
    PartitionRecord claimedPartition = ledger.partition(TABLE, "2024-01-03").orElseThrow();
    assertThat(claimedPartition.state()).isEqualTo(PartitionState.CLAIMED);
    assertThat(claimedPartition.batchId()).contains(batch.batchId());
    assertThat(ledger.partition(TABLE, "2024-01-04").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
    assertThat(ledger.tableStatus(TABLE).filesByState())
        .isEqualTo(Map.of(FileState.CLAIMED, 5L, FileState.RECORDED, 4L));
    assertThat(ledger.batch(batch.batchId())).contains(batch);

    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));
    assertThat(ledger.partition(TABLE, "2024-01-03").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();
  }

  @Test
  void newestClaimIsExclusiveAndSupersedesNothingWhileABatchIsInFlight() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord inFlight = claim(10).orElseThrow();
    readyPartition(TABLE, "2024-01-02", 1);
    readyPartition(TABLE, "2024-01-03", 1);

    assertThat(ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.READY);

    ledger.commitBatch(new CommitBatch(inFlight.batchId(), 1L, METRICS));
    NewestPartitionClaimed claimed = ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)).orElseThrow();
    assertThat(claimed.batch().partitions()).containsExactly("2024-01-03");
    assertThat(claimed.superseded()).containsExactly("2024-01-02");
  }

  @Test
  void newestPartitionWithNothingPendingIsSettledAndTheNextNewestClaimed() {
    readyPartition(TABLE, "2024-01-01", 1);
    List<String> second = readyPartition(TABLE, "2024-01-02", 1);
    ledger.markReady(marker(TABLE, "2024-01-03")); // a marker without files

    NewestPartitionClaimed claimed = ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)).orElseThrow();

    assertThat(claimed.batch().fileIds()).containsExactlyElementsOf(second);
    assertThat(claimed.superseded()).containsExactly("2024-01-01");
    assertThat(ledger.partition(TABLE, "2024-01-03").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void newestClaimWithNothingReadyIsEmpty() {
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));

    assertThat(ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
  }

  @Test
  void newestClaimSupersedesMoreReadyPartitionsThanOneCommitHolds() {
    List<String> older = IntStream.range(0, 620).mapToObj(i -> String.format("2023-%04d", i)).toList();
    for (String partition : older) {
      ledger.markReady(marker(TABLE, partition));
    }
    List<String> newest = readyPartition(TABLE, "2024-01-01", 3);

    NewestPartitionClaimed claimed = ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)).orElseThrow();

    assertThat(claimed.batch().fileIds()).containsExactlyElementsOf(newest);
    assertThat(claimed.superseded()).containsExactlyElementsOf(older);
    assertThat(ledger.tableStatus(TABLE).partitionsByState())
        .isEqualTo(Map.of(PartitionState.SUPERSEDED, 620L, PartitionState.CLAIMED, 1L));
  }

  @Test
  void concurrentClaimersNeverPutAPartitionOrFileInTwoBatches() throws Exception {
    assumeIsolatedTransactions();
    List<String> allFiles = new ArrayList<>();
    for (int day = 0; day < 40; day++) {
      allFiles.addAll(readyPartition(TABLE, LocalDate.of(2024, 1, 1).plusDays(day).toString(), 3));
    }
    int claimers = 2;
    CyclicBarrier start = new CyclicBarrier(claimers);
    AtomicLong snapshots = new AtomicLong(1000);
    ConcurrentLinkedQueue<BatchRecord> batches = new ConcurrentLinkedQueue<>();
    List<Callable<Integer>> work = new ArrayList<>();
    for (int i = 0; i < claimers; i++) {
      // One ledger per claimer, as two processes would open the store.
      Ledger own = openAnother(clock);
      work.add(() -> {
        start.await(10, TimeUnit.SECONDS);
        int claimed = 0;
        Optional<BatchRecord> batch;
        while ((batch = own.claimPartitions(new ClaimPartitions(TABLE, 6, LEASE, false))).isPresent()) {
          batches.add(batch.get());
          own.markRunning(batch.get().batchId(), LEASE);
          own.commitBatch(new CommitBatch(batch.get().batchId(), snapshots.incrementAndGet(), METRICS));
          claimed++;
        }
        return claimed;
      });
    }
    ExecutorService pool = Executors.newFixedThreadPool(claimers);
    try {
      List<Future<Integer>> results = pool.invokeAll(work, 2, TimeUnit.MINUTES);
      int total = 0;
      for (Future<Integer> result : results) {
        total += result.get();
      }
      assertThat(total).isEqualTo(batches.size());
    } finally {
      pool.shutdownNow();
    }

    List<String> claimedFiles = batches.stream().flatMap(b -> b.fileIds().stream()).toList();
    List<String> claimedPartitions = batches.stream().flatMap(b -> b.partitions().stream()).toList();
    assertThat(claimedFiles).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(allFiles);
    assertThat(claimedPartitions).doesNotHaveDuplicates().hasSize(40);
    assertThat(batches).allSatisfy(b -> assertThat(b.fileIds()).hasSizeLessThanOrEqualTo(6));
    TableStatus status = ledger.tableStatus(TABLE);
    assertThat(status.filesByState()).isEqualTo(Map.of(FileState.INGESTED, 120L));
    assertThat(status.partitionsByState()).isEqualTo(Map.of(PartitionState.INGESTED, 40L));
    assertThat(status.inFlight()).isEmpty();
  }

  // --- committing --------------------------------------------------------------------------------

  @Test
  void commitMovesFilesAndPartitionsToIngestedAndStoresSnapshotMetricsAndEventIds() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord claimed = claim(10).orElseThrow();
    ledger.markRunning(claimed.batchId(), LEASE);
    clock.advance(Duration.ofMinutes(2));

    BatchCommitted committed = ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS));

    assertThat(committed.alreadyCommitted()).isFalse();
    BatchRecord batch = committed.batch();
    assertThat(batch.state()).isEqualTo(BatchState.COMMITTED);
    assertThat(batch.snapshotId()).contains(42L);
    assertThat(batch.metrics()).contains(METRICS);
    assertThat(batch.leaseUntil()).isEmpty();
    assertThat(batch.updatedAt()).isEqualTo(clock.instant());
    assertThat(batch.eventIds()).containsExactlyElementsOf(
        files.stream().map(id -> ledger.file(id).orElseThrow().eventId()).toList());
    assertThat(ledger.batch(batch.batchId())).contains(batch);
    assertThat(ledger.filesOfBatch(batch.batchId())).allSatisfy(file -> {
      assertThat(file.state()).isEqualTo(FileState.INGESTED);
      assertThat(file.batchId()).contains(batch.batchId());
    });
    PartitionRecord partition = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(partition.state()).isEqualTo(PartitionState.INGESTED);
    assertThat(partition.batchId()).contains(batch.batchId());
    assertThat(ledger.tableStatus(TABLE).lastCommitted()).contains(batch);
  }

  @Test
  void commitStoresEachFilesSnapshotRowCountsAndIgnoredColumnsAndAFileWithoutCountsReadsAsUnknown() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 3);
    BatchRecord claimed = claim(10).orElseThrow();
    ledger.markRunning(claimed.batchId(), LEASE);

    ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS,
        Map.of(files.get(0), new FileRows(6, 1, 2, 3), files.get(1), new FileRows(4, 0, 0))));

    FileRecord withRejects = openAnother(clock).file(files.get(0)).orElseThrow();
    assertThat(withRejects.snapshotId()).contains(42L);
    assertThat(withRejects.rows()).contains(new FileRows(6, 1, 2, 3));
    assertThat(ledger.file(files.get(1)).orElseThrow().rows()).contains(new FileRows(4, 0, 0));
    FileRecord uncounted = ledger.file(files.get(2)).orElseThrow();
    assertThat(uncounted.snapshotId()).contains(42L);
    assertThat(uncounted.rows()).isEmpty();
    assertThat(ledger.filesOfBatch(claimed.batchId())).extracting(FileRecord::rows)
        .containsExactly(Optional.of(new FileRows(6, 1, 2, 3)), Optional.of(new FileRows(4, 0, 0)), Optional.empty());
  }

  @Test
  void aCommittedBatchsFilesKeepTheirExpectationCountsAndAFileThatViolatedNoneHasNone() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord claimed = claim(10).orElseThrow();
    ledger.markRunning(claimed.batchId(), LEASE);
    FileRows violated = new FileRows(6, 3, 0, 0, Map.of("amount_positive", 3L, "email_set", 1L));

    ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS,
        Map.of(files.get(0), violated, files.get(1), new FileRows(4, 0, 0))));

    FileRecord read = openAnother(clock).file(files.get(0)).orElseThrow();
    assertThat(read.state()).isEqualTo(FileState.INGESTED);
    assertThat(read.rows()).contains(violated);
    assertThat(read.rows().orElseThrow().expectationsFailed())
        .containsExactly(Map.entry("amount_positive", 3L), Map.entry("email_set", 1L));
    assertThat(ledger.file(files.get(1)).orElseThrow().rows().orElseThrow().expectationsFailed()).isEmpty();
    assertThat(ledger.filesOfBatch(claimed.batchId())).extracting(FileRecord::rows)
        .containsExactly(Optional.of(violated), Optional.of(new FileRows(4, 0, 0)));
  }

  @Test
  void replayForgetsTheExpectationCountsOfTheFilesItReopens() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord claimed = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS,
        Map.of(files.get(0), new FileRows(6, 0, 0, 0, Map.of("amount_positive", 2L)))));

    ledger.reopenPartition(TABLE, "2024-01-01");
    BatchRecord again = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(again.batchId(), 43L, METRICS, Map.of(files.get(0), new FileRows(6, 0, 0))));

    FileRecord file = openAnother(clock).file(files.get(0)).orElseThrow();
    assertThat(file.snapshotId()).contains(43L);
    assertThat(file.rows()).contains(new FileRows(6, 0, 0));
  }

  @Test
  void aFileNotLoadedYetHasNoSnapshotAndNoCounts() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord claimed = claim(10).orElseThrow();

    ledger.failBatch(new FailBatch(claimed.batchId(), "executor lost", 3, false));

    FileRecord file = ledger.file(files.get(0)).orElseThrow();
    assertThat(file.state()).isEqualTo(FileState.RECORDED);
    assertThat(file.snapshotId()).isEmpty();
    assertThat(file.rows()).isEmpty();
  }

  @Test
  void replayForgetsTheLoadOfTheFilesItReopens() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord claimed = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS, Map.of(files.get(0), new FileRows(6, 1, 0))));

    ledger.reopenPartition(TABLE, "2024-01-01");

    FileRecord file = ledger.file(files.get(0)).orElseThrow();
    assertThat(file.state()).isEqualTo(FileState.RECORDED);
    assertThat(file.snapshotId()).isEmpty();
    assertThat(file.rows()).isEmpty();
  }

  @Test
  void batchesSettledSinceListsTheTablesCommittedAndFailedBatchesNewestFirst() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord old = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(old.batchId(), 1L, METRICS));
    clock.advance(Duration.ofHours(2));
    Instant since = clock.instant();
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord failed = claim(10).orElseThrow();
    ledger.failBatch(new FailBatch(failed.batchId(), "executor lost", 3, false));
    clock.advance(Duration.ofMinutes(1));
    BatchRecord committed = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(committed.batchId(), 2L, METRICS));
    clock.advance(Duration.ofMinutes(1));
    readyPartition(TABLE, "2024-01-03", 1);
    BatchRecord inFlight = claim(10).orElseThrow();
    readyPartition("lake.other", "2024-01-01", 1);
    ledger.commitBatch(new CommitBatch(ledger.claimPartitions(new ClaimPartitions("lake.other", 10, LEASE, false))
        .orElseThrow().batchId(), 3L, METRICS));

    List<BatchRecord> settled = openAnother(clock).batchesSettledSince(TABLE, since);

    assertThat(settled).extracting(BatchRecord::batchId).containsExactly(committed.batchId(), failed.batchId())
        .doesNotContain(old.batchId(), inFlight.batchId());
    assertThat(settled).extracting(BatchRecord::state).containsExactly(BatchState.COMMITTED, BatchState.FAILED);
  }

  @Test
  void committingTwiceWithTheSameSnapshotIsReportedAlreadyCommitted() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord claimed = claim(10).orElseThrow();
    BatchCommitted first = ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS));
    clock.advance(Duration.ofMinutes(1));

    BatchCommitted second = ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, BatchMetrics.EMPTY));

    assertThat(second.alreadyCommitted()).isTrue();
    assertThat(second.batch()).isEqualTo(first.batch());
    assertThat(ledger.batch(claimed.batchId()).orElseThrow().metrics()).contains(METRICS);
  }

  @Test
  void committingWithAnotherSnapshotFailsNamingBoth() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord claimed = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS));

    assertThatThrownBy(() -> ledger.commitBatch(new CommitBatch(claimed.batchId(), 43L, METRICS)))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining(claimed.batchId())
        .hasMessageContaining("43")
        .hasMessageContaining("42");
    assertThat(ledger.batch(claimed.batchId()).orElseThrow().snapshotId()).contains(42L);
  }

  @Test
  void committingAFailedBatchFailsNamingExpectedAndActualState() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord claimed = claim(10).orElseThrow();
    ledger.failBatch(new FailBatch(claimed.batchId(), "executor lost", 3, false));

    assertThatThrownBy(() -> ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS)))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot commit batch " + claimed.batchId() + ": expected state PLANNED or RUNNING, actual FAILED");
  }

  @Test
  void unknownBatchIsRejectedNamingIt() {
    assertThatThrownBy(() -> ledger.commitBatch(new CommitBatch("no-such-batch", 1L, METRICS)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-batch");
    assertThatThrownBy(() -> ledger.markRunning("no-such-batch", LEASE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-batch");
    assertThatThrownBy(() -> ledger.quarantineFile("no-such-file", "unreadable"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-such-file");
    assertThat(ledger.batch("no-such-batch")).isEmpty();
    assertThat(ledger.filesOfBatch("no-such-batch")).isEmpty();
  }

  @Test
  void fileLandingInAClaimedPartitionWaitsForTheNextClaim() {
    readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord claimed = claim(10).orElseThrow();
    FileRecorded late = ledger.recordFile(file(TABLE, "2024-01-01", "late.parquet"));
    assertThat(late.partition().state()).isEqualTo(PartitionState.CLAIMED);

    ledger.commitBatch(new CommitBatch(claimed.batchId(), 42L, METRICS));

    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(claim(10).orElseThrow().fileIds()).containsExactly(late.file().fileId());
  }

  // --- failing and recovering --------------------------------------------------------------------

  @Test
  void failedBatchKeepsItsErrorClassAndFileAtFaultBesideTheReason() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord claimed = claim(10).orElseThrow();
    FailureCause cause = new FailureCause("INCONSISTENT_BEHAVIOR_CROSS_VERSION.READ_ANCIENT_DATETIME",
        Optional.of("file:///landing/2024-01-01/orders[1] {a}.parquet"));

    ledger.failBatch(new FailBatch(claimed.batchId(), "rejected: ancient dates", 1, false, Optional.of(cause)));

    BatchRecord stored = ledger.batch(claimed.batchId()).orElseThrow();
    assertThat(stored.error()).contains("rejected: ancient dates");
    assertThat(stored.cause()).contains(cause);
    BatchRecord retried = claim(10).orElse(null);
    assertThat(retried).as("the partition is FAILED after its one allowed attempt").isNull();
    ledger.retryPartition(TABLE, "2024-01-01");
    BatchRecord next = claim(10).orElseThrow();
    assertThat(next.cause()).as("a new batch has no cause").isEmpty();
    ledger.failBatch(new FailBatch(next.batchId(), "lost", 3, false));
    assertThat(ledger.batch(next.batchId()).orElseThrow().cause()).isEmpty();
  }

  @Test
  void failedBatchReleasesItsPartitionsCountingTheAttempt() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord claimed = claim(10).orElseThrow();
    clock.advance(Duration.ofMinutes(1));

    BatchRecord failed = ledger.failBatch(new FailBatch(claimed.batchId(), "executor lost", 3, false));

    assertThat(failed.state()).isEqualTo(BatchState.FAILED);
    assertThat(failed.error()).contains("executor lost");
    assertThat(failed.leaseUntil()).isEmpty();
    PartitionRecord partition = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(partition.state()).isEqualTo(PartitionState.READY);
    assertThat(partition.attempts()).isEqualTo(1);
    assertThat(partition.lastError()).contains("executor lost");
    assertThat(partition.readyAt()).contains(clock.instant());
    assertThat(files).allSatisfy(id -> {
      FileRecord file = ledger.file(id).orElseThrow();
      assertThat(file.state()).isEqualTo(FileState.RECORDED);
      assertThat(file.batchId()).isEmpty();
    });
    assertThat(ledger.filesOfBatch(claimed.batchId())).extracting(FileRecord::fileId).containsExactlyElementsOf(files);

    BatchRecord retried = claim(10).orElseThrow();
    assertThat(retried.fileIds()).containsExactlyElementsOf(files);
    ledger.commitBatch(new CommitBatch(retried.batchId(), 7L, METRICS));
    PartitionRecord ingested = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(ingested.attempts()).isZero();
    assertThat(ingested.lastError()).isEmpty();
  }

  @Test
  void partitionFailsAfterMaxAttemptsWithTheLastError() {
    readyPartition(TABLE, "2024-01-01", 1);
    List<String> failedBatches = new ArrayList<>();
    for (int attempt = 1; attempt <= 3; attempt++) {
      BatchRecord batch = claim(10).orElseThrow();
      clock.advance(Duration.ofMinutes(1));
      ledger.failBatch(new FailBatch(batch.batchId(), "boom " + attempt, 3, false));
      failedBatches.add(batch.batchId());
    }

    PartitionRecord partition = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(partition.state()).isEqualTo(PartitionState.FAILED);
    assertThat(partition.attempts()).isEqualTo(3);
    assertThat(partition.lastError()).contains("boom 3");
    assertThat(claim(10)).isEmpty();
    TableStatus status = ledger.tableStatus(TABLE);
    assertThat(status.failedPartitions()).containsExactly(partition);
    Collections.reverse(failedBatches);
    assertThat(status.failedBatches()).extracting(BatchRecord::batchId).containsExactlyElementsOf(failedBatches);
    assertThat(status.filesByState()).isEqualTo(Map.of(FileState.RECORDED, 1L));
    // A marker or a new file does not retry a FAILED partition; an operator does.
    ledger.markReady(marker(TABLE, "2024-01-01"));
    ledger.recordFile(file(TABLE, "2024-01-01", "late.parquet"));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.FAILED);
  }

  @Test
  void expiredLeaseIsFoundAndARelaunchCountsTheAttemptAndRenewsTheLease() {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord first = claim(1).orElseThrow();
    BatchRecord running = ledger.markRunning(first.batchId(), LEASE);
    assertThat(running.state()).isEqualTo(BatchState.RUNNING);
    assertThat(running.attempts()).isEqualTo(1);
    clock.advance(Duration.ofMinutes(5));
    BatchRecord second = claim(1).orElseThrow();
    assertThat(ledger.findExpiredLeases()).isEmpty();

    clock.advance(LEASE.plusMinutes(1));

    assertThat(ledger.findExpiredLeases()).extracting(BatchRecord::batchId)
        .containsExactly(first.batchId(), second.batchId());
    BatchRecord relaunched = ledger.markRunning(first.batchId(), LEASE);
    assertThat(relaunched.state()).isEqualTo(BatchState.RUNNING);
    assertThat(relaunched.attempts()).isEqualTo(2);
    assertThat(relaunched.leaseUntil()).contains(clock.instant().plus(LEASE));
    BatchRecord renewed = ledger.renewLease(second.batchId(), Duration.ofMinutes(10));
    assertThat(renewed.state()).isEqualTo(BatchState.PLANNED);
    assertThat(renewed.leaseUntil()).contains(clock.instant().plusSeconds(600));
    assertThat(ledger.findExpiredLeases()).isEmpty();
  }

  @Test
  void onlyOneRecovererTakesOverAnExpiredLease() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(1).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);

    assertThatThrownBy(() -> ledger.takeOverExpiredLease(batch.batchId(), LEASE))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot take over batch " + batch.batchId() + ": its lease runs until "
            + clock.instant().plus(LEASE) + " (another batcher holds it)");

    clock.advance(LEASE.plusMinutes(1));
    BatchRecord taken = ledger.takeOverExpiredLease(batch.batchId(), LEASE);

    assertThat(taken.state()).isEqualTo(BatchState.RUNNING);
    assertThat(taken.attempts()).isEqualTo(1);
    assertThat(taken.leaseUntil()).contains(clock.instant().plus(LEASE));
    assertThat(ledger.findExpiredLeases()).isEmpty();
    // A second batcher that saw the same expired lease loses the race.
    assertThatThrownBy(() -> ledger.takeOverExpiredLease(batch.batchId(), LEASE))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("another batcher holds it");
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));
    assertThatThrownBy(() -> ledger.takeOverExpiredLease(batch.batchId(), LEASE))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot take over batch " + batch.batchId()
            + ": expected state PLANNED or RUNNING, actual COMMITTED");
  }

  @Test
  void renewingTheLeaseOfAFinishedBatchFailsNamingTheState() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));

    assertThatThrownBy(() -> ledger.renewLease(batch.batchId(), LEASE))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot renew the lease of batch " + batch.batchId()
            + ": expected state PLANNED or RUNNING, actual COMMITTED");
  }

  @Test
  void illegalTransitionsNameExpectedAndActualState() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));

    assertThatThrownBy(() -> ledger.markRunning(batch.batchId(), LEASE))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot mark batch " + batch.batchId() + " running: expected state PLANNED or RUNNING, actual COMMITTED");
    assertThatThrownBy(() -> ledger.failBatch(new FailBatch(batch.batchId(), "late failure", 3, false)))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot fail batch " + batch.batchId() + ": expected state PLANNED or RUNNING, actual COMMITTED");
    String fileId = batch.fileIds().get(0);
    assertThatThrownBy(() -> ledger.quarantineFile(fileId, "unreadable"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageStartingWith("Cannot quarantine file " + fileId)
        .hasMessageEndingWith(": expected state RECORDED or CLAIMED, actual INGESTED");
    assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
  }

  // --- pruning, late files, quarantine -----------------------------------------------------------

  @Test
  void pruneKeepsTheNewestCommittedBatchesAndTheFileRecords() {
    List<RecordFile> commands = new ArrayList<>();
    List<String> batchIds = new ArrayList<>();
    for (int day = 1; day <= 5; day++) {
      String partition = String.format("2024-01-%02d", day);
      RecordFile command = file(TABLE, partition, "part-0.parquet");
      commands.add(command);
      ledger.recordFile(command);
      ledger.markReady(marker(TABLE, partition));
      BatchRecord batch = claim(10).orElseThrow();
      clock.advance(Duration.ofMinutes(1));
      ledger.commitBatch(new CommitBatch(batch.batchId(), day, METRICS));
      batchIds.add(batch.batchId());
    }
    readyPartition(TABLE, "2024-01-06", 1);
    BatchRecord inFlight = claim(10).orElseThrow();

    int pruned = ledger.pruneCommitted(TABLE, 2);

    assertThat(pruned).isEqualTo(3);
    assertThat(batchIds.subList(0, 3)).allSatisfy(id -> assertThat(ledger.batch(id)).isEmpty());
    assertThat(batchIds.subList(3, 5)).allSatisfy(id -> assertThat(ledger.batch(id)).isPresent());
    assertThat(ledger.batch(inFlight.batchId())).isPresent();
    assertThat(ledger.tableStatus(TABLE).lastCommitted().orElseThrow().batchId()).isEqualTo(batchIds.get(4));
    assertThat(ledger.tableStatus(TABLE).filesByState())
        .isEqualTo(Map.of(FileState.INGESTED, 5L, FileState.CLAIMED, 1L));
    FileRecorded redelivered = ledger.recordFile(commands.get(0));
    assertThat(redelivered.isNew()).isFalse();
    assertThat(redelivered.file().state()).isEqualTo(FileState.INGESTED);
    assertThat(ledger.filesOfBatch(batchIds.get(0))).extracting(FileRecord::fileId)
        .containsExactly(commands.get(0).fileId());
    assertThat(ledger.pruneCommitted(TABLE, 2)).isZero();
  }

  @Test
  void lateFileReopensAnIngestedPartitionForOnlyThatFile() {
    readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord first = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(first.batchId(), 1L, METRICS));
    clock.advance(Duration.ofHours(1));

    FileRecorded late = ledger.recordFile(file(TABLE, "2024-01-01", "late.parquet"));

    assertThat(late.isNew()).isTrue();
    assertThat(late.partition().state()).isEqualTo(PartitionState.READY);
    assertThat(late.partition().markerSeen()).isTrue();
    assertThat(late.partition().readyAt()).contains(clock.instant());
    BatchRecord second = claim(10).orElseThrow();
    assertThat(second.fileIds()).containsExactly(late.file().fileId());
    assertThat(second.partitions()).containsExactly("2024-01-01");
  }

  @Test
  void quarantinedFileIsLeftOutOfClaims() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 3);

    FileRecord quarantined = ledger.quarantineFile(files.get(1), "not a parquet file");

    assertThat(quarantined.state()).isEqualTo(FileState.QUARANTINED);
    assertThat(quarantined.quarantineReason()).contains("not a parquet file");
    BatchRecord batch = claim(10).orElseThrow();
    assertThat(batch.fileIds()).containsExactly(files.get(0), files.get(2));
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.file(files.get(1)).orElseThrow().state()).isEqualTo(FileState.QUARANTINED);
  }

  @Test
  void claimedFileQuarantinedDuringItsBatchStaysQuarantined() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();

    ledger.quarantineFile(files.get(0), "corrupt footer");
    ledger.failBatch(new FailBatch(batch.batchId(), "corrupt footer in " + files.get(0), 3, false));

    assertThat(ledger.file(files.get(0)).orElseThrow().state()).isEqualTo(FileState.QUARANTINED);
    assertThat(ledger.file(files.get(1)).orElseThrow().state()).isEqualTo(FileState.RECORDED);
    assertThat(claim(10).orElseThrow().fileIds()).containsExactly(files.get(1));
  }

  @Test
  void partitionWhoseOnlyFileIsQuarantinedIsSettledOnClaim() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    ledger.quarantineFile(files.get(0), "empty object");

    assertThat(claim(10)).isEmpty();
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  // --- generations gone or left out ---------------------------------------------------------------

  @Test
  void claimedFileSupersededDuringItsBatchStaysSupersededAndItsPartitionIsSettledByTheCommit() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();

    FileRecord superseded = ledger.supersedeFile(files.get(0), "rewritten: generation 1733 is live now");
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));

    assertThat(superseded.state()).isEqualTo(FileState.SUPERSEDED);
    FileRecord stored = ledger.file(files.get(0)).orElseThrow();
    assertThat(stored.state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(stored.quarantineReason()).contains("rewritten: generation 1733 is live now");
    assertThat(ledger.file(files.get(1)).orElseThrow().state()).isEqualTo(FileState.INGESTED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void supersededFileStaysSupersededWhenItsBatchFailsAndIsNeverClaimedAgain() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();

    ledger.supersedeFile(files.get(0), "deleted before it was read");
    ledger.failBatch(new FailBatch(batch.batchId(), "transient", 3, false));

    assertThat(ledger.file(files.get(0)).orElseThrow().state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(claim(10).orElseThrow().fileIds()).containsExactly(files.get(1));
  }

  @Test
  void supersedingIsIdempotentAndKeepsTheFirstReason() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    claim(10).orElseThrow();
    ledger.supersedeFile(files.get(0), "deleted before it was read");

    FileRecord again = ledger.supersedeFile(files.get(0), "rewritten: generation 9 is live now");

    assertThat(again.state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(again.quarantineReason()).contains("deleted before it was read");
  }

  @Test
  void ingestedFileCanBeSupersededButAQuarantinedOneCannot() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.quarantineFile(files.get(1), "corrupt footer");
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));

    assertThat(ledger.supersedeFile(files.get(0), "deleted before it was read").state())
        .isEqualTo(FileState.SUPERSEDED);
    assertThatThrownBy(() -> ledger.supersedeFile(files.get(1), "deleted before it was read"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("Cannot supersede file " + files.get(1))
        .hasMessageContaining("expected state RECORDED or CLAIMED or INGESTED, actual QUARANTINED");
  }

  @Test
  void partitionWhoseOnlyFileIsSupersededBeforeItsClaimIsSettledOnClaim() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    ledger.supersedeFile(files.get(0), "rewritten: generation 2 is live now");

    assertThat(claim(10)).isEmpty();
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void ignoredFileStaysIgnoredThroughItsCommitAndCountsAsSettled() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();

    FileRecord ignored = ledger.ignoreFile(files.get(1), "generation 1 of the object is INGESTED");
    FileRecord again = ledger.ignoreFile(files.get(1), "another reason");
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));

    assertThat(ignored.state()).isEqualTo(FileState.IGNORED);
    assertThat(again.quarantineReason()).contains("generation 1 of the object is INGESTED");
    assertThat(ledger.file(files.get(1)).orElseThrow().state()).isEqualTo(FileState.IGNORED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void ingestedFileCannotBeIgnoredAndUnknownFilesAreNamed() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    ledger.commitBatch(new CommitBatch(claim(10).orElseThrow().batchId(), 1L, METRICS));

    assertThatThrownBy(() -> ledger.ignoreFile(files.get(0), "x"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("Cannot ignore file " + files.get(0))
        .hasMessageContaining("expected state RECORDED or CLAIMED, actual INGESTED");
    assertThatThrownBy(() -> ledger.supersedeFile("no-such-id", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot supersede file no-such-id: no such file");
  }

  @Test
  void tableStatusCountsSupersededAndIgnoredFiles() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 3);
    claim(10).orElseThrow();

    ledger.supersedeFile(files.get(0), "deleted before it was read");
    ledger.ignoreFile(files.get(1), "generation 1 of the object is INGESTED");

    assertThat(ledger.tableStatus(TABLE).filesByState())
        .containsEntry(FileState.SUPERSEDED, 1L)
        .containsEntry(FileState.IGNORED, 1L)
        .containsEntry(FileState.CLAIMED, 1L);
  }

  @Test
  void quarantinedMessageIsStoredOnce() {
    QuarantinedMessage message = new QuarantinedMessage(
        "msg-1", "not a GCS notification", "{\"foo\":1}", Optional.empty(), START);
    QuarantinedMessage other = new QuarantinedMessage(
        "msg-2", "no table matches", "{}", Optional.of("gs://landing/x/y.csv"), START.plusSeconds(1));

    ledger.quarantineMessage(message);
    ledger.quarantineMessage(new QuarantinedMessage("msg-1", "changed", "{}", Optional.empty(), START.plusSeconds(9)));
    ledger.quarantineMessage(other);

    assertThat(ledger.quarantinedMessages()).containsExactly(message, other);
  }

  // --- status and schema -------------------------------------------------------------------------

  @Test
  void tableStatusCountsStatesAndReportsLag() {
    readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord committed = claim(2).orElseThrow();
    ledger.commitBatch(new CommitBatch(committed.batchId(), 1L, METRICS));
    clock.advance(Duration.ofMinutes(1));
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord inFlight = claim(1).orElseThrow();
    readyPartition(TABLE, "2024-01-03", 1);
    BatchRecord failing = claim(1).orElseThrow();
    ledger.failBatch(new FailBatch(failing.batchId(), "schema mismatch", 1, false));
    clock.advance(Duration.ofMinutes(1));
    Instant readySince = clock.instant();
    readyPartition(TABLE, "2024-01-04", 2);
    clock.advance(Duration.ofMinutes(1));
    readyPartition(TABLE, "2024-01-05", 1);
    ledger.recordFile(file(TABLE, "2024-01-06", "part-0.parquet"));
    ledger.recordFile(file("lake.other", "2024-01-01", "part-0.parquet"));

    TableStatus status = ledger.tableStatus(TABLE);

    assertThat(status.table()).isEqualTo(TABLE);
    assertThat(status.partitionsByState()).isEqualTo(Map.of(
        PartitionState.INGESTED, 1L, PartitionState.CLAIMED, 1L, PartitionState.FAILED, 1L,
        PartitionState.READY, 2L, PartitionState.OPEN, 1L));
    assertThat(status.filesByState()).isEqualTo(Map.of(
        FileState.INGESTED, 2L, FileState.CLAIMED, 1L, FileState.RECORDED, 5L));
    assertThat(status.inFlight()).extracting(BatchRecord::batchId).containsExactly(inFlight.batchId());
    assertThat(status.lastCommitted().orElseThrow().batchId()).isEqualTo(committed.batchId());
    assertThat(status.oldestReadyAt()).contains(readySince);
    assertThat(status.failedPartitions()).extracting(PartitionRecord::partition).containsExactly("2024-01-03");
    assertThat(status.failedBatches()).extracting(BatchRecord::batchId).containsExactly(failing.batchId());
    assertThat(ledger.tables()).containsExactly(TABLE, "lake.other");
  }

  @Test
  void tableStatusOfAnUnknownTableIsEmpty() {
    TableStatus status = ledger.tableStatus("lake.unknown");

    assertThat(status.partitionsByState()).isEmpty();
    assertThat(status.filesByState()).isEmpty();
    assertThat(status.inFlight()).isEmpty();
    assertThat(status.lastCommitted()).isEmpty();
    assertThat(status.oldestReadyAt()).isEmpty();
  }

  @Test
  void stateCodesRoundTrip() {
    for (FileState state : FileState.values()) {
      assertThat(FileState.fromCode(state.code())).isEqualTo(state);
    }
    for (PartitionState state : PartitionState.values()) {
      assertThat(PartitionState.fromCode(state.code())).isEqualTo(state);
    }
    for (BatchState state : BatchState.values()) {
      assertThat(BatchState.fromCode(state.code())).isEqualTo(state);
    }
  }

  @Test
  void unknownStateCodeNamesTheKnownCodes() {
    assertThatThrownBy(() -> BatchState.fromCode("done"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unknown BatchState code 'done'; known: planned, running, committed, failed, rolled-back");
  }

  @Test
  void ledgerIsAvailable() {
    assertThat(ledger.isAvailable()).isTrue();
  }

  // Operator commands: replay, backfill, reconcile

  @Test
  void partitionsOfATableAreListedInTokenOrderWithTheirStates() {
    readyPartition(TABLE, "2024-01-02", 1);
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));
    readyPartition("lake.other", "2024-01-01", 1);

    List<PartitionRecord> partitions = ledger.partitions(TABLE);

    assertThat(partitions).extracting(PartitionRecord::partition).containsExactly("2024-01-01", "2024-01-02");
    assertThat(partitions).extracting(PartitionRecord::state).containsExactly(PartitionState.OPEN, PartitionState.READY);
    assertThat(partitions.get(1).prefix()).contains(prefix(TABLE, "2024-01-02"));
    assertThat(ledger.partitions("lake.unknown")).isEmpty();
  }

  @Test
  void filesOfAPartitionCoverEveryStateAndGenerationInUriOrder() {
    ledger.recordFile(file(TABLE, "2024-01-01", "b.parquet"));
    ledger.recordFile(file(TABLE, "2024-01-01", "a.parquet", 2, false));
    ledger.recordFile(file(TABLE, "2024-01-01", "a.parquet", 1, false));
    ledger.recordFile(file(TABLE, "2024-01-02", "c.parquet"));
    ledger.markReady(marker(TABLE, "2024-01-01"));
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, METRICS));
    ledger.recordFile(file(TABLE, "2024-01-01", "c.parquet"));

    List<FileRecord> files = ledger.filesOfPartition(TABLE, "2024-01-01");

    assertThat(files).extracting(f -> f.name().substring(f.name().lastIndexOf('/') + 1) + "#" + f.generation())
        .containsExactly("a.parquet#1", "a.parquet#2", "b.parquet#1", "c.parquet#1");
    assertThat(files).extracting(FileRecord::state).containsExactly(
        FileState.INGESTED, FileState.INGESTED, FileState.INGESTED, FileState.RECORDED);
    assertThat(ledger.filesOfPartition(TABLE, "2024-02-01")).isEmpty();
  }

  @Test
  void reopenedPartitionIsClaimedAgainWithAllItsIngestedFiles() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 3);
    BatchRecord first = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(first.batchId(), 1L, METRICS));
    FileRecord quarantined = ledger.quarantineFile(
        ledger.recordFile(file(TABLE, "2024-01-01", "bad.parquet")).file().fileId(), "unreadable");
    BatchRecord settled = claim(10).orElse(null);
    assertThat(settled).as("only the quarantined file was pending").isNull();
    clock.advance(Duration.ofHours(2));

    PartitionRecord reopened = ledger.reopenPartition(TABLE, "2024-01-01");

    assertThat(reopened.state()).isEqualTo(PartitionState.READY);
    assertThat(reopened.readyAt()).contains(clock.instant());
    assertThat(reopened.markerSeen()).isTrue();
    assertThat(ledger.file(files.get(0)).orElseThrow().state()).isEqualTo(FileState.RECORDED);
    assertThat(ledger.file(files.get(0)).orElseThrow().batchId()).isEmpty();
    assertThat(ledger.file(quarantined.fileId()).orElseThrow().state()).isEqualTo(FileState.QUARANTINED);
    BatchRecord again = claim(10).orElseThrow();
    assertThat(again.batchId()).isNotEqualTo(first.batchId());
    assertThat(again.fileIds()).containsExactlyElementsOf(files);
    assertThat(ledger.batch(first.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
  }

  @Test
  void reopeningAReadyPartitionChangesNothing() {
    readyPartition(TABLE, "2024-01-01", 1);
    PartitionRecord before = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    clock.advance(Duration.ofMinutes(5));

    assertThat(ledger.reopenPartition(TABLE, "2024-01-01")).isEqualTo(before);
    assertThat(ledger.partition(TABLE, "2024-01-01")).contains(before);
  }

  @Test
  void reopeningAClaimedOrOpenPartitionFailsNamingTheStates() {
    readyPartition(TABLE, "2024-01-01", 1);
    claim(10).orElseThrow();
    ledger.recordFile(file(TABLE, "2024-01-02", "part-0.parquet"));

    assertThatThrownBy(() -> ledger.reopenPartition(TABLE, "2024-01-01"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot reopen partition lake.clicks/2024-01-01: expected state READY or INGESTED or HELD or DROPPED, actual CLAIMED");
    assertThatThrownBy(() -> ledger.reopenPartition(TABLE, "2024-01-02"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot reopen partition lake.clicks/2024-01-02: expected state READY or INGESTED or HELD or DROPPED, actual OPEN");
    assertThatThrownBy(() -> ledger.reopenPartition(TABLE, "2024-09-09"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot reopen partition lake.clicks/2024-09-09: no such partition");
  }

  @Test
  void anotherLedgerOnTheSameStoreSeesTheWrites() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    Ledger other = openAnother(clock);

    BatchRecord batch = other.claimPartitions(new ClaimPartitions(TABLE, 10, LEASE, true)).orElseThrow();

    assertThat(batch.fileIds()).containsExactlyElementsOf(files);
    assertThat(ledger.batch(batch.batchId())).contains(batch);
  }

  // --- partitions larger than one Firestore commit (500 writes) ------------------------------------

  /** More files than one Firestore commit holds, few enough to keep the suite fast. */
  protected static final int LARGE_PARTITION_FILES = 620;

  /** Records {@code count} files of one partition (names sort in recording order) and its marker. */
  protected List<String> largeReadyPartition(String table, String partition, int count) {
    List<String> names = IntStream.range(0, count).mapToObj(i -> String.format("part-%05d.parquet", i)).toList();
    return recordAll(table, partition, names);
  }

  /** Every file of the batch is in {@code state}, carries the batch (when given) and nothing else is. */
  protected void assertFilesOfBatch(BatchRecord batch, List<String> fileIds, FileState state, boolean carriesBatch) {
    List<FileRecord> files = ledger.filesOfBatch(batch.batchId());
    assertThat(files).extracting(FileRecord::fileId).containsExactlyElementsOf(fileIds);
    assertThat(files).allSatisfy(file -> {
      assertThat(file.state()).as("file %s", file.uri()).isEqualTo(state);
      assertThat(file.batchId()).as("file %s", file.uri())
          .isEqualTo(carriesBatch ? Optional.of(batch.batchId()) : Optional.empty());
    });
    assertThat(ledger.tableStatus(batch.table()).filesByState()).isEqualTo(Map.of(state, (long) fileIds.size()));
  }

  @Test
  void partitionOfMoreFilesThanOneCommitHoldsIsClaimedWholeAndCommitted() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", LARGE_PARTITION_FILES);

    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 5_000, LEASE, true)).orElseThrow();

    assertThat(batch.fileIds()).containsExactlyElementsOf(files);
    assertThat(batch.eventIds()).hasSize(LARGE_PARTITION_FILES);
    assertThat(batch.partitions()).containsExactly("2024-01-01");
    assertFilesOfBatch(batch, files, FileState.CLAIMED, true);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    assertThat(ledger.claimPartitions(new ClaimPartitions(TABLE, 5_000, LEASE, false))).isEmpty();

    ledger.markRunning(batch.batchId(), LEASE);
    BatchCommitted committed = ledger.commitBatch(new CommitBatch(batch.batchId(), 11L, METRICS));

    assertThat(committed.alreadyCommitted()).isFalse();
    assertThat(committed.batch().state()).isEqualTo(BatchState.COMMITTED);
    assertFilesOfBatch(batch, files, FileState.INGESTED, true);
    // Also the files a store with a bound per commit settles after the commit.
    assertThat(ledger.filesOfBatch(batch.batchId())).allSatisfy(file ->
        assertThat(file.ingestedAt()).as("file %s", file.uri()).contains(clock.instant()));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.commitBatch(new CommitBatch(batch.batchId(), 11L, METRICS)).alreadyCommitted()).isTrue();
    assertThat(ledger.claimPartitions(new ClaimPartitions(TABLE, 5_000, LEASE, true))).isEmpty();
  }

  @Test
  void largePartitionIsStillSplitAtMaxFiles() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", LARGE_PARTITION_FILES);

    BatchRecord first = ledger.claimPartitions(new ClaimPartitions(TABLE, 520, LEASE, true)).orElseThrow();
    ledger.commitBatch(new CommitBatch(first.batchId(), 1L, METRICS));
    BatchRecord second = ledger.claimPartitions(new ClaimPartitions(TABLE, 520, LEASE, true)).orElseThrow();

    assertThat(first.fileIds()).containsExactlyElementsOf(files.subList(0, 520));
    assertThat(second.fileIds()).containsExactlyElementsOf(files.subList(520, LARGE_PARTITION_FILES));
    assertThat(ledger.tableStatus(TABLE).filesByState())
        .isEqualTo(Map.of(FileState.INGESTED, 520L, FileState.CLAIMED, (long) LARGE_PARTITION_FILES - 520));
  }

  @Test
  void newestPartitionOfMoreFilesThanOneCommitHoldsIsClaimedWholeAndCommitted() {
    readyPartition(TABLE, "2023-12-30", 2);
    readyPartition(TABLE, "2023-12-31", 1);
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", LARGE_PARTITION_FILES);

    NewestPartitionClaimed claimed = ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)).orElseThrow();

    BatchRecord batch = claimed.batch();
    assertThat(batch.fileIds()).containsExactlyElementsOf(files);
    assertThat(batch.partitions()).containsExactly("2024-01-01");
    assertThat(claimed.superseded()).containsExactly("2023-12-30", "2023-12-31");
    List<FileRecord> claimedFiles = ledger.filesOfBatch(batch.batchId());
    assertThat(claimedFiles).extracting(FileRecord::state).containsOnly(FileState.CLAIMED);
    assertThat(claimedFiles).extracting(FileRecord::batchId).containsOnly(Optional.of(batch.batchId()));
    assertThat(ledger.tableStatus(TABLE).partitionsByState())
        .isEqualTo(Map.of(PartitionState.SUPERSEDED, 2L, PartitionState.CLAIMED, 1L));

    ledger.markRunning(batch.batchId(), LEASE);
    ledger.commitBatch(new CommitBatch(batch.batchId(), 12L, METRICS));

    assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::state).containsOnly(FileState.INGESTED);
    assertThat(ledger.tableStatus(TABLE).filesByState())
        .isEqualTo(Map.of(FileState.INGESTED, (long) LARGE_PARTITION_FILES, FileState.RECORDED, 3L));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void largeBatchThatFailsReleasesEveryFileAndIsRevivedAndCommittedWhole() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", LARGE_PARTITION_FILES);
    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 5_000, LEASE, true)).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);
    clock.advance(Duration.ofMinutes(1));

    BatchRecord failed = ledger.failBatch(new FailBatch(batch.batchId(), "executor lost", 3, false));

    assertThat(failed.state()).isEqualTo(BatchState.FAILED);
    assertFilesOfBatch(batch, files, FileState.RECORDED, false);
    PartitionRecord released = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(released.state()).isEqualTo(PartitionState.READY);
    assertThat(released.attempts()).isEqualTo(1);
    assertThat(released.lastError()).contains("executor lost");

    // Given up with an unknown outcome (the gave-up path): revived under its own id, whole.
    BatchRecord again = ledger.claimPartitions(new ClaimPartitions(TABLE, 5_000, LEASE, true)).orElseThrow();
    assertThat(again.fileIds()).containsExactlyElementsOf(files);
    ledger.markRunning(again.batchId(), LEASE);
    ledger.failBatch(new FailBatch(again.batchId(), "gave up after 1 attempt(s); the table may hold the batch: lost", 1, true));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.FAILED);
    assertFilesOfBatch(again, files, FileState.RECORDED, false);

    BatchRecord revived = ledger.reviveBatch(again.batchId());

    assertThat(revived.state()).isEqualTo(BatchState.PLANNED);
    assertThat(revived.outcomeUnknown()).isTrue();
    assertThat(revived.fileIds()).containsExactlyElementsOf(files);
    assertFilesOfBatch(again, files, FileState.CLAIMED, true);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    ledger.takeOverExpiredLease(again.batchId(), LEASE);
    ledger.markRunning(again.batchId(), LEASE);
    ledger.commitBatch(new CommitBatch(again.batchId(), 13L, METRICS));
    assertFilesOfBatch(again, files, FileState.INGESTED, true);
    PartitionRecord ingested = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(ingested.state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ingested.attempts()).isZero();
  }

  // --- fixtures ----------------------------------------------------------------------------------

  // --- operators' changes: rollback and drop-partition ------------------------------------------

  /** Loads one partition of {@code files} files in a batch of its own, committed as snapshot {@code snapshot}. */
  // --- the outbox: change events ------------------------------------------------------------------

  @Test
  void commitWritesOneChangeEventWithTheBatchsSnapshotPartitionsAndRowCounts() throws Exception {
    readyPartition(TABLE, "2024-01-02", 1);
    readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord claimed = claim(10).orElseThrow();
    clock.advance(Duration.ofMinutes(2));

    ledger.commitBatch(new CommitBatch(claimed.batchId(), 9_007_199_254_740_993L, METRICS));

    List<ChangeEvent> events = ledger.pendingEvents(10);
    assertThat(events).extracting(ChangeEvent::eventId, ChangeEvent::table, ChangeEvent::change,
        ChangeEvent::createdAt).containsExactly(tuple(claimed.batchId(), TABLE, "commit", clock.instant()));
    Map<String, Object> payload = payload(events.get(0));
    assertThat(payload).containsEntry("kind", "change").containsEntry("change", "commit")
        .containsEntry("eventId", claimed.batchId()).containsEntry("batchId", claimed.batchId())
        .containsEntry("table", TABLE).containsEntry("snapshotId", "9007199254740993")
        .containsEntry("committedAt", clock.instant().toString())
        .containsEntry("partitions", List.of("2024-01-01", "2024-01-02")).containsEntry("partitionCount", 2)
        .containsEntry("partitionsTruncated", false)
        .containsEntry("inserted", 7).containsEntry("updated", 2).containsEntry("deleted", 0);
  }

  @Test
  void committingAgainWritesNoSecondEventAndAFailedBatchWritesNone() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord committed = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(committed.batchId(), 1L, METRICS));
    ledger.acknowledgeEvents(List.of(committed.batchId()));
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord failed = claim(10).orElseThrow();

    assertThat(ledger.commitBatch(new CommitBatch(committed.batchId(), 1L, METRICS)).alreadyCommitted()).isTrue();
    ledger.failBatch(new FailBatch(failed.batchId(), "executor lost", 3, false));

    assertThat(ledger.pendingEvents(10)).isEmpty();
  }

  @Test
  void appliedRollbackAndDropEachWriteOneEventNamedByTheirChangeId() throws Exception {
    BatchRecord first = loaded("2024-01-01", 1, 1L);
    BatchRecord second = loaded("2024-01-02", 1, 2L);
    ledger.acknowledgeEvents(List.of(first.batchId(), second.batchId()));
    ledger.intendChange(drop("drop-1", "2024-01-01", 2L));
    ledger.applyChange("drop-1");
    clock.advance(Duration.ofMinutes(1));
    ledger.intendChange(rollback("rollback-1", 3L, 1L, List.of(second.batchId()), List.of("drop-1"),
        List.of("2024-01-02"), false));

    ledger.applyChange("rollback-1");
    ledger.applyChange("rollback-1");

    List<ChangeEvent> events = ledger.pendingEvents(10);
    assertThat(events).extracting(ChangeEvent::eventId, ChangeEvent::change)
        .containsExactly(tuple("drop-1", "drop-partition"), tuple("rollback-1", "rollback"));
    assertThat(payload(events.get(0))).containsEntry("changeId", "drop-1").containsEntry("snapshotId", null)
        .containsEntry("parentSnapshotId", "2").containsEntry("partitions", List.of("2024-01-01"));
    Map<String, Object> rollback = payload(events.get(1));
    assertThat(rollback).containsEntry("eventId", "rollback-1").containsEntry("snapshotId", "1")
        .containsEntry("fromSnapshotId", "3").containsEntry("toSnapshotId", "1");
    assertThat(rollback.get("undone")).isEqualTo(List.of(
        undone("2", second.batchId(), null, List.of("2024-01-02")), undone(null, null, "drop-1", List.of("2024-01-01"))));
  }

  @Test
  void acknowledgedEventsLeaveTheOutboxAndUnknownIdsAreIgnored() {
    BatchRecord first = loaded("2024-01-01", 1, 1L);
    BatchRecord second = loaded("2024-01-02", 1, 2L);

    ledger.acknowledgeEvents(List.of(first.batchId(), "no-such-event"));

    assertThat(ledger.pendingEvents(10)).extracting(ChangeEvent::eventId).containsExactly(second.batchId());
    ledger.acknowledgeEvents(List.of(second.batchId(), second.batchId()));
    assertThat(openAnother(clock).pendingEvents(10)).isEmpty();
  }

  @Test
  void pendingEventsOfEveryTableAreOldestFirstUpToTheLimit() {
    BatchRecord first = loaded("2024-01-01", 1, 1L);
    readyPartition("lake.other", "2024-01-01", 1);
    BatchRecord other = ledger.claimPartitions(new ClaimPartitions("lake.other", 10, LEASE, false)).orElseThrow();
    ledger.commitBatch(new CommitBatch(other.batchId(), 5L, METRICS));
    clock.advance(Duration.ofMinutes(1));
    BatchRecord third = loaded("2024-01-02", 1, 2L);

    assertThat(ledger.pendingEvents(10)).extracting(ChangeEvent::eventId, ChangeEvent::table).containsExactly(
        tuple(first.batchId(), TABLE), tuple(other.batchId(), "lake.other"), tuple(third.batchId(), TABLE));
    assertThat(ledger.pendingEvents(2)).extracting(ChangeEvent::eventId)
        .containsExactly(first.batchId(), other.batchId());
  }

  /** An entry of a rollback event's {@code undone}, as parsed JSON. */
  private static Map<String, Object> undone(String snapshotId, String batchId, String changeId,
      List<String> partitions) {
    Map<String, Object> undone = new java.util.HashMap<>();
    undone.put("snapshotId", snapshotId);
    undone.put("batchId", batchId);
    undone.put("changeId", changeId);
    undone.put("partitions", partitions);
    undone.put("partitionCount", partitions.size());
    undone.put("partitionsTruncated", false);
    return undone;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> payload(ChangeEvent event) throws Exception {
    return new com.fasterxml.jackson.databind.ObjectMapper().readValue(event.payload(), Map.class);
  }

  // --- landing cleanup --------------------------------------------------------------------------

  private static final String ARCHIVE = "gs://archive/raw/";

  private static Ledger.CleanFile archive(FileRecord file, Instant at) {
    return new Ledger.CleanFile(file.fileId(), CleanedObject.archived(ARCHIVE + file.name(), 7_000 + file.size(), at));
  }

  private static Ledger.CleanFile delete(FileRecord file, Instant at) {
    return new Ledger.CleanFile(file.fileId(), CleanedObject.deleted(at));
  }

  private List<FileRecord> files(List<String> ids) {
    return ids.stream().map(id -> ledger.file(id).orElseThrow()).toList();
  }

  @Test
  void aCommitRecordsWhenItsFilesWereLoadedAndAReplayForgetsIt() {
    List<String> ids = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();
    clock.advance(Duration.ofMinutes(3));
    Instant committedAt = clock.instant();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 42L, METRICS));

    assertThat(files(ids)).allSatisfy(file -> assertThat(file.ingestedAt()).contains(committedAt));
    assertThat(files(ids)).allSatisfy(file -> assertThat(file.cleaned()).isEmpty());

    clock.advance(Duration.ofMinutes(1));
    ledger.reopenPartition(TABLE, "2024-01-01");
    assertThat(files(ids)).allSatisfy(file -> assertThat(file.ingestedAt()).isEmpty());
    BatchRecord again = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(again.batchId(), 43L, METRICS));
    assertThat(openAnother(clock).file(ids.get(0)).orElseThrow().ingestedAt()).contains(clock.instant());
  }

  @Test
  void cleanFilesRecordsEachDecisionAndTheSameDecisionAgainChangesNothing() {
    BatchRecord batch = loaded("2024-01-01", 2, 1L);
    List<FileRecord> loadedFiles = files(batch.fileIds());
    Instant at = clock.instant();

    List<FileRecord> cleaned = ledger.cleanFiles(TABLE, List.of(archive(loadedFiles.get(0), at),
        delete(loadedFiles.get(1), at)));

    assertThat(cleaned).hasSize(2);
    FileRecord archived = openAnother(clock).file(loadedFiles.get(0).fileId()).orElseThrow();
    assertThat(archived.state()).isEqualTo(FileState.INGESTED);
    assertThat(archived.ingestedAt()).isEqualTo(loadedFiles.get(0).ingestedAt());
    assertThat(archived.cleaned()).contains(new CleanedObject(CleanedObject.Action.ARCHIVED,
        Optional.of(ARCHIVE + archived.name()), Optional.of(7_100L), at, Optional.empty()));
    assertThat(ledger.file(loadedFiles.get(1).fileId()).orElseThrow().cleaned())
        .contains(CleanedObject.deleted(at));
    assertThat(cleaned).containsExactlyInAnyOrderElementsOf(files(batch.fileIds()));
    // A run that resumes decides the same again: nothing changes.
    clock.advance(Duration.ofMinutes(1));
    assertThat(ledger.cleanFiles(TABLE, List.of(archive(loadedFiles.get(0), clock.instant()),
        delete(loadedFiles.get(1), clock.instant())))).isEmpty();
    assertThat(ledger.file(loadedFiles.get(1).fileId()).orElseThrow().cleaned())
        .contains(CleanedObject.deleted(at));
  }

  @Test
  void cleanFilesRefusesAFileNotIngestedNamingItAndWritesNothing() {
    BatchRecord batch = loaded("2024-01-01", 1, 1L);
    List<String> pending = readyPartition(TABLE, "2024-01-02", 1);
    FileRecord ingested = ledger.file(batch.fileIds().get(0)).orElseThrow();
    FileRecord recorded = ledger.file(pending.get(0)).orElseThrow();

    assertThatThrownBy(() -> ledger.cleanFiles(TABLE, List.of(delete(ingested, clock.instant()),
        delete(recorded, clock.instant()))))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining(recorded.fileId())
        .hasMessageContaining(recorded.uri())
        .hasMessageContaining("expected state INGESTED, actual RECORDED");
    assertThat(ledger.file(ingested.fileId()).orElseThrow().cleaned()).isEmpty();
    assertThatThrownBy(() -> ledger.cleanFiles("lake.other", List.of(delete(ingested, clock.instant()))))
        .hasMessageContaining("no file " + ingested.fileId());
  }

  @Test
  void cleanFilesRefusesAnotherDecisionForACleanedFile() {
    BatchRecord batch = loaded("2024-01-01", 1, 1L);
    FileRecord file = ledger.file(batch.fileIds().get(0)).orElseThrow();
    ledger.cleanFiles(TABLE, List.of(archive(file, clock.instant())));

    assertThatThrownBy(() -> ledger.cleanFiles(TABLE, List.of(delete(file, clock.instant()))))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining(file.fileId())
        .hasMessageContaining("archived already (to " + ARCHIVE + file.name() + ")");
    assertThat(ledger.file(file.fileId()).orElseThrow().cleaned().orElseThrow().action())
        .isEqualTo(CleanedObject.Action.ARCHIVED);
  }

  @Test
  void cleanFilesWaitsForTheTablesUnfinishedChange() {
    BatchRecord batch = loaded("2024-01-01", 1, 1L);
    FileRecord file = ledger.file(batch.fileIds().get(0)).orElseThrow();
    ledger.intendChange(rollback("rollback-1", 1L, 0L, List.of(batch.batchId()), List.of(), List.of("2024-01-01"),
        false));

    assertThatThrownBy(() -> ledger.cleanFiles(TABLE, List.of(delete(file, clock.instant()))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("rollback-1")
        .hasMessageContaining("unfinished");
    assertThat(ledger.file(file.fileId()).orElseThrow().cleaned()).isEmpty();
  }

  @Test
  void confirmRemovedRecordsTheRemovalOnceAndRefusesAFileNeverCleaned() {
    BatchRecord batch = loaded("2024-01-01", 2, 1L);
    List<FileRecord> loadedFiles = files(batch.fileIds());
    Instant decided = clock.instant();
    ledger.cleanFiles(TABLE, List.of(delete(loadedFiles.get(0), decided)));
    clock.advance(Duration.ofSeconds(5));
    Instant removed = clock.instant();

    assertThat(ledger.confirmRemoved(List.of(loadedFiles.get(0).fileId()))).hasSize(1);

    assertThat(openAnother(clock).file(loadedFiles.get(0).fileId()).orElseThrow().cleaned())
        .contains(CleanedObject.deleted(decided).removed(removed));
    clock.advance(Duration.ofSeconds(5));
    assertThat(ledger.confirmRemoved(List.of(loadedFiles.get(0).fileId()))).isEmpty();
    assertThat(ledger.file(loadedFiles.get(0).fileId()).orElseThrow().cleaned().orElseThrow().removedAt())
        .contains(removed);
    assertThatThrownBy(() -> ledger.confirmRemoved(List.of(loadedFiles.get(1).fileId())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(loadedFiles.get(1).fileId())
        .hasMessageContaining("never cleaned");
  }

  @Test
  void filesToCleanListsTheLoadedFilesBeforeTheCutoffOldestFirstAndLeavesCleanedOnesOut() {
    BatchRecord first = loaded("2024-01-01", 2, 1L); // loaded at START, the clock moved on by a minute
    BatchRecord second = loaded("2024-01-02", 2, 2L);
    BatchRecord third = loaded("2024-01-03", 1, 3L);
    readyPartition(TABLE, "2024-01-04", 1); // not loaded
    List<String> firstIds = first.fileIds().stream().sorted().toList();
    List<String> secondIds = second.fileIds().stream().sorted().toList();
    Instant thirdLoaded = ledger.file(third.fileIds().get(0)).orElseThrow().ingestedAt().orElseThrow();

    assertThat(ledger.filesToClean(TABLE, thirdLoaded, 10)).extracting(FileRecord::fileId)
        .containsExactly(firstIds.get(0), firstIds.get(1), secondIds.get(0), secondIds.get(1));
    assertThat(ledger.filesToClean(TABLE, thirdLoaded, 3)).extracting(FileRecord::fileId)
        .containsExactly(firstIds.get(0), firstIds.get(1), secondIds.get(0));
    assertThat(ledger.filesToClean(TABLE, START, 10)).isEmpty();
    assertThat(ledger.filesToClean("lake.other", clock.instant(), 10)).isEmpty();

    ledger.cleanFiles(TABLE, List.of(delete(ledger.file(firstIds.get(1)).orElseThrow(), clock.instant())));

    assertThat(ledger.filesToClean(TABLE, clock.instant(), 10)).extracting(FileRecord::fileId)
        .containsExactly(firstIds.get(0), secondIds.get(0), secondIds.get(1), third.fileIds().get(0));
  }

  @Test
  void filesBeingCleanedListsTheDecisionsWhoseObjectIsStillToRemove() {
    BatchRecord batch = loaded("2024-01-01", 3, 1L);
    List<FileRecord> loadedFiles = files(batch.fileIds());
    ledger.cleanFiles(TABLE, List.of(archive(loadedFiles.get(2), clock.instant())));
    clock.advance(Duration.ofMinutes(1));
    ledger.cleanFiles(TABLE, List.of(delete(loadedFiles.get(0), clock.instant()),
        delete(loadedFiles.get(1), clock.instant())));
    // Oldest decision first, then by file id.
    assertThat(ledger.filesBeingCleaned(TABLE, 10)).extracting(FileRecord::fileId).containsExactly(
        loadedFiles.get(2).fileId(), Collections.min(List.of(loadedFiles.get(0).fileId(), loadedFiles.get(1).fileId())),
        Collections.max(List.of(loadedFiles.get(0).fileId(), loadedFiles.get(1).fileId())));

    ledger.confirmRemoved(List.of(loadedFiles.get(2).fileId(), loadedFiles.get(0).fileId()));

    assertThat(ledger.filesBeingCleaned(TABLE, 10)).extracting(FileRecord::fileId)
        .containsExactly(loadedFiles.get(1).fileId());
    assertThat(ledger.filesBeingCleaned(TABLE, 1)).hasSize(1);
    assertThat(ledger.filesBeingCleaned("lake.other", 10)).isEmpty();
  }

  @Test
  void rollbackReloadsAnArchivedFileFromItsArchiveAndSupersedesADeletedOne() {
    BatchRecord batch = loaded("2024-01-01", 2, 1L);
    List<FileRecord> loadedFiles = files(batch.fileIds());
    Instant cleanedAt = clock.instant();
    ledger.cleanFiles(TABLE, List.of(archive(loadedFiles.get(0), cleanedAt), delete(loadedFiles.get(1), cleanedAt)));
    ledger.confirmRemoved(batch.fileIds());
    ledger.intendChange(rollback("rollback-1", 1L, 0L, List.of(batch.batchId()), List.of(), List.of("2024-01-01"),
        false));

    TableChange applied = ledger.applyChange("rollback-1");

    assertThat(applied.outcome()).contains("1 file(s) to load again, 1 file(s) superseded (their objects deleted by"
        + " landing cleanup), 1 batch(es) rolled back");
    assertReloadedFromArchiveAndDeletedSuperseded(loadedFiles, cleanedAt);
  }

  @Test
  void replayReloadsAnArchivedFileFromItsArchiveAndSupersedesADeletedOne() {
    BatchRecord batch = loaded("2024-01-01", 2, 1L);
    List<FileRecord> loadedFiles = files(batch.fileIds());
    Instant cleanedAt = clock.instant();
    ledger.cleanFiles(TABLE, List.of(archive(loadedFiles.get(0), cleanedAt), delete(loadedFiles.get(1), cleanedAt)));

    assertThat(ledger.reopenPartition(TABLE, "2024-01-01").state()).isEqualTo(PartitionState.READY);

    assertReloadedFromArchiveAndDeletedSuperseded(loadedFiles, cleanedAt);
  }

  /** The archived file is RECORDED with its archive, read from there; the deleted one SUPERSEDED. */
  private void assertReloadedFromArchiveAndDeletedSuperseded(List<FileRecord> loadedFiles, Instant cleanedAt) {
    FileRecord archived = openAnother(clock).file(loadedFiles.get(0).fileId()).orElseThrow();
    assertThat(archived.state()).isEqualTo(FileState.RECORDED);
    assertThat(archived.ingestedAt()).isEmpty();
    assertThat(archived.cleaned().orElseThrow().archiveUri()).contains(ARCHIVE + archived.name());
    FileRecord deleted = ledger.file(loadedFiles.get(1).fileId()).orElseThrow();
    assertThat(deleted.state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(deleted.cleaned().orElseThrow().action()).isEqualTo(CleanedObject.Action.DELETED);
    assertThat(deleted.quarantineReason()).contains("its object was deleted from the landing by cleanup at "
        + cleanedAt + "; its rows were not reloaded");

    BatchRecord reload = claim(10).orElseThrow();
    assertThat(reload.fileIds()).containsExactly(archived.fileId());
    ManifestFile read = ManifestFile.of(ledger.filesOfBatch(reload.batchId()).get(0));
    assertThat(read.uri()).isEqualTo(archived.uri());
    assertThat(read.readUri()).isEqualTo(ARCHIVE + archived.name());
    assertThat(read.readGeneration()).isEqualTo(7_100L);
    assertThat(read.archive()).contains(new ManifestFile.Archive(ARCHIVE + archived.name(), 7_100L));
    // Loaded again from its archive: INGESTED, still archived, so never a cleanup candidate again.
    ledger.commitBatch(new CommitBatch(reload.batchId(), 5L, METRICS));
    FileRecord reloaded = ledger.file(archived.fileId()).orElseThrow();
    assertThat(reloaded.state()).isEqualTo(FileState.INGESTED);
    assertThat(reloaded.cleaned()).isEqualTo(archived.cleaned());
    clock.advance(Duration.ofDays(1));
    assertThat(ledger.filesToClean(TABLE, clock.instant(), 10)).isEmpty();
    assertThat(ManifestFile.of(ledger.file(loadedFiles.get(1).fileId()).orElseThrow()).archive()).isEmpty();
  }

  private BatchRecord loaded(String partition, int files, long snapshot) {
    readyPartition(TABLE, partition, files);
    BatchRecord batch = claim(100).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), snapshot, METRICS));
    clock.advance(Duration.ofMinutes(1));
    return batch;
  }

  private TableChange rollback(String changeId, long from, long to, List<String> batchIds, List<String> undone,
      List<String> partitions, boolean hold) {
    return new TableChange(changeId, TABLE, TableChange.ChangeKind.ROLLBACK, TableChange.ChangeState.INTENDED,
        Optional.of(from), Optional.of(to), batchIds, undone, partitions, hold, "ops@example.com",
        Optional.of("bad profile change"), Optional.empty(), clock.instant(), clock.instant());
  }

  private TableChange drop(String changeId, String partition, long from) {
    return new TableChange(changeId, TABLE, TableChange.ChangeKind.DROP_PARTITION, TableChange.ChangeState.INTENDED,
        Optional.of(from), Optional.empty(), List.of(), List.of(), List.of(partition), false, "ops@example.com",
        Optional.empty(), Optional.empty(), clock.instant(), clock.instant());
  }

  @Test
  void rollbackOfTwoBatchesLoadsTheirFilesAgainAndMarksThemRolledBack() {
    BatchRecord first = loaded("2024-01-01", 2, 1L);
    BatchRecord second = loaded("2024-01-02", 2, 2L);
    BatchRecord third = loaded("2024-01-03", 1, 3L);

    TableChange intended = ledger.intendChange(rollback("rollback-1", 3L, 1L,
        List.of(second.batchId(), third.batchId()), List.of(), List.of("2024-01-02", "2024-01-03"), false));
    assertThat(intended.state()).isEqualTo(TableChange.ChangeState.INTENDED);
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    clock.advance(Duration.ofMinutes(1));
    TableChange applied = ledger.applyChange("rollback-1");

    assertThat(applied.state()).isEqualTo(TableChange.ChangeState.APPLIED);
    assertThat(applied.outcome()).contains("3 file(s) to load again, 2 batch(es) rolled back");
    assertThat(applied.actor()).isEqualTo("ops@example.com");
    assertThat(applied.reason()).contains("bad profile change");
    assertThat(ledger.change("rollback-1")).contains(applied);
    assertThat(ledger.changes(TABLE)).containsExactly(applied);
    assertThat(ledger.batch(first.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
    assertThat(ledger.batch(second.batchId()).orElseThrow().state()).isEqualTo(BatchState.ROLLED_BACK);
    assertThat(ledger.batch(third.batchId()).orElseThrow().state()).isEqualTo(BatchState.ROLLED_BACK);
    assertThat(ledger.filesOfPartition(TABLE, "2024-01-01")).extracting(FileRecord::state)
        .containsOnly(FileState.INGESTED);
    assertThat(ledger.filesOfPartition(TABLE, "2024-01-02")).allSatisfy(file -> {
      assertThat(file.state()).isEqualTo(FileState.RECORDED);
      assertThat(file.batchId()).isEmpty();
      assertThat(file.snapshotId()).isEmpty();
    });
    PartitionRecord again = ledger.partition(TABLE, "2024-01-02").orElseThrow();
    assertThat(again.state()).isEqualTo(PartitionState.READY);
    assertThat(again.readyAt()).contains(clock.instant());
    BatchRecord reload = claim(100).orElseThrow();
    assertThat(reload.partitions()).containsExactly("2024-01-02", "2024-01-03");
    assertThat(reload.fileIds()).hasSize(3);
  }

  @Test
  void noBatchIsClaimedWhileAChangeOfTheTableIsIntended() {
    BatchRecord first = loaded("2024-01-01", 1, 1L);
    ledger.intendChange(rollback("rollback-1", 1L, 0L, List.of(first.batchId()), List.of(), List.of("2024-01-01"),
        false));
    readyPartition(TABLE, "2024-01-02", 1);

    assertThat(claim(100)).isEmpty();
    assertThat(ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();

    ledger.abandonChange("rollback-1", "the table moved on");
    assertThat(ledger.change("rollback-1").orElseThrow().state()).isEqualTo(TableChange.ChangeState.ABANDONED);
    assertThat(ledger.change("rollback-1").orElseThrow().outcome()).contains("the table moved on");
    assertThat(claim(100).orElseThrow().partitions()).containsExactly("2024-01-02");
  }

  @Test
  void aChangeIsRefusedWhileABatchIsInFlightOrAnotherChangeIsUnfinished() {
    BatchRecord first = loaded("2024-01-01", 1, 1L);
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord running = claim(100).orElseThrow();

    assertThatThrownBy(() -> ledger.intendChange(rollback("rollback-1", 1L, 0L, List.of(first.batchId()), List.of(),
        List.of("2024-01-01"), false)))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot rollback table lake.clicks: batch " + running.batchId()
            + " is PLANNED; wait for it to settle (status --table lake.clicks)");
    assertThat(ledger.changes(TABLE)).isEmpty();

    ledger.commitBatch(new CommitBatch(running.batchId(), 2L, METRICS));
    ledger.intendChange(drop("drop-1", "2024-01-01", 2L));
    assertThatThrownBy(() -> ledger.intendChange(rollback("rollback-1", 2L, 1L, List.of(running.batchId()),
        List.of(), List.of("2024-01-02"), false)))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageStartingWith("Cannot rollback table lake.clicks: drop-partition drop-1 (asked by ops@example.com at ")
        .hasMessageEndingWith(") is unfinished; run it again to finish it, or abandon it first");
    assertThat(ledger.intendChange(drop("drop-1", "2024-01-01", 2L)).changeId())
        .as("the same change again is a re-run").isEqualTo("drop-1");
  }

  @Test
  void rollbackWithHoldKeepsItsPartitionsOutOfBatchesUntilReleased() {
    loaded("2024-01-01", 1, 1L);
    BatchRecord second = loaded("2024-01-02", 2, 2L);
    ledger.intendChange(rollback("rollback-1", 2L, 1L, List.of(second.batchId()), List.of(), List.of("2024-01-02"),
        true));

    TableChange applied = ledger.applyChange("rollback-1");

    assertThat(applied.outcome()).contains("2 file(s) to load again, 1 batch(es) rolled back, partitions held");
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.HELD);
    ledger.recordFile(file(TABLE, "2024-01-02", "late.parquet"));
    ledger.markReady(marker(TABLE, "2024-01-02"));
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).as("a late file and marker")
        .isEqualTo(PartitionState.HELD);
    assertThat(claim(100)).isEmpty();
    assertThat(ledger.tableStatus(TABLE).partitionsByState()).containsEntry(PartitionState.HELD, 1L);

    PartitionRecord released = ledger.releasePartition(TABLE, "2024-01-02");

    assertThat(released.state()).isEqualTo(PartitionState.READY);
    assertThat(claim(100).orElseThrow().fileIds()).hasSize(3);
    assertThatThrownBy(() -> ledger.releasePartition(TABLE, "2024-01-01"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot release partition lake.clicks/2024-01-01: expected state HELD, actual INGESTED");
  }

  @Test
  void retryOfAHeldPartitionReleasesIt() {
    BatchRecord first = loaded("2024-01-01", 1, 1L);
    ledger.intendChange(rollback("rollback-1", 1L, 0L, List.of(first.batchId()), List.of(), List.of("2024-01-01"),
        true));
    ledger.applyChange("rollback-1");

    assertThat(ledger.retryPartition(TABLE, "2024-01-01").state()).isEqualTo(PartitionState.READY);
  }

  @Test
  void applyingAChangeAgainChangesNothingAndAnAbandonedOneIsNotApplied() {
    BatchRecord first = loaded("2024-01-01", 1, 1L);
    ledger.intendChange(rollback("rollback-1", 1L, 0L, List.of(first.batchId()), List.of(), List.of("2024-01-01"),
        false));
    TableChange applied = ledger.applyChange("rollback-1");
    clock.advance(Duration.ofMinutes(1));

    assertThat(ledger.applyChange("rollback-1")).isEqualTo(applied);
    assertThatThrownBy(() -> ledger.abandonChange("rollback-1", "too late"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot move rollback rollback-1 of table lake.clicks: expected state INTENDED, actual APPLIED");

    ledger.intendChange(drop("drop-1", "2024-01-01", 1L));
    ledger.abandonChange("drop-1", "operator gave up");
    assertThatThrownBy(() -> ledger.applyChange("drop-1"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot apply drop-partition drop-1 of table lake.clicks: expected state INTENDED, actual ABANDONED");
    assertThatThrownBy(() -> ledger.applyChange("nope"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("No change nope in the ledger");
  }

  @Test
  void rollbackReachesTheFilesOfAPrunedBatch() {
    BatchRecord first = loaded("2024-01-01", 2, 1L);
    loaded("2024-01-02", 1, 2L);
    loaded("2024-01-03", 1, 3L);
    assertThat(ledger.pruneCommitted(TABLE, 2)).isEqualTo(1);
    assertThat(ledger.batch(first.batchId())).isEmpty();

    ledger.intendChange(rollback("rollback-1", 3L, 0L, List.of(first.batchId()), List.of(), List.of(), false));
    TableChange applied = ledger.applyChange("rollback-1");

    assertThat(applied.outcome()).contains("2 file(s) to load again, 0 batch(es) rolled back");
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(ledger.filesOfPartition(TABLE, "2024-01-01")).extracting(FileRecord::state)
        .containsOnly(FileState.RECORDED);
  }

  @Test
  void droppedPartitionKeepsItsFilesDroppedUntilAReplayLoadsThemAgain() {
    BatchRecord first = loaded("2024-01-01", 2, 1L);
    loaded("2024-01-02", 1, 2L);
    ledger.intendChange(drop("drop-1", "2024-01-01", 2L));

    TableChange applied = ledger.applyChange("drop-1");

    assertThat(applied.outcome()).contains("2 file(s) dropped in 1 partition(s)");
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.DROPPED);
    assertThat(ledger.filesOfPartition(TABLE, "2024-01-01")).allSatisfy(file -> {
      assertThat(file.state()).isEqualTo(FileState.DROPPED);
      assertThat(file.batchId()).contains(first.batchId());
      assertThat(file.quarantineReason()).contains("dropped by drop-partition drop-1");
    });
    assertThat(claim(100)).isEmpty();

    // A late file loads alone; the dropped ones stay out.
    String late = ledger.recordFile(file(TABLE, "2024-01-01", "late.parquet")).file().fileId();
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    BatchRecord lateBatch = claim(100).orElseThrow();
    assertThat(lateBatch.fileIds()).containsExactly(late);
    ledger.commitBatch(new CommitBatch(lateBatch.batchId(), 3L, METRICS));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);

    // replay --force loads everything again, the dropped files too.
    ledger.reopenPartition(TABLE, "2024-01-01");
    assertThat(claim(100).orElseThrow().fileIds()).hasSize(3);
  }

  @Test
  void dropOfAPartitionInFlightOrUnknownIsRefused() {
    readyPartition(TABLE, "2024-01-01", 1);
    claim(100).orElseThrow();

    assertThatThrownBy(() -> ledger.intendChange(drop("drop-1", "2024-01-01", 1L)))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("is PLANNED; wait for it to settle");
    ledger.recordFile(file(TABLE, "2024-01-02", "part-0.parquet"));
    assertThatThrownBy(() -> ledger.intendChange(new TableChange("drop-2", "lake.other",
        TableChange.ChangeKind.DROP_PARTITION, TableChange.ChangeState.INTENDED, Optional.empty(), Optional.empty(),
        List.of(), List.of(), List.of("2024-01-09"), false, "ops", Optional.empty(), Optional.empty(), clock.instant(),
        clock.instant())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot drop-partition table lake.other: no partition 2024-01-09 in the ledger");
  }

  @Test
  void rollbackAcrossADropBringsTheDroppedFilesBack() {
    loaded("2024-01-01", 2, 1L);
    BatchRecord second = loaded("2024-01-02", 1, 2L);
    ledger.intendChange(drop("drop-1", "2024-01-01", 2L));
    ledger.applyChange("drop-1");
    clock.advance(Duration.ofMinutes(1));
    ledger.intendChange(drop("drop-2", "2024-01-02", 3L));
    ledger.applyChange("drop-2");
    clock.advance(Duration.ofMinutes(1));

    // Back to snapshot 1: batch 2 and both drops are undone.
    ledger.intendChange(rollback("rollback-1", 4L, 1L, List.of(second.batchId()), List.of("drop-1", "drop-2"),
        List.of("2024-01-02"), false));
    TableChange applied = ledger.applyChange("rollback-1");

    assertThat(applied.outcome()).contains("1 file(s) to load again, 2 dropped file(s) back in the table, "
        + "1 batch(es) rolled back");
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.filesOfPartition(TABLE, "2024-01-01")).allSatisfy(file -> {
      assertThat(file.state()).isEqualTo(FileState.INGESTED);
      assertThat(file.quarantineReason()).isEmpty();
    });
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(ledger.filesOfPartition(TABLE, "2024-01-02")).extracting(FileRecord::state)
        .containsOnly(FileState.RECORDED);
  }

  protected RecordFile file(String table, String partition, String name) {
    return file(table, partition, name, 1, false);
  }

  protected RecordFile file(String table, String partition, String name, long generation, boolean readyOnArrival) {
    String objectName = "raw/" + table + "/dt=" + partition + "/" + name;
    return new RecordFile(table, partition, BUCKET, objectName, generation, "gs://" + BUCKET + "/" + objectName,
        100, "evt-" + table + "-" + partition + "-" + name + "-" + generation,
        START.minus(Duration.ofMinutes(1)), Optional.empty(), readyOnArrival);
  }

  private static RecordFile withOverwrote(RecordFile command, long overwrote) {
    return new RecordFile(command.table(), command.partition(), command.bucket(), command.name(),
        command.generation(), command.uri(), command.size(), command.eventId(), command.eventTime(),
        Optional.of(overwrote), command.readyOnArrival());
  }

  protected static String prefix(String table, String partition) {
    return "gs://" + BUCKET + "/raw/" + table + "/dt=" + partition + "/";
  }

  protected MarkReady marker(String table, String partition) {
    return new MarkReady(table, partition, prefix(table, partition), "marker-" + table + "-" + partition, START);
  }

  /** Records {@code count} files and the marker; returns the file ids in claim order. */
  protected List<String> readyPartition(String table, String partition, int count) {
    List<String> names = IntStream.range(0, count).mapToObj(i -> "part-" + i + ".parquet").toList();
    return recordAll(table, partition, names);
  }

  /** Records the files, in the order given, and the marker; returns the file ids. */
  private List<String> recordAll(String table, String partition, List<String> names) {
    List<String> ids = new ArrayList<>();
    for (String name : names) {
      ids.add(ledger.recordFile(file(table, partition, name)).file().fileId());
    }
    ledger.markReady(marker(table, partition));
    return ids;
  }

  protected Optional<BatchRecord> claim(int maxFiles) {
    return ledger.claimPartitions(new ClaimPartitions(TABLE, maxFiles, LEASE, false));
  }

  /** Claims and commits until nothing is left; returns each batch's file names. */
  private List<List<String>> claimAndCommitUntilDone(String table, int maxFiles) {
    List<List<String>> ranges = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    long snapshot = 1;
    Optional<BatchRecord> batch;
    while ((batch = ledger.claimPartitions(new ClaimPartitions(table, maxFiles, LEASE, true))).isPresent()) {
      List<String> names = ledger.filesOfBatch(batch.get().batchId()).stream()
          .map(file -> file.name().substring(file.name().lastIndexOf('/') + 1))
          .toList();
      assertThat(names).hasSize(batch.get().fileIds().size()).doesNotHaveDuplicates();
      assertThat(Collections.disjoint(seen, names)).as("no file in two batches: %s", names).isTrue();
      seen.addAll(names);
      ranges.add(names);
      ledger.commitBatch(new CommitBatch(batch.get().batchId(), snapshot++, METRICS));
    }
    return ranges;
  }

  // Operator commands: retry, inspect, quarantine

  /** Claims and fails the partition's batches until it is FAILED; returns the failed batch ids. */
  private List<String> failUntilFailed(String partition, int maxAttempts) {
    List<String> failed = new ArrayList<>();
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      BatchRecord batch = claim(10).orElseThrow();
      clock.advance(Duration.ofMinutes(1));
      ledger.failBatch(new FailBatch(batch.batchId(), "corrupt footer " + attempt, maxAttempts, false));
      failed.add(batch.batchId());
    }
    assertThat(ledger.partition(TABLE, partition).orElseThrow().state()).isEqualTo(PartitionState.FAILED);
    return failed;
  }

  @Test
  void retriedFailedPartitionIsReadyWithAttemptsResetAndItsLastErrorKept() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    failUntilFailed("2024-01-01", 2);
    clock.advance(Duration.ofMinutes(5));

    PartitionRecord retried = ledger.retryPartition(TABLE, "2024-01-01");

    assertThat(retried.state()).isEqualTo(PartitionState.READY);
    assertThat(retried.attempts()).isZero();
    assertThat(retried.lastError()).contains("corrupt footer 2");
    assertThat(retried.readyAt()).contains(clock.instant());
    assertThat(ledger.partition(TABLE, "2024-01-01")).contains(retried);
    BatchRecord batch = claim(10).orElseThrow();
    assertThat(batch.fileIds()).containsExactlyElementsOf(files);
    ledger.commitBatch(new CommitBatch(batch.batchId(), 9L, METRICS));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void retryOfAReadyPartitionOnlyResetsItsAttempts() {
    readyPartition(TABLE, "2024-01-01", 1);
    ledger.failBatch(new FailBatch(claim(10).orElseThrow().batchId(), "executor lost", 3, false));
    Instant readyAt = ledger.partition(TABLE, "2024-01-01").orElseThrow().readyAt().orElseThrow();
    clock.advance(Duration.ofMinutes(1));

    PartitionRecord retried = ledger.retryPartition(TABLE, "2024-01-01");

    assertThat(retried.state()).isEqualTo(PartitionState.READY);
    assertThat(retried.attempts()).isZero();
    assertThat(retried.readyAt()).contains(readyAt);
  }

  @Test
  void retryOfAPartitionInAnotherStateFailsNamingTheStates() {
    readyPartition(TABLE, "2024-01-01", 1);
    claim(10).orElseThrow();

    assertThatThrownBy(() -> ledger.retryPartition(TABLE, "2024-01-01"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot retry partition lake.clicks/2024-01-01: expected state READY or FAILED, actual CLAIMED");
    assertThatThrownBy(() -> ledger.retryPartition(TABLE, "2099-01-01"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot retry partition lake.clicks/2099-01-01: no such partition");
  }

  @Test
  void retryOfAFailedBatchRequeuesOnlyItsPartitionsStillFailedOrReady() {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord batch = claim(10).orElseThrow();
    assertThat(batch.partitions()).containsExactly("2024-01-01", "2024-01-02");
    ledger.failBatch(new FailBatch(batch.batchId(), "job rejected the batch", 1, false));
    // One of its partitions was retried and loaded since: the batch retry leaves it alone.
    ledger.retryPartition(TABLE, "2024-01-02");
    ledger.markReady(marker(TABLE, "2024-01-01")); // a FAILED partition stays FAILED
    BatchRecord other = ledger.claimPartitions(new ClaimPartitions(TABLE, 10, LEASE, false)).orElseThrow();
    assertThat(other.partitions()).containsExactly("2024-01-02");
    ledger.commitBatch(new CommitBatch(other.batchId(), 3L, METRICS));

    List<PartitionRecord> retried = ledger.retryBatch(batch.batchId());

    assertThat(retried).extracting(PartitionRecord::partition).containsExactly("2024-01-01");
    assertThat(retried.get(0).state()).isEqualTo(PartitionState.READY);
    assertThat(retried.get(0).attempts()).isZero();
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.FAILED);
    assertThat(claim(10).orElseThrow().partitions()).containsExactly("2024-01-01");
  }

  @Test
  void retryOfABatchThatIsNotFailedOrUnknownFailsNamingIt() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 3L, METRICS));

    assertThatThrownBy(() -> ledger.retryBatch(batch.batchId()))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot retry batch " + batch.batchId() + ": expected state FAILED, actual COMMITTED");
    assertThatThrownBy(() -> ledger.retryBatch("20240101T000000-deadbeef"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot retry batch 20240101T000000-deadbeef: no such batch");
  }

  /** A batch that claimed both partitions, ran, and gave up with an unknown outcome. */
  private BatchRecord gaveUpWithAnUnknownOutcome() {
    readyPartition(TABLE, "2024-01-01", 2);
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);
    clock.advance(Duration.ofMinutes(1));
    return ledger.failBatch(new FailBatch(batch.batchId(), "gave up after 1 attempt(s); the table may hold the batch: lost", 1, true));
  }

  @Test
  void batchThatGaveUpWithAnUnknownOutcomeKeepsTheFlagThroughRevivalUntilItCommits() {
    BatchRecord failed = gaveUpWithAnUnknownOutcome();

    assertThat(failed.outcomeUnknown()).isTrue();
    assertThat(ledger.batch(failed.batchId()).orElseThrow().outcomeUnknown()).isTrue();
    BatchRecord revived = ledger.reviveBatch(failed.batchId());
    assertThat(revived.outcomeUnknown()).isTrue();
    assertThat(ledger.takeOverExpiredLease(failed.batchId(), LEASE).outcomeUnknown()).isTrue();
    assertThat(ledger.markRunning(failed.batchId(), LEASE).outcomeUnknown()).isTrue();

    BatchCommitted committed = ledger.commitBatch(new CommitBatch(failed.batchId(), 7L, METRICS));

    assertThat(committed.batch().outcomeUnknown()).isFalse();
    assertThat(ledger.batch(failed.batchId()).orElseThrow().outcomeUnknown()).isFalse();
  }

  @Test
  void batchFailedWithAKnownOutcomeHasNoUnknownOutcomeWhateverItsError() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    assertThat(batch.outcomeUnknown()).isFalse();
    ledger.markRunning(batch.batchId(), LEASE);

    // The flag, not the error's words, says what is known.
    BatchRecord failed = ledger.failBatch(
        new FailBatch(batch.batchId(), "rejected: the table may hold the batch, says the user's column", 1, false));

    assertThat(failed.outcomeUnknown()).isFalse();
    assertThat(ledger.batch(batch.batchId()).orElseThrow().outcomeUnknown()).isFalse();
  }

  @Test
  void revivedBatchIsClaimedAgainUnderItsOwnIdAndRecoveredAtOnce() {
    BatchRecord failed = gaveUpWithAnUnknownOutcome();
    List<String> files = failed.fileIds();
    // Quarantined after the batch gave up: stays quarantined, and in the batch's list.
    ledger.quarantineFile(files.get(1), "unreadable footer");
    clock.advance(Duration.ofMinutes(5));

    BatchRecord revived = ledger.reviveBatch(failed.batchId());

    assertThat(revived.state()).isEqualTo(BatchState.PLANNED);
    assertThat(revived.attempts()).isZero();
    assertThat(revived.error()).isEqualTo(failed.error());
    assertThat(revived.fileIds()).isEqualTo(files);
    assertThat(revived.partitions()).containsExactly("2024-01-01", "2024-01-02");
    assertThat(revived.leaseUntil().orElseThrow()).isBefore(clock.instant());
    assertThat(ledger.batch(failed.batchId())).contains(revived);
    assertThat(ledger.filesOfBatch(failed.batchId())).extracting(FileRecord::fileId).containsExactlyElementsOf(files);
    assertThat(ledger.filesOfBatch(failed.batchId())).extracting(FileRecord::state)
        .containsExactly(FileState.CLAIMED, FileState.QUARANTINED, FileState.CLAIMED);
    assertThat(ledger.file(files.get(0)).orElseThrow().batchId()).contains(failed.batchId());
    for (String token : List.of("2024-01-01", "2024-01-02")) {
      PartitionRecord partition = ledger.partition(TABLE, token).orElseThrow();
      assertThat(partition.state()).isEqualTo(PartitionState.CLAIMED);
      assertThat(partition.batchId()).contains(failed.batchId());
      assertThat(partition.attempts()).isZero();
    }
    assertThat(ledger.findExpiredLeases()).extracting(BatchRecord::batchId).containsExactly(failed.batchId());
    // Recovery's path: take over, relaunch (one attempt), commit.
    ledger.takeOverExpiredLease(failed.batchId(), LEASE);
    assertThat(ledger.markRunning(failed.batchId(), LEASE).attempts()).isEqualTo(1);
    ledger.commitBatch(new CommitBatch(failed.batchId(), 7L, METRICS));
    assertThat(ledger.filesOfBatch(failed.batchId())).extracting(FileRecord::state)
        .containsExactly(FileState.INGESTED, FileState.QUARANTINED, FileState.INGESTED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  /**
   * A launch names the job after its number (the Dataproc batch {@code f2i-<id>-a<n>}), so a revived
   * batch's next launch must not reuse a number an earlier launch had: revival resets the attempts
   * that decide giving up, never the launches.
   */
  @Test
  void launchesOnlyGrowAcrossRevivalsWhileAttemptsStartAgain() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    assertThat(batch.launches()).isZero();
    for (int launch = 1; launch <= 3; launch++) {
      if (launch > 1) {
        clock.advance(LEASE.plusMinutes(1));
        ledger.takeOverExpiredLease(batch.batchId(), LEASE);
      }
      BatchRecord running = ledger.markRunning(batch.batchId(), LEASE);
      assertThat(running.attempts()).isEqualTo(launch);
      assertThat(running.launches()).isEqualTo(launch);
    }
    ledger.failBatch(new FailBatch(batch.batchId(), "gave up after 3 attempt(s); the table may hold the batch: lost", 1, true));

    BatchRecord revived = ledger.reviveBatch(batch.batchId());

    assertThat(revived.attempts()).isZero();
    assertThat(revived.launches()).isEqualTo(3);
    assertThat(ledger.batch(batch.batchId()).orElseThrow().launches()).isEqualTo(3);
    ledger.takeOverExpiredLease(batch.batchId(), LEASE);
    BatchRecord relaunched = ledger.markRunning(batch.batchId(), LEASE);
    assertThat(relaunched.attempts()).isEqualTo(1);
    assertThat(relaunched.launches()).isEqualTo(4);

    // A second revival goes on counting.
    ledger.failBatch(new FailBatch(batch.batchId(), "gave up after 1 attempt(s); the table may hold the batch: lost", 1, true));
    assertThat(ledger.reviveBatch(batch.batchId()).launches()).isEqualTo(4);
    ledger.takeOverExpiredLease(batch.batchId(), LEASE);
    assertThat(ledger.markRunning(batch.batchId(), LEASE).launches()).isEqualTo(5);
  }

  @Test
  void reviveOfABatchThatIsNotFailedOrUnknownFailsNamingIt() {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();

    assertThatThrownBy(() -> ledger.reviveBatch(batch.batchId()))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot revive batch " + batch.batchId() + ": expected state FAILED, actual PLANNED");
    assertThatThrownBy(() -> ledger.reviveBatch("20240101T000000-deadbeef"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot revive batch 20240101T000000-deadbeef: no such batch");
    assertThat(ledger.batch(batch.batchId())).contains(batch);
  }

  @Test
  void reviveOfABatchWhoseFileWasClaimedSinceFailsNamingItAndChangesNothing() {
    BatchRecord failed = gaveUpWithAnUnknownOutcome();
    // The operator re-queued one partition, and a new batch claimed its file.
    ledger.retryPartition(TABLE, "2024-01-02");
    BatchRecord other = claim(10).orElseThrow();
    assertThat(other.partitions()).containsExactly("2024-01-02");
    String taken = other.fileIds().get(0);
    FileRecord takenFile = ledger.file(taken).orElseThrow();
    PartitionRecord first = ledger.partition(TABLE, "2024-01-01").orElseThrow();

    assertThatThrownBy(() -> ledger.reviveBatch(failed.batchId()))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot revive batch " + failed.batchId() + ": its file " + taken + " (" + takenFile.uri()
            + ") was claimed or loaded since: expected state RECORDED, actual CLAIMED");

    assertThat(ledger.batch(failed.batchId())).contains(failed);
    assertThat(ledger.file(taken)).contains(takenFile);
    assertThat(ledger.file(failed.fileIds().get(0)).orElseThrow().state()).isEqualTo(FileState.RECORDED);
    assertThat(ledger.partition(TABLE, "2024-01-01")).contains(first);
    assertThat(first.state()).isEqualTo(PartitionState.FAILED);
    assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().batchId()).contains(other.batchId());
  }

  @Test
  void releasedFileOfAnIngestedPartitionIsLoadedByTheNextBatch() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord first = claim(10).orElseThrow();
    ledger.quarantineFile(files.get(0), "corrupt footer");
    ledger.commitBatch(new CommitBatch(first.batchId(), 1L, METRICS));
    assertThat(ledger.quarantinedFiles()).extracting(FileRecord::fileId).containsExactly(files.get(0));
    clock.advance(Duration.ofMinutes(1));

    FileRecord released = ledger.releaseFile(files.get(0));

    assertThat(released.state()).isEqualTo(FileState.RECORDED);
    assertThat(released.quarantineReason()).isEmpty();
    assertThat(released.batchId()).isEmpty();
    assertThat(ledger.file(files.get(0))).contains(released);
    assertThat(ledger.quarantinedFiles()).isEmpty();
    PartitionRecord partition = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(partition.state()).isEqualTo(PartitionState.READY);
    assertThat(partition.readyAt()).contains(clock.instant());
    assertThat(claim(10).orElseThrow().fileIds()).containsExactly(files.get(0));
  }

  @Test
  void releasedFileOfAnOpenPartitionWaitsForTheMarker() {
    String id = ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet")).file().fileId();
    ledger.quarantineFile(id, "unreadable");

    ledger.releaseFile(id);

    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
    assertThat(ledger.file(id).orElseThrow().state()).isEqualTo(FileState.RECORDED);
  }

  @Test
  void releasingAFileThatIsNotQuarantinedOrUnknownFailsNamingIt() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    String uri = ledger.file(files.get(0)).orElseThrow().uri();

    assertThatThrownBy(() -> ledger.releaseFile(files.get(0)))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot release file " + files.get(0) + " (" + uri + ") from the quarantine: expected state"
            + " QUARANTINED, actual RECORDED");
    assertThatThrownBy(() -> ledger.releaseFile("no-such-id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot release file no-such-id: no such file");
  }

  @Test
  void quarantinedFilesOfEveryTableAreListedInOrder() {
    List<String> views = readyPartition("lake.views", "2024-01-01", 1);
    List<String> late = readyPartition(TABLE, "2024-01-02", 2);
    List<String> early = readyPartition(TABLE, "2024-01-01", 1);
    for (String id : List.of(late.get(1), views.get(0), early.get(0), late.get(0))) {
      ledger.quarantineFile(id, "bad " + id);
    }

    assertThat(ledger.quarantinedFiles()).extracting(FileRecord::fileId)
        .containsExactly(early.get(0), late.get(0), late.get(1), views.get(0));
    assertThat(ledger.quarantinedFiles().get(0).quarantineReason()).contains("bad " + early.get(0));
  }

  @Test
  void releasedMessageIsDeletedOnce() {
    ledger.quarantineMessage(new QuarantinedMessage("msg-1", "no table matches", "{}", Optional.empty(), START));
    ledger.quarantineMessage(new QuarantinedMessage("projects/p/x.y", "odd id", "{}", Optional.empty(), START));

    assertThat(ledger.releaseMessage("msg-1")).isTrue();
    assertThat(ledger.releaseMessage("msg-1")).isFalse();
    assertThat(ledger.releaseMessage("projects/p/x.y")).isTrue();
    assertThat(ledger.quarantinedMessages()).isEmpty();
  }

  @Test
  void filesNamedListsEveryGenerationOfOneObjectOldestFirst() {
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet", 7, false));
    ledger.recordFile(withOverwrote(file(TABLE, "2024-01-01", "part-0.parquet", 12, false), 7));
    ledger.recordFile(file(TABLE, "2024-01-01", "part-1.parquet", 3, false));
    String name = file(TABLE, "2024-01-01", "part-0.parquet").name();

    List<FileRecord> generations = ledger.filesNamed(BUCKET, name);

    assertThat(generations).extracting(FileRecord::generation).containsExactly(7L, 12L);
    assertThat(generations.get(1).overwroteGeneration()).contains(7L);
    assertThat(ledger.filesNamed("other-bucket", name)).isEmpty();
  }

  @Test
  void batchesOfPartitionAreTheStoredBatchesThatClaimedItOldestFirst() {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);
    readyPartition("lake.views", "2024-01-01", 1);
    BatchRecord failed = claim(1).orElseThrow();
    ledger.failBatch(new FailBatch(failed.batchId(), "executor lost", 3, false));
    clock.advance(Duration.ofSeconds(1));
    BatchRecord committed = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(committed.batchId(), 5L, METRICS));
    ledger.claimPartitions(new ClaimPartitions("lake.views", 10, LEASE, false)).orElseThrow();

    assertThat(ledger.batchesOfPartition(TABLE, "2024-01-01")).extracting(BatchRecord::batchId)
        .containsExactly(failed.batchId(), committed.batchId());
    assertThat(ledger.batchesOfPartition(TABLE, "2024-01-02")).extracting(BatchRecord::batchId)
        .containsExactly(committed.batchId());
    assertThat(ledger.batchesOfPartition(TABLE, "2024-01-01").get(1).snapshotId()).contains(5L);
    assertThat(ledger.batchesOfPartition(TABLE, "2099-01-01")).isEmpty();
  }

  @Test
  void batchesOfATableAreEveryStoredBatchOfItInEveryStateOldestFirst() {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);
    readyPartition(TABLE, "2024-01-03", 1);
    readyPartition("lake.views", "2024-01-01", 1);
    BatchRecord failed = claim(1).orElseThrow();
    ledger.failBatch(new FailBatch(failed.batchId(), "executor lost", 3, false));
    clock.advance(Duration.ofSeconds(1));
    BatchRecord committed = claim(2).orElseThrow();
    ledger.commitBatch(new CommitBatch(committed.batchId(), 5L, METRICS));
    clock.advance(Duration.ofSeconds(1));
    BatchRecord planned = claim(10).orElseThrow();
    ledger.claimPartitions(new ClaimPartitions("lake.views", 10, LEASE, false)).orElseThrow();

    assertThat(ledger.batches(TABLE)).extracting(BatchRecord::batchId, BatchRecord::state)
        .containsExactly(tuple(failed.batchId(), BatchState.FAILED), tuple(committed.batchId(), BatchState.COMMITTED),
            tuple(planned.batchId(), BatchState.PLANNED));
    assertThat(ledger.batches(TABLE).get(1).snapshotId()).contains(5L);
    assertThat(ledger.batches("lake.nothing")).isEmpty();
  }
}
