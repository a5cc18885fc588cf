package io.files2iceberg.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.SettlingContractTest;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import io.files2iceberg.core.ledger.service.LedgerService;

/**
 * The ledger contract on a store whose commits are bounded (Firestore's 500 writes), plus what the
 * service's settling must show there: a transition larger than one commit that dies between its
 * commits is finished by the next call on its batch or table, and nothing is lost or claimed twice.
 */
public abstract class SettlingContractTest extends LedgerContractTest {

  /** The store's bound on the writes of one commit. */
  protected abstract int writesPerCommit();

  /** The files one settling commit moves: the commit's writes but the batch's own. */
  protected final int settledPerCommit() {
    return writesPerCommit() - 1;
  }

  // --- batches larger than one commit: crash points between the commits ---------------------------

  /** Thrown by the {@code BetweenCommits} hook: the process "dies" there. */
  private static final class Died extends RuntimeException {
    Died(String step) {
      super("died after " + step);
    }
  }

  /** Another ledger over this store that dies at the {@code n}th time it reaches {@code step}. */
  private LedgerService dyingAt(String step, int n) {
    LedgerService dying = (LedgerService) openAnother(clock);
    java.util.concurrent.atomic.AtomicInteger reached = new java.util.concurrent.atomic.AtomicInteger();
    dying.onBetweenCommits((at, batchId) -> {
      if (at.equals(step) && reached.incrementAndGet() == n) {
        throw new Died(step);
      }
    });
    return dying;
  }

  private static final int CRASH_FILES = 700;

  @Test
  void claimThatDiesBeforeWritingItsFilesIsCompletedByTheNextClaimAndNothingIsClaimedTwice() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", CRASH_FILES);
    readyPartition(TABLE, "2024-01-02", 2);

    assertThatThrownBy(() -> dyingAt("claimed", 1).claimPartitions(new ClaimPartitions(TABLE, CRASH_FILES, LEASE, false)))
        .isInstanceOf(Died.class);

    // The claim's transaction committed: the partition and the batch say so; the files do not yet.
    String batchId = ledger.partition(TABLE, "2024-01-01").orElseThrow().batchId().orElseThrow();
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    assertThat(ledger.batch(batchId).orElseThrow().fileIds()).containsExactlyElementsOf(files);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, (long) CRASH_FILES + 2));

    // The next claim (another process) writes the dead claim's files first, then claims only the rest.
    BatchRecord next = openAnother(clock).claimPartitions(new ClaimPartitions(TABLE, 1_000, LEASE, false)).orElseThrow();

    assertThat(next.partitions()).containsExactly("2024-01-02");
    assertThat(next.fileIds()).hasSize(2).doesNotContainAnyElementsOf(files);
    assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::state).containsOnly(FileState.CLAIMED);
    assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::batchId).containsOnly(Optional.of(batchId));
    // And the dead claim's batch is recovered and committed whole.
    clock.advance(LEASE.plusMinutes(1));
    assertThat(ledger.findExpiredLeases()).extracting(BatchRecord::batchId).contains(batchId);
    ledger.takeOverExpiredLease(batchId, LEASE);
    ledger.markRunning(batchId, LEASE);
    ledger.commitBatch(new CommitBatch(batchId, 21L, METRICS));
    assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::state).containsOnly(FileState.INGESTED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void claimThatDiesBeforeWritingItsFilesIsCompletedByRecoveryTakingItOver() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", CRASH_FILES);
    assertThatThrownBy(() -> dyingAt("settled", 1).claimPartitions(new ClaimPartitions(TABLE, 1_000, LEASE, true)))
        .isInstanceOf(Died.class);
    String batchId = ledger.partition(TABLE, "2024-01-01").orElseThrow().batchId().orElseThrow();
    // One commit of files landed before the process died.
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(
        FileState.CLAIMED, (long) settledPerCommit(),
        FileState.RECORDED, (long) CRASH_FILES - settledPerCommit()));
    clock.advance(LEASE.plusMinutes(1));

    ledger.takeOverExpiredLease(batchId, LEASE);

    assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::fileId).containsExactlyElementsOf(files);
    assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::state).containsOnly(FileState.CLAIMED);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.CLAIMED, (long) CRASH_FILES));
  }

  @Test
  void commitThatDiesBetweenItsFileWritesIsCompletedByTheJobsRerunOrTheNextClaim() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", CRASH_FILES);
    BatchRecord batch = claim(1_000).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);

    assertThatThrownBy(() -> dyingAt("settled", 1).commitBatch(new CommitBatch(batch.batchId(), 31L, METRICS)))
        .isInstanceOf(Died.class);

    // The checkpoint is in: the batch is COMMITTED; its partition is held until every file is moved.
    assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(
        FileState.INGESTED, (long) settledPerCommit(),
        FileState.CLAIMED, (long) CRASH_FILES - settledPerCommit()));
    // A late file lands meanwhile: it waits, and is not taken for one of the batch's.
    String late = ledger.recordFile(file(TABLE, "2024-01-01", "part-late.parquet")).file().fileId();

    // The job run again finds its snapshot and commits again: reported as already committed, finished.
    assertThat(openAnother(clock).commitBatch(new CommitBatch(batch.batchId(), 31L, METRICS)).alreadyCommitted()).isTrue();

    assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::fileId).containsExactlyElementsOf(files);
    assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::state).containsOnly(FileState.INGESTED);
    assertThat(ledger.file(late).orElseThrow().state()).isEqualTo(FileState.RECORDED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(claim(1_000).orElseThrow().fileIds()).containsExactly(late);
  }

  @Test
  void commitLargerThanOneWriteCarriesEachFilesCountsOnItsOwnWriteAndAResumedSettlingLeavesThemUnknown() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", CRASH_FILES);
    BatchRecord batch = claim(1_000).orElseThrow();
    Map<String, FileRows> counts = new HashMap<>();
    for (int i = 0; i < files.size(); i++) {
      counts.put(files.get(i), new FileRows(i + 1, i % 2, 0));
    }

    assertThatThrownBy(() -> dyingAt("settled", 1).commitBatch(new CommitBatch(batch.batchId(), 33L, METRICS, counts)))
        .isInstanceOf(Died.class);
    openAnother(clock).commitBatch(new CommitBatch(batch.batchId(), 33L, METRICS));

    List<FileRecord> settled = ledger.filesOfBatch(batch.batchId());
    assertThat(settled).extracting(FileRecord::snapshotId).containsOnly(Optional.of(33L));
    // The files the committing process wrote have their counts; those a later settler wrote are unknown.
    int written = settledPerCommit();
    for (int i = 0; i < settled.size(); i++) {
      assertThat(settled.get(i).rows()).as("file %s", i)
          .isEqualTo(i < written ? Optional.of(counts.get(files.get(i))) : Optional.empty());
    }
  }

  @Test
  void commitThatDiesRightAfterItsCheckpointIsCompletedByTheNextClaimOfTheTable() {
    largeReadyPartition(TABLE, "2024-01-01", CRASH_FILES);
    BatchRecord batch = claim(1_000).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);
    assertThatThrownBy(() -> dyingAt("committed", 1).commitBatch(new CommitBatch(batch.batchId(), 32L, METRICS)))
        .isInstanceOf(Died.class);

    assertThat(openAnother(clock).claimPartitions(new ClaimPartitions(TABLE, 1_000, LEASE, true))).isEmpty();

    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.INGESTED, (long) CRASH_FILES));
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void failureThatDiesBetweenItsFileWritesIsCompletedByTheNextClaimWhichTakesEveryFileOnce() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", CRASH_FILES);
    BatchRecord batch = claim(1_000).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);
    assertThatThrownBy(() -> dyingAt("settled", 1).failBatch(new FailBatch(batch.batchId(), "executor lost", 3, false)))
        .isInstanceOf(Died.class);
    assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.FAILED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);

    BatchRecord again = openAnother(clock).claimPartitions(new ClaimPartitions(TABLE, 1_000, LEASE, true)).orElseThrow();

    assertThat(again.fileIds()).containsExactlyElementsOf(files);
    assertThat(ledger.filesOfBatch(again.batchId())).extracting(FileRecord::batchId).containsOnly(Optional.of(again.batchId()));
    PartitionRecord partition = ledger.partition(TABLE, "2024-01-01").orElseThrow();
    assertThat(partition.batchId()).contains(again.batchId());
    assertThat(partition.attempts()).isEqualTo(1);
    assertThat(partition.lastError()).contains("executor lost");
  }

  @Test
  void revivalThatDiesBetweenItsFileWritesIsCompletedByRecovery() {
    List<String> files = largeReadyPartition(TABLE, "2024-01-01", CRASH_FILES);
    BatchRecord batch = claim(1_000).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);
    ledger.failBatch(new FailBatch(batch.batchId(), "gave up after 1 attempt(s); the table may hold the batch: lost", 1, true));

    assertThatThrownBy(() -> dyingAt("revived", 1).reviveBatch(batch.batchId())).isInstanceOf(Died.class);
    assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, (long) CRASH_FILES));

    assertThat(ledger.findExpiredLeases()).extracting(BatchRecord::batchId).containsExactly(batch.batchId());
    ledger.takeOverExpiredLease(batch.batchId(), LEASE);

    assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::fileId).containsExactlyElementsOf(files);
    assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::state).containsOnly(FileState.CLAIMED);
    assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
  }

  @Test
  void newestClaimThatDiesBeforeSupersedingTheOlderPartitionsIsCompletedByTheNextClaim() {
    List<String> older = IntStream.range(0, 620).mapToObj(i -> String.format("2023-%04d", i)).toList();
    for (String partition : older) {
      ledger.markReady(marker(TABLE, partition));
    }
    readyPartition(TABLE, "2023-9999", 1); // older, with a file: superseded, never loaded
    List<String> newest = readyPartition(TABLE, "2024-01-01", 3);

    assertThatThrownBy(() -> dyingAt("claimed", 1).claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE)))
        .isInstanceOf(Died.class);
    String batchId = ledger.partition(TABLE, "2024-01-01").orElseThrow().batchId().orElseThrow();
    assertThat(ledger.tableStatus(TABLE).partitionsByState())
        .isEqualTo(Map.of(PartitionState.READY, 621L, PartitionState.CLAIMED, 1L));

    // The next newest claim (the batch is in flight: it claims nothing) first supersedes them.
    assertThat(openAnother(clock).claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();

    assertThat(ledger.tableStatus(TABLE).partitionsByState())
        .isEqualTo(Map.of(PartitionState.SUPERSEDED, 621L, PartitionState.CLAIMED, 1L));
    assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::fileId).containsExactlyElementsOf(newest);
    assertThat(ledger.filesOfBatch(batchId)).extracting(FileRecord::state).containsOnly(FileState.CLAIMED);
    ledger.markRunning(batchId, LEASE);
    ledger.commitBatch(new CommitBatch(batchId, 41L, METRICS));
    assertThat(ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();
    assertThat(ledger.tableStatus(TABLE).partitionsByState())
        .isEqualTo(Map.of(PartitionState.SUPERSEDED, 621L, PartitionState.INGESTED, 1L));
  }

  /**
   * A {@code last} partition of 10,000 files (Pub/Sub message ids: the batch document lists them
   * within 1 MiB) is claimed whole and committed, 21 commits of files each (what keeps it within
   * a minute on a quiet emulator): the commits are counted, not timed, as the machine's load decides
   * the time. Failing and reviving a batch larger than one commit is the contract suite's (1,200
   * files); here they would double the test's time.
   */
}
