package io.files2iceberg.batcher.reconcile;

import java.util.Optional;
import java.time.Instant;
import io.files2iceberg.core.ledger.TableChange;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.cli.OperatorCommandsFixture;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code reconcile} on a landing folder and the embedded ledger: the drift it finds, what {@code
 * --fix} records, what it prints and its exit codes.
 */
class ReconcileCommandTest extends OperatorCommandsFixture {
  @Test
  void reconcileFindsExactlyTheLostNotificationsAndFixLandsThemOnce() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path a1 = write("20240101", "part-1.csv", "id\n2\n");
    Path aMarker = write("20240101", "_SUCCESS", "");
    Path b0 = write("20240102", "part-0.csv", "id\n3\n");
    Path b1 = write("20240102", "part-1.csv", "id\n4\n");
    write("20240102", "_SUCCESS", "");
    Path c0 = write("20240103", "part-0.csv", "id\n5\n");
    try (SqliteLedger ledger = ledger()) {
      // Notifications lost on purpose: 2024-01-02's part-1 and marker, 2024-01-03's only file.
      notified(ledger, "2024-01-01", a0);
      notified(ledger, "2024-01-01", a1);
      notifiedMarker(ledger, "2024-01-01", aMarker);
      notified(ledger, "2024-01-02", b0);
    }

    int drift = command("reconcile", "--table", TABLE);

    assertThat(drift).as(err.toString()).isEqualTo(ExitCode.DRIFT);
    assertThat(out.toString()).isEqualTo("""
        reconcile %s every partition: 3 partition(s), 5 data file(s) listed in 4 list call(s): drift found
          missing from the ledger (lost notifications): 2
            %s
            %s
          success marker present but not READY: 1
            2024-01-02
          recorded but gone from the bucket: 0
          stuck READY: 0
        """.formatted(TABLE, "file://" + b1, "file://" + c0));
    assertThat(err.toString()).contains("[reconcile] listed 5 data file(s) in every partition of " + TABLE);

    int fixed = command("reconcile", "--table", TABLE, "--fix");

    assertThat(fixed).as(err.toString()).isZero();
    assertThat(out.toString()).contains("fixed: recorded 2 file(s) and 1 marker(s)");
    try (SqliteLedger ledger = ledger()) {
      assertThat(ledger.filesOfPartition(TABLE, "2024-01-02")).extracting(FileRecord::eventId)
          .containsExactly("msg-part-0.csv", "reconcile");
      assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.READY);
      assertThat(ledger.partition(TABLE, "2024-01-03").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
      assertThat(ledger.tableStatus(TABLE).filesByState()).containsEntry(FileState.RECORDED, 5L);
    }

    int clean = command("reconcile", "--table", TABLE, "--json");

    assertThat(clean).as(err.toString()).isZero();
    // A reconcile line per table, then the summary.
    List<JsonNode> lines = JsonLinesOutput.parse(out.toString());
    assertThat(JsonLinesOutput.kinds(lines)).containsExactly("reconcile", "reconcile_summary");
    assertThat(lines.get(1).get("driftLeft").asBoolean()).isFalse();
    JsonNode report = lines.get(0);
    assertThat(report.get("missingFiles")).isEmpty();
    assertThat(report.get("markedNotReady")).isEmpty();
    assertThat(report.get("listCalls").asInt()).isEqualTo(4);
  }

  @Test
  void reconcileReportsDeletedFilesAndStuckPartitionsWithoutFixingThemAndExitsThreeEvenWithFix() throws Exception {
    Path a0 = write("20240101", "part-0.csv", "id\n1\n");
    Path gone = write("20240101", "part-1.csv", "id\n2\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", a0);
      notified(ledger, "2024-01-01", gone);
      notifiedMarker(ledger, "2024-01-01", marker);
    }
    Files.delete(gone);
    TimeUnit.MILLISECONDS.sleep(1100);

    int code = command("reconcile", "--from", "20240101", "--to", "20240131", "--stuck-after", "1s", "--fix");

    // --fix records missing files and markers only: gone files and stuck partitions stay for an
    // operator, so a scheduled `reconcile --fix` still fails (and alerts) on them.
    assertThat(code).as(err.toString()).isEqualTo(ExitCode.DRIFT);
    assertThat(out.toString())
        .contains("reconcile " + TABLE + " partitions 2024-01-01 to 2024-01-31: 1 partition(s)")
        .contains("recorded but gone from the bucket: 1\n    file://" + gone + "#")
        .contains("stuck READY: 1\n    2024-01-01 (READY since ");

    assertThat(command("reconcile", "--table", TABLE, "--from", "20240102")).isEqualTo(0);
    assertThat(out.toString()).contains("partitions 2024-01-02 to (last): 0 partition(s)").contains("no drift");
  }

  @Test
  void reconcileDoesNotReportADeletedObjectWhoseGenerationTheLedgerHasSuperseded() throws Exception {
    Path kept = write("20240101", "part-0.csv", "id\n1\n");
    Path gone = write("20240101", "part-1.csv", "id\n2\n");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", kept);
      String goneId = notified(ledger, "2024-01-01", gone);
      ledger.supersedeFile(goneId, "deleted before it was read");
    }
    Files.delete(gone);

    int code = command("reconcile", "--table", TABLE, "--json");

    assertThat(code).as(err.toString()).isZero();
    JsonNode report = JsonLinesOutput.one("reconcile", JsonLinesOutput.parse(out.toString()));
    assertThat(report.get("deletedFiles")).as("the job found it gone; the ledger says so").isEmpty();
  }

  @Test
  void reconcileDoesNotReportADeletedObjectWhosePartitionWasDropped() throws Exception {
    Path gone = write("20240101", "part-0.csv", "id\n1\n");
    Path marker = write("20240101", "_SUCCESS", "");
    try (SqliteLedger ledger = ledger()) {
      notified(ledger, "2024-01-01", gone);
      notifiedMarker(ledger, "2024-01-01", marker);
      ingestEverything(ledger);
      Instant now = Instant.now();
      ledger.intendChange(new TableChange("drop-1", TABLE, TableChange.ChangeKind.DROP_PARTITION,
          TableChange.ChangeState.INTENDED, Optional.empty(), Optional.empty(), List.of(), List.of(),
          List.of("2024-01-01"), false, "ops", Optional.empty(), Optional.empty(), now, now));
      ledger.applyChange("drop-1");
    }
    Files.delete(gone);

    int code = command("reconcile", "--table", TABLE, "--json");

    assertThat(code).as(err.toString()).isZero();
    JsonNode report = JsonLinesOutput.one("reconcile", JsonLinesOutput.parse(out.toString()));
    assertThat(report.get("deletedFiles")).as("its rows left the table on purpose; the ledger says so").isEmpty();
  }
}
