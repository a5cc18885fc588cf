package io.files2iceberg.batcher.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.OperatorCommandsFixture;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code replay} on a landing folder and the embedded ledger: what it records and reopens, what it
 * refuses, what it prints.
 */
class ReplayCommandTest extends OperatorCommandsFixture {
  @Test
  void replayOfAnIngestedPartitionRecordsOnlyChangedFilesAndForceReloadsAll() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path a1 = write("20240101", "part-1.csv", "id\n2\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notified(ledger, "2024-01-01", a1);
      notifiedMarker(ledger, "2024-01-01", marker);
      ingestEverything(ledger);
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101")).as(err.toString()).isZero();

    assertThat(out.toString()).startsWith("replay " + TABLE + " partition 2024-01-01: 1 partition(s), 2 data file(s)"
        + " listed in 1 list call(s)\n  recorded: 0 new file(s), 2 already known\n");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }

    Path rewritten = write("20240101", "part-1.csv", "id\n2\n22\n");
    assertThat(command("replay", "--table", TABLE, "--partition", "2024-01-01")).isZero();
    assertThat(out.toString()).contains("recorded: 1 new file(s), 1 already known");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
      BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5), true))
          .orElseThrow();
      assertThat(ledger.filesOfBatch(batch.batchId())).extracting(FileRecord::uri).containsExactly("file://" + rewritten);
      assertThat(ledger.filesOfBatch(batch.batchId()).get(0).eventId()).isEqualTo("replay");
      ledger.commitBatch(new CommitBatch(batch.batchId(), 9, BatchMetrics.EMPTY));
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force", "--dry-run")).isZero();
    assertThat(out.toString()).contains("reopened: 2024-01-01");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }
    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force")).isZero();
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
      assertThat(ledger.filesOfPartition(TABLE, "2024-01-01")).extracting(FileRecord::state)
          .containsOnly(FileState.RECORDED);
    }
  }

  @Test
  void replayForceOfAKeylessAppendTableIsRefusedBecauseItWouldAppendThePartitionTwice() throws Exception {
    Files.writeString(config, Files.readString(config).replace("load.primary-key = [id]\n", ""));
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notifiedMarker(ledger, "2024-01-01", marker);
      ingestEverything(ledger);
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force"))
        .isEqualTo(ExitCode.INVALID);

    assertThat(err.toString()).contains("replay --force: table " + TABLE + " appends without a primary key")
        .contains("append its rows a second time");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }
  }

  @Test
  void replayWithoutCheckpointOfAKeylessAppendTableIsRefusedBecauseItWouldAppendTheFilesAgain() throws Exception {
    Files.writeString(config, Files.readString(config).replace("load.primary-key = [id]\n", ""));
    write("20240101", "part-0.csv", "id\n1\n");
    write("20240101", "_SUCCESS", "");

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--no-checkpoint"))
        .isEqualTo(ExitCode.INVALID);

    assertThat(err.toString()).contains("replay --no-checkpoint: table " + TABLE + " appends without a primary key")
        .contains("a second time");
    assertThat(out.toString()).doesNotContain("file(s) listed");
  }

  @Test
  void replayForceLeavesAClaimedPartitionAndNamesIt() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notifiedMarker(ledger, "2024-01-01", marker);
      ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5), true)).orElseThrow();
    }

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force")).isZero();

    assertThat(out.toString()).contains("reopened: -\n").contains("not reopened: 2024-01-01 (CLAIMED)");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    }
  }

  @Test
  void replaySkipsAPartitionWithoutItsMarker() throws Exception {
    write("20240105", "part-0.csv", "id\n1\n");

    assertThat(command("replay", "--table", TABLE, "--from", "20240101", "--to", "20240110")).isZero();

    assertThat(out.toString()).contains("recorded: 0 new file(s)").contains("skipped, no success marker: 2024-01-05");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.tables()).isEmpty();
    }
  }
}
