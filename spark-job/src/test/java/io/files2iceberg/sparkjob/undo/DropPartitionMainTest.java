package io.files2iceberg.sparkjob.undo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.load.CommitMarker;
import io.files2iceberg.sparkjob.undo.UndoTables.Ran;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DropPartitionMain} on real Iceberg tables in the embedded catalog: a date partition the
 * table is partitioned by, and a string partition column of an unpartitioned table (a row-level
 * delete). Each test has a table of its own; one session for the class.
 */
class DropPartitionMainTest {
  private static final String KEY = "files2iceberg-drop-partition";
  private static final String DATE_PARTITIONS = """
      extract.batch-file { partition-type = date, pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+", date-format = yyyy-MM-dd }
      """;
  private static final String REGION_PARTITIONS = """
      extract.batch-file { pattern = ".+/region=([a-z]+)/.+" }
      transform.rename-columns { region = area }
      """;

  @TempDir static Path root;
  static UndoTables tables;

  @BeforeAll
  static void session() {
    tables = new UndoTables(root);
    tables.spark.sql("CREATE NAMESPACE IF NOT EXISTS local.d");
  }

  /** A table partitioned by day: rows 1 and 2 on 2026-12-01, row 3 on 2026-12-02, one batch each day. */
  private static void twoDays(String table) throws Exception {
    tables.spark.sql("CREATE TABLE " + table + " (id INT, dt DATE) USING iceberg PARTITIONED BY (dt)");
    tables.commit(table, Map.of(CommitMarker.BATCH_ID, "b1"),
        "INSERT INTO " + table + " VALUES (1, DATE '2026-12-01'), (2, DATE '2026-12-01')");
    tables.commit(table, Map.of(CommitMarker.BATCH_ID, "b2"), "INSERT INTO " + table + " VALUES (3, DATE '2026-12-02')");
  }

  private static Ran drop(String table, String profileLines, String partition, String changeId, String... args)
      throws Exception {
    List<String> all = new ArrayList<>(List.of("--profile", tables.profile(table, profileLines), "--table", table,
        "--partition", partition, "--change-id", changeId));
    all.addAll(List.of(args));
    DropPartitionRequest request = DropPartitionRequest.parse(all.toArray(String[]::new));
    return UndoTables.run((out, err) -> DropPartitionMain.run(tables.spark, request, out, err));
  }

  @Test
  void droppingADayLeavesOnlyTheOtherDaysRowsInOneCommitThatSaysSo() throws Exception {
    String table = "local.d.days";
    twoDays(table);

    Ran ran = drop(table, DATE_PARTITIONS, "2026-12-01", "drop-1");

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(tables.rows(table)).containsExactly("[3,2026-12-02]");
    Snapshot dropped = tables.load(table).currentSnapshot();
    assertThat(dropped.summary()).containsEntry(ChangeSummary.CHANGE, "drop-partition")
        .containsEntry(ChangeSummary.CHANGE_ID, "drop-1")
        .containsEntry(ChangeSummary.PARTITIONS, "[\"2026-12-01\"]")
        .containsEntry(ChangeSummary.PARTITIONS_COUNT, "1")
        .containsEntry(ChangeSummary.ROWS_DELETED, "2");
    JsonNode outcome = ran.result(KEY);
    assertThat(outcome.path("outcome").asText()).isEqualTo("dropped");
    assertThat(outcome.path("rowsDeleted").asLong()).isEqualTo(2);
    assertThat(outcome.path("column").asText()).isEqualTo("dt");
    assertThat(outcome.path("snapshotId").asLong()).isEqualTo(dropped.snapshotId());
  }

  @Test
  void droppingAgainWithTheSameChangeIdChangesNothing() throws Exception {
    String table = "local.d.again";
    twoDays(table);
    Ran first = drop(table, DATE_PARTITIONS, "2026-12-01", "drop-2");
    Snapshot dropped = tables.load(table).currentSnapshot();
    tables.commit(table, Map.of(CommitMarker.BATCH_ID, "b3"), "INSERT INTO " + table + " VALUES (4, DATE '2026-12-01')");
    Snapshot later = tables.load(table).currentSnapshot();

    Ran again = drop(table, DATE_PARTITIONS, "2026-12-01", "drop-2");

    assertThat(first.code()).as(first.err()).isEqualTo(0);
    assertThat(again.code()).as(again.err()).isEqualTo(0);
    JsonNode outcome = again.result(KEY);
    assertThat(outcome.path("outcome").asText()).isEqualTo("already-applied");
    assertThat(outcome.path("alreadyApplied").asBoolean()).isTrue();
    assertThat(outcome.path("snapshotId").asLong()).isEqualTo(dropped.snapshotId());
    assertThat(outcome.path("rowsDeleted").asLong()).isEqualTo(2);
    assertThat(tables.load(table).currentSnapshot().snapshotId()).isEqualTo(later.snapshotId());
    assertThat(tables.rows(table)).containsExactly("[3,2026-12-02]", "[4,2026-12-01]");
  }

  @Test
  void aDryRunCountsThePartitionsRowsAndDeletesNone() throws Exception {
    String table = "local.d.dry";
    twoDays(table);
    Snapshot before = tables.load(table).currentSnapshot();

    Ran ran = drop(table, DATE_PARTITIONS, "2026-12-01", "drop-3", "--dry-run");

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(ran.result(KEY).path("outcome").asText()).isEqualTo("planned");
    assertThat(ran.result(KEY).path("rowsDeleted").asLong()).isEqualTo(2);
    assertThat(tables.load(table).currentSnapshot().snapshotId()).isEqualTo(before.snapshotId());
    assertThat(tables.rows(table)).hasSize(3);
  }

  @Test
  void aStringPartitionOfAnUnpartitionedTableIsDeletedRowByRowUnderItsRenamedColumn() throws Exception {
    String table = "local.d.regions";
    tables.spark.sql("CREATE TABLE " + table + " (id INT, area STRING) USING iceberg");
    tables.commit(table, Map.of(CommitMarker.BATCH_ID, "b1"),
        "INSERT INTO " + table + " VALUES (1, 'eu'), (2, 'us'), (3, 'eu'), (4, 'eu\\' OR \\'1\\'=\\'1')");

    Ran quoted = drop(table, REGION_PARTITIONS, "eu' OR '1'='1", "drop-4");
    Ran ran = drop(table, REGION_PARTITIONS, "eu", "drop-5");

    assertThat(quoted.code()).as(quoted.err()).isEqualTo(0);
    assertThat(quoted.result(KEY).path("rowsDeleted").asLong()).isEqualTo(1);
    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(ran.result(KEY).path("column").asText()).isEqualTo("area");
    assertThat(tables.rows(table)).containsExactly("[2,us]");
  }

  @Test
  void anEmptyPartitionIsDroppedWithZeroRowsInACommitThatRecordsTheChange() throws Exception {
    String table = "local.d.empty";
    twoDays(table);

    Ran ran = drop(table, DATE_PARTITIONS, "2026-12-09", "drop-6");
    Ran again = drop(table, DATE_PARTITIONS, "2026-12-09", "drop-6");

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(ran.result(KEY).path("rowsDeleted").asLong()).isEqualTo(0);
    assertThat(tables.load(table).currentSnapshot().summary()).containsEntry(ChangeSummary.CHANGE_ID, "drop-6")
        .containsEntry(ChangeSummary.ROWS_DELETED, "0");
    assertThat(again.result(KEY).path("outcome").asText()).isEqualTo("already-applied");
    assertThat(tables.rows(table)).hasSize(3);
  }

  @Test
  void aTableWithoutThePartitionColumnIsRefused() throws Exception {
    String table = "local.d.nocolumn";
    tables.spark.sql("CREATE TABLE " + table + " (id INT, day DATE) USING iceberg");

    Ran ran = drop(table, DATE_PARTITIONS, "2026-12-01", "drop-7");
    Ran notADate = drop("local.d.days", DATE_PARTITIONS, "1 Dec", "drop-8");

    assertThat(ran.code()).isEqualTo(2);
    assertThat(ran.err()).isEqualTo("files2iceberg: table " + table + " has no column dt, the partition column of its"
        + " profile (extract.batch-file.partition-column dt): cannot tell the rows of partition 2026-12-01 apart"
        + System.lineSeparator());
    assertThat(ran.result(KEY).path("outcome").asText()).isEqualTo("refused");
    assertThat(notADate.code()).isEqualTo(2);
    assertThat(notADate.err()).contains("table local.d.days: partition \"1 Dec\" is not an ISO date");
  }
}
