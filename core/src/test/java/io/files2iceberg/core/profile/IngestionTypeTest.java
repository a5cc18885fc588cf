package io.files2iceberg.core.profile;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.BatchFile.IngestionType.ClaimLimits;
import io.files2iceberg.core.profile.BatchFile.IngestionType.Claimed;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each ingestion mode does: how it claims from a real SQLite ledger, how it chunks listed
 * files, whether it checkpoints or replaces the table, what it refuses.
 */
class IngestionTypeTest {
  private static final Instant START = Instant.parse("2024-05-01T10:00:00Z");
  private static final String TABLE = "lake.clicks";
  private static final ClaimLimits LIMITS = new ClaimLimits(TABLE, 100, ClaimWalk.NO_BYTE_CAP, Duration.ofMinutes(5));

  @TempDir Path dir;

  @Test
  void incrementalClaimsEveryReadyPartitionOldestFirstAndSupersedesNothing() throws Exception {
    try (SqliteLedger ledger = readyLedger()) {
      Claimed claimed = IngestionType.INCREMENTAL.claim(ledger, LIMITS).orElseThrow();

      assertThat(claimed.batch().partitions()).containsExactly("2024-01-01", "2024-01-02");
      assertThat(claimed.superseded()).isEmpty();
    }
  }

  @Test
  void incrementalClaimsNoMoreFilesThanTheLimit() throws Exception {
    try (SqliteLedger ledger = readyLedger()) {
      Claimed claimed = IngestionType.INCREMENTAL
          .claim(ledger, new ClaimLimits(TABLE, 1, ClaimWalk.NO_BYTE_CAP, Duration.ofMinutes(5))).orElseThrow();

      assertThat(claimed.batch().partitions()).containsExactly("2024-01-01");
    }
  }

  @Test
  void lastClaimsTheNewestReadyPartitionAndSupersedesTheOlderOnes() throws Exception {
    try (SqliteLedger ledger = readyLedger()) {
      Claimed claimed = IngestionType.LAST.claim(ledger, LIMITS).orElseThrow();

      assertThat(claimed.batch().partitions()).containsExactly("2024-01-02");
      assertThat(claimed.superseded()).containsExactly("2024-01-01");
      assertThat(IngestionType.LAST.claim(ledger, LIMITS)).isEqualTo(Optional.empty());
    }
  }

  @Test
  void onlyLastClaimsOncePerTurn() {
    assertThat(IngestionType.LAST.claimsOncePerTurn()).isTrue();
    assertThat(IngestionType.INCREMENTAL.claimsOncePerTurn()).isFalse();
    assertThat(IngestionType.FULL.claimsOncePerTurn()).isFalse();
  }

  @Test
  void anIncrementalBackfillGoesInBatchesOfMaxBatchSize() {
    List<ManifestFile> files = List.of(file("a", "p1"), file("b", "p1"), file("c", "p2"));

    assertThat(IngestionType.INCREMENTAL.listedChunks(files, 2))
        .containsExactly(files.subList(0, 2), files.subList(2, 3));
  }

  @Test
  void fullLoadsEveryListedFileInOneBatch() {
    List<ManifestFile> files = List.of(file("a", "p1"), file("b", "p1"), file("c", "p2"));

    assertThat(IngestionType.FULL.listedChunks(files, 2)).containsExactly(files);
    assertThat(IngestionType.FULL.listedChunks(List.of(), 2)).isEmpty();
  }

  @Test
  void lastLoadsOnlyTheNewestListedPartitionInOneBatch() {
    List<ManifestFile> files = List.of(file("a", "p1"), file("b", "p2"), file("c", "p2"));

    assertThat(IngestionType.LAST.listedChunks(files, 1)).containsExactly(files.subList(1, 3));
    assertThat(IngestionType.LAST.listedChunks(List.of(), 1)).isEmpty();
  }

  @Test
  void listedBatchesOfAnIncrementalTableAreBackfills() {
    assertThat(IngestionType.INCREMENTAL.listedBatchPrefix()).isEqualTo("backfill");
    assertThat(IngestionType.LAST.listedBatchPrefix()).isEqualTo("last");
    assertThat(IngestionType.FULL.listedBatchPrefix()).isEqualTo("full");
  }

  @Test
  void lastAndFullReplaceTheTableAndOnlyLastReadsItsPartitionsWhole() {
    assertThat(IngestionType.INCREMENTAL.replacesTable()).isFalse();
    assertThat(IngestionType.LAST.replacesTable()).isTrue();
    assertThat(IngestionType.FULL.replacesTable()).isTrue();
    assertThat(IngestionType.INCREMENTAL.readsWholePartitions()).isFalse();
    assertThat(IngestionType.LAST.readsWholePartitions()).isTrue();
    assertThat(IngestionType.FULL.readsWholePartitions()).isFalse();
  }

  @Test
  void onlyFullLoadsWithoutTheLedgersCheckpointAndRefusesReplay() {
    assertThat(IngestionType.INCREMENTAL.checkpoints()).isTrue();
    assertThat(IngestionType.LAST.checkpoints()).isTrue();
    assertThat(IngestionType.FULL.checkpoints()).isFalse();
    assertThat(IngestionType.FULL.whyNotReplayed()).contains("ingestion-type = full: every run loads every file");
    assertThat(IngestionType.INCREMENTAL.whyNotReplayed()).isEmpty();
    assertThat(IngestionType.LAST.whyNotReplayed()).isEmpty();
  }

  @Test
  void aLedgerBatchOfAFullTableIsRecoveredIncrementally() {
    assertThat(IngestionType.FULL.recoveredAs()).isEqualTo(IngestionType.INCREMENTAL);
    assertThat(IngestionType.LAST.recoveredAs()).isEqualTo(IngestionType.LAST);
    assertThat(IngestionType.INCREMENTAL.recoveredAs()).isEqualTo(IngestionType.INCREMENTAL);
  }

  @Test
  void modesThatReplaceTheTableRefuseCdcDeletes() {
    assertThat(IngestionType.LAST.refuses(LoadKeys.LOAD_CDC_OP_COLUMN)).isTrue();
    assertThat(IngestionType.FULL.refuses(LoadKeys.LOAD_CDC_DELETE_FLAG)).isTrue();
    assertThat(IngestionType.INCREMENTAL.refuses(LoadKeys.LOAD_CDC_OP_COLUMN)).isFalse();
    assertThat(IngestionType.LAST.refuses(LoadKeys.LOAD_PRIMARY_KEY)).isFalse();
  }

  @Test
  void eachModeIsFoundByItsCode() {
    for (IngestionType type : IngestionType.values()) {
      assertThat(IngestionType.ofCode(type.code())).contains(type);
    }
    assertThat(IngestionType.ofCode("newest")).isEmpty();
    assertThat(IngestionType.DEFAULT).isEqualTo(IngestionType.INCREMENTAL);
    assertThat(IngestionType.backfill()).isEqualTo(IngestionType.INCREMENTAL);
  }

  /** Two READY partitions of one file each, the older first. */
  private SqliteLedger readyLedger() throws Exception {
    SqliteLedger ledger = SqliteLedger.open(dir.resolve("ledger.db"), new MutableClock(START));
    for (String partition : List.of("2024-01-01", "2024-01-02")) {
      String name = "raw/dt=" + partition + "/part-0.parquet";
      ledger.recordFile(new RecordFile(TABLE, partition, "landing", name, 1, "gs://landing/" + name, 100,
          "evt-" + partition, START.minus(Duration.ofMinutes(1)), Optional.empty(), false));
      ledger.markReady(new MarkReady(TABLE, partition, "gs://landing/raw/dt=" + partition + "/", "marker-" + partition,
          START));
    }
    return ledger;
  }

  private static ManifestFile file(String name, String partition) {
    return new ManifestFile(name, "gs://landing/" + partition + "/" + name, partition, 1, 10, "evt", START);
  }
}
