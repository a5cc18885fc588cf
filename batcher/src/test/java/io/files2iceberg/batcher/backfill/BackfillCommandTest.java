package io.files2iceberg.batcher.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.cli.OperatorCommandsFixture;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code backfill} on a landing folder and the embedded ledger: what it lists and records, resuming
 * after {@code --limit}, and {@code --dry-run}.
 */
class BackfillCommandTest extends OperatorCommandsFixture {
  @Test
  void backfillInterruptedByItsLimitResumesWithoutListingWhatItRecorded() throws Exception {
    for (int day = 1; day <= 6; day++) {
      write("2024010" + day, "part-0.csv", "id\n" + day + "\n");
      write("2024010" + day, "_SUCCESS", "");
    }
    write("20240107", "part-0.csv", "id\n7\n"); // no marker yet

    assertThat(command("backfill", "--table", TABLE, "--limit", "3", "--json")).as(err.toString()).isZero();
    JsonNode first = JsonLinesOutput.one("backfill_summary", JsonLinesOutput.parse(out.toString()));
    assertThat(first.get("recordedPartitions").toString()).isEqualTo("[\"2024-01-01\",\"2024-01-02\",\"2024-01-03\"]");
    assertThat(first.get("remaining").asInt()).isEqualTo(4);
    assertThat(first.get("listCalls").asInt()).as("one folder read, then one per partition recorded").isEqualTo(4);
    assertThat(err.toString()).contains("[backfill] found 7 partition folder(s)")
        .contains("[backfill] recorded 3/7 partition(s): 2024-01-03 (1 new file(s))");

    assertThat(command("backfill", "--table", TABLE)).as(err.toString()).isZero();
    assertThat(out.toString()).isEqualTo("""
        backfill %s every partition: 7 partition folder(s) found, 5 list call(s)
          recorded: 4 partition(s), 4 new file(s), 0 already known
          skipped, already recorded: 3 partition(s)
          waiting for their success marker: 2024-01-07
          the next batcher run loads them, oldest first (or pass --run)
        """.formatted(TABLE));

    assertThat(command("backfill", "--table", TABLE, "--json")).isZero();
    JsonNode third = JsonLinesOutput.one("backfill_summary", JsonLinesOutput.parse(out.toString()));
    assertThat(third.get("skipped")).hasSize(6);
    assertThat(third.get("filesRecorded").asInt()).isZero();
    assertThat(third.get("listCalls").asInt()).as("the folders, and the one partition still without marker")
        .isEqualTo(2);
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.partitions(TABLE)).extracting(p -> p.state()).containsExactly(PartitionState.READY,
          PartitionState.READY, PartitionState.READY, PartitionState.READY, PartitionState.READY, PartitionState.READY,
          PartitionState.OPEN);
      assertThat(ledger.filesOfPartition(TABLE, "2024-01-04")).extracting(FileRecord::eventId).containsExactly("backfill");
    }
  }

  @Test
  void backfillDryRunChangesNothing() throws Exception {
    write("20240101", "part-0.csv", "id\n1\n");
    write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.tables()).isEmpty();
    }

    assertThat(command("backfill", "--table", TABLE, "--dry-run")).isZero();

    assertThat(out.toString()).startsWith("backfill (dry run) " + TABLE).contains("1 new file(s)");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.tables()).isEmpty();
    }
  }
}
