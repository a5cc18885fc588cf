package io.files2iceberg.sparkjob.undo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.load.CommitMarker;
import io.files2iceberg.sparkjob.undo.UndoTables.Ran;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RollbackMain} on real Iceberg tables in the embedded catalog: batches are commits carrying
 * the batch id and the partitions in their summaries, as the job writes them. Each test has a table
 * of its own; one session for the class.
 */
class RollbackMainTest {
  private static final String KEY = "files2iceberg-rollback";

  @TempDir static Path root;
  static UndoTables tables;

  @BeforeAll
  static void session() {
    tables = new UndoTables(root);
    tables.spark.sql("CREATE NAMESPACE IF NOT EXISTS local.r");
  }

  /** A batch's summary: its id and its partitions. */
  private static Map<String, String> batch(String batchId, String... partitions) {
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put(CommitMarker.BATCH_ID, batchId);
    summary.putAll(ChangeSummary.partitions(List.of(partitions)));
    return summary;
  }

  /** A table of three batches, each inserting one row into a day of its own: their snapshots, oldest first. */
  private static List<Snapshot> threeBatches(String table) throws Exception {
    tables.spark.sql("CREATE TABLE " + table + " (id INT, dt DATE) USING iceberg PARTITIONED BY (dt)");
    List<Snapshot> snapshots = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      snapshots.add(tables.commit(table, batch("b" + i, "2026-12-0" + i),
          "INSERT INTO " + table + " VALUES (" + i + ", DATE '2026-12-0" + i + "')"));
    }
    return snapshots;
  }

  /** Adds the column {@code note}, then a fourth batch with a value there: its snapshot. */
  private static Snapshot fourthWithANewColumn(String table) throws Exception {
    tables.spark.sql("ALTER TABLE " + table + " ADD COLUMN note STRING");
    return tables.commit(table, batch("b4", "2026-12-04"),
        "INSERT INTO " + table + " VALUES (4, DATE '2026-12-04', 'new')");
  }

  /**
   * The rejected rows (one per batch) and the tombstones (of key 7, each batch raising its version)
   * of batches b1 to b3, as the job writes them: each commit carries its batch id. Returns the
   * tombstones' snapshot of b1.
   */
  private static Snapshot sideTablesOfThreeBatches(String table) throws Exception {
    String rejected = table + "__rejected";
    String deletes = table + "__deletes";
    tables.spark.sql("CREATE TABLE " + rejected + " (batch_id STRING, reason STRING) USING iceberg");
    tables.spark.sql("CREATE TABLE " + deletes + " (id INT, version INT, _batch_id STRING) USING iceberg");
    Snapshot tombstonesOfFirst = null;
    for (int i = 1; i <= 3; i++) {
      tables.commit(rejected, Map.of(CommitMarker.BATCH_ID, "b" + i),
          "INSERT INTO " + rejected + " VALUES ('b" + i + "', 'bad " + i + "')");
      Snapshot tombstones = tables.commit(deletes, Map.of(CommitMarker.BATCH_ID, "b" + i), "MERGE INTO " + deletes
          + " t USING (SELECT 7 AS id, " + i + " AS version, 'b" + i + "' AS _batch_id) s ON t.id = s.id"
          + " WHEN MATCHED AND s.version > t.version THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
      tombstonesOfFirst = i == 1 ? tombstones : tombstonesOfFirst;
    }
    return tombstonesOfFirst;
  }

  /** The table holds these rows at this snapshot still. */
  private static void assertUnchanged(String table, List<String> rows, Snapshot current) throws Exception {
    assertThat(tables.rows(table)).isEqualTo(rows);
    assertThat(tables.load(table).currentSnapshot().snapshotId()).isEqualTo(current.snapshotId());
  }

  private static Ran rollback(String table, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("--profile", tables.profile(table, ""), "--table", table));
    all.addAll(List.of(args));
    RollbackRequest request = RollbackRequest.parse(all.toArray(String[]::new));
    return UndoTables.run((out, err) -> RollbackMain.run(tables.spark, request, out, err));
  }

  private static String id(Snapshot snapshot) {
    return Long.toString(snapshot.snapshotId());
  }

  @Test
  void rollingBackTwoBatchesLeavesTheTableAsAfterTheFirst() throws Exception {
    String table = "local.r.two";
    tables.spark.sql("CREATE TABLE " + table + " (id INT, dt DATE) USING iceberg PARTITIONED BY (dt)");
    Snapshot first = tables.commit(table, batch("b1", "2026-12-01"),
        "INSERT INTO " + table + " VALUES (1, DATE '2026-12-01')");
    List<String> afterFirst = tables.rows(table);
    tables.commit(table, batch("b2", "2026-12-01", "2026-12-02"),
        "INSERT INTO " + table + " VALUES (2, DATE '2026-12-01'), (3, DATE '2026-12-02')");
    Snapshot third = tables.commit(table, batch("b3", "2026-12-03"),
        "INSERT INTO " + table + " VALUES (4, DATE '2026-12-03')");
    Path result = root.resolve("two.json");

    Ran ran = rollback(table, "--to-snapshot", id(first), "--expect-current", id(third), "--result", result.toString());

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(tables.rows(table)).isEqualTo(afterFirst);
    assertThat(tables.load(table).currentSnapshot().snapshotId()).isEqualTo(first.snapshotId());
    JsonNode outcome = ran.result(KEY);
    assertThat(outcome.path("outcome").asText()).isEqualTo("rolled-back");
    assertThat(outcome.path("alreadyRolledBack").asBoolean()).isFalse();
    assertThat(outcome.path("fromSnapshot").asLong()).isEqualTo(third.snapshotId());
    assertThat(outcome.path("targetSnapshot").asLong()).isEqualTo(first.snapshotId());
    assertThat(outcome.path("order").asText()).isEqualTo("newest-first");
    assertThat(outcome.path("batchIds").toString()).isEqualTo("[\"b3\",\"b2\"]");
    assertThat(outcome.path("undone").get(0).path("partitions").toString()).isEqualTo("[\"2026-12-03\"]");
    assertThat(outcome.path("undone").get(1).path("partitions").toString())
        .isEqualTo("[\"2026-12-01\",\"2026-12-02\"]");
    assertThat(outcome.path("undone").get(1).path("files2iceberg").asBoolean()).isTrue();
    assertThat(outcome.path("rejected").path("action").asText()).isEqualTo("none");
    assertThat(Files.readString(result).trim()).isEqualTo(ran.out().trim());

    Ran again = rollback(table, "--to-snapshot", id(first), "--expect-current", id(third));

    assertThat(again.code()).as(again.err()).isEqualTo(0);
    assertThat(again.result(KEY).path("outcome").asText()).isEqualTo("already-rolled-back");
    assertThat(again.result(KEY).path("alreadyRolledBack").asBoolean()).isTrue();
    assertThat(again.result(KEY).path("batchIds").toString()).isEqualTo("[\"b3\",\"b2\"]");
    assertThat(tables.rows(table)).isEqualTo(afterFirst);
  }

  @Test
  void aBatchCommittedAfterThePlanRefusesTheRollback() throws Exception {
    String table = "local.r.raced";
    List<Snapshot> batches = threeBatches(table);
    Snapshot fourth = tables.commit(table, batch("b4", "2026-12-04"),
        "INSERT INTO " + table + " VALUES (4, DATE '2026-12-04')");
    List<String> before = tables.rows(table);

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(0)), "--expect-current", id(batches.get(2)));

    assertThat(ran.code()).isEqualTo(2);
    assertThat(ran.err()).startsWith("files2iceberg: table " + table + ": the current snapshot is "
        + fourth.snapshotId() + ", not " + batches.get(2).snapshotId())
        .contains("(batch b4) was committed after the plan");
    assertThat(ran.result(KEY).path("outcome").asText()).isEqualTo("refused");
    assertUnchanged(table, before, fourth);
  }

  @Test
  void aSnapshotOffTheCurrentAncestryIsRefused() throws Exception {
    String table = "local.r.offline";
    List<Snapshot> batches = threeBatches(table);
    assertThat(rollback(table, "--to-snapshot", id(batches.get(0))).code()).isEqualTo(0);
    Snapshot reloaded = tables.commit(table, batch("b5", "2026-12-02"),
        "INSERT INTO " + table + " VALUES (5, DATE '2026-12-02')");

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(1)));

    assertThat(ran.code()).isEqualTo(2);
    assertThat(ran.err()).contains("table " + table + ": snapshot " + batches.get(1).snapshotId()
        + " is not an ancestor of the current snapshot " + reloaded.snapshotId())
        .contains("the current snapshot's ancestors are " + reloaded.snapshotId() + " (batch b5), " + batches.get(0).snapshotId()
            + " (batch b1)");
    assertThat(tables.load(table).currentSnapshot().snapshotId()).isEqualTo(reloaded.snapshotId());
  }

  @Test
  void anExpiredSnapshotIsRefused() throws Exception {
    String table = "local.r.expired";
    List<Snapshot> batches = threeBatches(table);
    Table loaded = tables.load(table);
    loaded.expireSnapshots().expireSnapshotId(batches.get(0).snapshotId()).commit();

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(0)));

    assertThat(ran.code()).isEqualTo(2);
    assertThat(ran.err()).isEqualTo("files2iceberg: table " + table + " has no snapshot " + batches.get(0).snapshotId()
        + ": it was expired or never existed; the oldest snapshot the current one still descends from is "
        + batches.get(1).snapshotId() + ", committed at "
        + java.time.Instant.ofEpochMilli(batches.get(1).timestampMillis()) + System.lineSeparator());
  }

  @Test
  void aTagResolvesToItsSnapshotAndAnUnknownTagIsRefusedNamingTheTags() throws Exception {
    String table = "local.r.tagged";
    List<Snapshot> batches = threeBatches(table);
    tables.load(table).manageSnapshots().createTag(ChangeSummary.tagBefore("b2"), batches.get(0).snapshotId()).commit();

    Ran unknown = rollback(table, "--to-tag", ChangeSummary.tagBefore("b9"));
    Ran ran = rollback(table, "--to-tag", ChangeSummary.tagBefore("b2"));

    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("table " + table + " has no tag files2iceberg-before-b9; its"
        + " files2iceberg-before-* tags are [files2iceberg-before-b2 (snapshot " + batches.get(0).snapshotId() + ")]");
    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(ran.result(KEY).path("targetTag").asText()).isEqualTo("files2iceberg-before-b2");
    assertThat(ran.result(KEY).path("batchIds").toString()).isEqualTo("[\"b3\",\"b2\"]");
    assertThat(tables.load(table).currentSnapshot().snapshotId()).isEqualTo(batches.get(0).snapshotId());
  }

  @Test
  void aDryRunReportsThePlanAndChangesNothing() throws Exception {
    String table = "local.r.dry";
    List<Snapshot> batches = threeBatches(table);
    Snapshot fourth = fourthWithANewColumn(table);
    List<String> before = tables.rows(table);

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(1)), "--dry-run");

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    JsonNode outcome = ran.result(KEY);
    assertThat(outcome.path("outcome").asText()).isEqualTo("planned");
    assertThat(outcome.path("dryRun").asBoolean()).isTrue();
    assertThat(outcome.path("tableSnapshot").asLong()).isEqualTo(fourth.snapshotId());
    assertThat(outcome.path("batchIds").toString()).isEqualTo("[\"b4\",\"b3\"]");
    assertThat(outcome.path("schemaDiffers").asBoolean()).isTrue();
    assertThat(outcome.path("columnsSinceTarget").toString()).isEqualTo("[\"note\"]");
    assertUnchanged(table, before, fourth);
  }

  @Test
  void theTableKeepsItsCurrentSchemaWhenItRollsBackPastAnAddedColumn() throws Exception {
    String table = "local.r.schema";
    List<Snapshot> batches = threeBatches(table);
    fourthWithANewColumn(table);

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(2)));

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(ran.result(KEY).path("schemaNote").asText()).startsWith("the table keeps its current schema");
    assertThat(tables.load(table).schema().findField("note")).isNotNull();
    assertThat(tables.spark.sql("SELECT * FROM " + table + " ORDER BY id").collectAsList().toString())
        .isEqualTo("[[1,2026-12-01,null], [2,2026-12-02,null], [3,2026-12-03,null]]");
  }

  @Test
  void theUndoneBatchesRejectedRowsAndTombstonesAreUndoneWithThem() throws Exception {
    String table = "local.r.sides";
    List<Snapshot> batches = threeBatches(table);
    String rejected = table + "__rejected";
    String deletes = table + "__deletes";
    Snapshot tombstonesOfFirst = sideTablesOfThreeBatches(table);

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(0)), "--expect-current", id(batches.get(2)));
    Ran again = rollback(table, "--to-snapshot", id(batches.get(0)), "--expect-current", id(batches.get(2)));

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(tables.rows(rejected)).containsExactly("[b1,bad 1]");
    assertThat(tables.rows(deletes)).containsExactly("[7,1,b1]");
    assertThat(tables.load(deletes).currentSnapshot().snapshotId()).isEqualTo(tombstonesOfFirst.snapshotId());
    JsonNode outcome = ran.result(KEY);
    assertThat(outcome.path("rejected").path("action").asText()).isEqualTo("delete-rows");
    assertThat(outcome.path("rejected").path("rows").asLong()).isEqualTo(2);
    assertThat(outcome.path("tombstones").path("action").asText()).isEqualTo("roll-back");
    assertThat(outcome.path("tombstones").path("toSnapshot").asLong()).isEqualTo(tombstonesOfFirst.snapshotId());
    assertThat(tables.load(rejected).currentSnapshot().summary()).containsEntry(ChangeSummary.CHANGE, "rollback")
        .containsEntry(ChangeSummary.ROWS_DELETED, "2");
    assertThat(again.code()).as(again.err()).isEqualTo(0);
    assertThat(again.result(KEY).path("rejected").path("action").asText()).isEqualTo("none");
    assertThat(again.result(KEY).path("tombstones").path("action").asText()).isEqualTo("none");
    assertThat(tables.rows(rejected)).containsExactly("[b1,bad 1]");
  }

  @Test
  void aRunKilledAfterTheTablesRollbackFinishesTheSideTablesWhenRunAgain() throws Exception {
    String table = "local.r.killed";
    List<Snapshot> batches = threeBatches(table);
    Snapshot tombstonesOfFirst = sideTablesOfThreeBatches(table);
    // What a run killed between its two steps leaves: the table rolled back, the side tables not.
    tables.load(table).manageSnapshots().rollbackTo(batches.get(0).snapshotId()).commit();

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(0)), "--expect-current", id(batches.get(2)));

    assertThat(ran.code()).as(ran.err()).isEqualTo(0);
    assertThat(ran.result(KEY).path("outcome").asText()).isEqualTo("already-rolled-back");
    assertThat(ran.result(KEY).path("batchIds").toString()).isEqualTo("[\"b3\",\"b2\"]");
    assertThat(tables.rows(table + "__rejected")).containsExactly("[b1,bad 1]");
    assertThat(tables.load(table + "__deletes").currentSnapshot().snapshotId())
        .isEqualTo(tombstonesOfFirst.snapshotId());
  }

  @Test
  void aTombstoneCommitOfABatchTheRollbackKeepsRefusesItBeforeTheTableChanges() throws Exception {
    String table = "local.r.inflight";
    List<Snapshot> batches = threeBatches(table);
    sideTablesOfThreeBatches(table);
    String deletes = table + "__deletes";
    Snapshot inFlight = tables.commit(deletes, Map.of(CommitMarker.BATCH_ID, "b4"),
        "INSERT INTO " + deletes + " VALUES (8, 1, 'b4')");

    Ran ran = rollback(table, "--to-snapshot", id(batches.get(0)));

    assertThat(ran.code()).isEqualTo(2);
    assertThat(ran.err()).contains("table " + table + ": its tombstone table " + deletes + " has snapshot "
        + inFlight.snapshotId() + " of batch b4, which the rollback does not undo");
    assertThat(tables.load(table).currentSnapshot().snapshotId()).isEqualTo(batches.get(2).snapshotId());
    assertThat(tables.rows(table + "__rejected")).hasSize(3);
  }
}
