package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import io.files2iceberg.sparkjob.extract.LiveGenerations;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change-data deletes ({@code load.cdc}): inserts, updates and deletes of the same keys across
 * files, days and batches leave each key as its newest change says, in both write modes. The
 * expected table is computed here from the fixture's changes, not by the job's code path.
 */
class CdcDeletesTest {
  @TempDir static Path home;
  static JobFixture fixture;
  /** Every batch {@link #loadBatches} loaded, in order. */
  static final List<BatchManifest> loaded = new ArrayList<>();

  static final StructType CHANGES = new StructType()
      .add("id", DataTypes.StringType)
      .add("op", DataTypes.StringType)
      .add("ts", DataTypes.TimestampType)
      .add("val", DataTypes.StringType);

  static final StructType FLAGGED = new StructType()
      .add("id", DataTypes.StringType)
      .add("is_deleted", DataTypes.BooleanType)
      .add("val", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  /** One change as the fixture writes it, with where it sits: batch, file in the batch, row in the file. */
  record Change(String id, String op, String time, String val, String day, int batch, int file, int row) {
    Row toRow() {
      return RowFactory.create(id, op, Timestamp.valueOf("2024-01-01 " + time), val);
    }
  }

  /** Changes of one file: {@code {id, op, time, val}} each. */
  record ChangeFile(String day, String[]... changes) {}

  private static String[] c(String id, String op, String time, String val) {
    return new String[] {id, op, time, val};
  }

  static TableProfile changes(String table, String extra) {
    return byDay(table, "cdc { op-column = op, delete-values = [\"D\"] }", extra);
  }

  /** Keyed on id, partitioned by day, precombined on ts, with {@code cdc} in its load section. */
  private static TableProfile byDay(String table, String cdc, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = yyyy-MM-dd
            partition-column = dt
          }
        }
        load {
          iceberg.table = "local.cdc.%s"
          primary-key = [id]
          partition-by = [dt]
          iceberg.precombine-field = ts
          %s
        }
        %s
        """.formatted(fixture.landing(table), table, cdc, extra));
  }

  /** Writes and loads each batch in turn; returns each batch's report and the changes in load order. */
  private static List<BatchLoadReport> loadBatches(TableProfile profile, String table, List<Change> all,
      List<List<ChangeFile>> batches) {
    List<BatchLoadReport> reports = new ArrayList<>();
    for (int b = 0; b < batches.size(); b++) {
      List<Landed> landed = new ArrayList<>();
      for (int f = 0; f < batches.get(b).size(); f++) {
        ChangeFile file = batches.get(b).get(f);
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < file.changes().length; r++) {
          String[] x = file.changes()[r];
          Change change = new Change(x[0], x[1], x[2], x[3], file.day(), b, f, r);
          all.add(change);
          rows.add(change.toRow());
        }
        Path path = fixture.writeFile("parquet", table + "/dt=" + file.day() + "/b" + b + "f" + f + ".parquet",
            CHANGES, rows);
        landed.add(new Landed(path, file.day(), 1));
      }
      // Without a checkpoint the ledger keeps the partitions claimed: such batches are listed, as a backfill's.
      BatchManifest manifest = profile.extract().saveCheckpoint()
          ? fixture.claimBatch(profile, landed.toArray(Landed[]::new))
          : fixture.unrecordedBatch(profile, table + "-" + loaded.size(), landed.toArray(Landed[]::new));
      loaded.add(manifest);
      reports.add(fixture.load(manifest));
    }
    return reports;
  }

  /**
   * The table the changes should leave: per key, the change with the highest time, ties to the
   * later batch, then the later file, then the later row; a key whose newest change is a delete
   * is absent. Rows as {@code [id,val,dt]}.
   */
  static List<String> expected(List<Change> changes, Comparator<Change> newest) {
    Map<String, Change> winner = new LinkedHashMap<>();
    for (Change change : changes) {
      winner.merge(change.id(), change, (a, b) -> newest.compare(a, b) >= 0 ? a : b);
    }
    return winner.values().stream().filter(c -> !c.op().equals("D")).sorted(Comparator.comparing(Change::id))
        .map(c -> "[" + c.id() + "," + c.val() + "," + c.day() + "]").toList();
  }

  static final Comparator<Change> BY_TIME_THEN_POSITION = Comparator.comparing(Change::time)
      .thenComparingInt(Change::batch).thenComparingInt(Change::file).thenComparingInt(Change::row);

  /** Three batches of inserts, updates and deletes of keys k1..k6, across days. */
  static final List<List<ChangeFile>> MIXED = List.of(
      List.of(
          new ChangeFile("2024-01-01",
              c("k1", "I", "10:00:00", "v1"), c("k2", "I", "10:00:00", "v1"), c("k3", "I", "10:00:00", "v1"),
              c("k4", "I", "10:00:00", "v1"), c("k1", "U", "10:05:00", "v2")),
          // k2's delete is newer than its insert; k5's delete ties with its insert and comes later.
          new ChangeFile("2024-01-02",
              c("k2", "D", "10:01:00", null), c("k3", "U", "10:02:00", "v2"), c("k5", "I", "10:00:00", "v1"),
              c("k5", "D", "10:00:00", null))),
      List.of(
          // k1 deleted; k3's delete is older than its stored row; k6 was never stored.
          new ChangeFile("2024-01-02",
              c("k1", "D", "10:10:00", null), c("k3", "D", "09:00:00", null), c("k4", "U", "10:20:00", "v2"),
              c("k6", "D", "10:00:00", null)),
          // k2's late insert is older than its delete; k4's delete ties with its update, in a later file.
          new ChangeFile("2024-01-03",
              c("k2", "I", "10:00:00", "late"), c("k4", "D", "10:20:00", null))),
      List.of(
          // k1's late insert is older than its delete; k4's insert ties with its delete, in a later
          // batch; k5's update is newer than its delete; k3's update is older than the stored row.
          new ChangeFile("2024-01-03",
              c("k1", "I", "10:05:00", "late"), c("k4", "I", "10:20:00", "again"), c("k5", "U", "10:30:00", "new"),
              c("k3", "U", "09:30:00", "older"))));

  private void mixedChangesLeaveTheNewestChangeOfEachKey(String table, String extra) {
    TableProfile profile = changes(table, extra);
    List<Change> all = new ArrayList<>();

    List<BatchLoadReport> reports = loadBatches(profile, table, all, MIXED);

    List<String> want = expected(all, BY_TIME_THEN_POSITION);
    assertThat(want).containsExactly("[k3,v2,2024-01-02]", "[k4,again,2024-01-03]", "[k5,new,2024-01-03]");
    assertThat(fixture.rows("SELECT id, val, CAST(dt AS STRING) FROM local.cdc." + table + " ORDER BY id"))
        .containsExactlyElementsOf(want);
    assertThat(fixture.spark.table("local.cdc." + table).columns()).doesNotContain("op");
    // Batch 1: k1, k3, k4 inserted; the deletes of k2 and k5 found no stored row.
    assertThat(reports.get(0).metrics().rowsInserted()).isEqualTo(3);
    assertThat(reports.get(0).metrics().rowsDeleted()).isZero();
    assertThat(reports.get(0).metrics().rowsUnchanged()).isEqualTo(2);
    // Batch 2: k1 and k4 deleted; k3's older delete, k6's delete and k2's late insert changed nothing.
    assertThat(reports.get(1).metrics().rowsDeleted()).isEqualTo(2);
    assertThat(reports.get(1).metrics().rowsInserted()).isZero();
    assertThat(reports.get(1).metrics().rowsUpdated()).isZero();
    assertThat(reports.get(1).metrics().rowsUnchanged()).isEqualTo(3);
    // Batch 3: k4 and k5 inserted; k1's late insert and k3's older update changed nothing.
    assertThat(reports.get(2).metrics().rowsInserted()).isEqualTo(2);
    assertThat(reports.get(2).metrics().rowsDeleted()).isZero();
    assertThat(reports.get(2).metrics().rowsUnchanged()).isEqualTo(2);
    // Every delete is remembered with its newest time, even those that found no row.
    assertThat(fixture.rows("SELECT id, CAST(ts AS STRING) FROM local.cdc." + table + "__deletes ORDER BY id"))
        .containsExactly("[k1,2024-01-01 10:10:00]", "[k2,2024-01-01 10:01:00]", "[k3,2024-01-01 09:00:00]",
            "[k4,2024-01-01 10:20:00]", "[k5,2024-01-01 10:00:00]", "[k6,2024-01-01 10:00:00]");
  }

  @Test
  void mixedChangesAcrossFilesDaysAndBatchesLeaveTheNewestChangeOfEachKeyWithCopyOnWrite() {
    mixedChangesLeaveTheNewestChangeOfEachKey("mixed_cow", "");
  }

  @Test
  void mixedChangesAcrossFilesDaysAndBatchesLeaveTheNewestChangeOfEachKeyWithMergeOnRead() {
    mixedChangesLeaveTheNewestChangeOfEachKey("mixed_mor", "load.write-mode = merge-on-read");
    assertThat(fixture.rows("SELECT count(*) FROM local.cdc.mixed_mor.delete_files")).isNotEqualTo(List.of("[0]"));
  }

  @Test
  void replayingABatchWhoseTombstonesAreCommittedButNotItsRowsWritesTheSameTable() {
    String table = "replayed";
    TableProfile profile = changes(table, "extract.save-checkpoint = false");
    List<Change> all = new ArrayList<>();
    loadBatches(profile, table, all, MIXED.subList(0, 1));
    long beforeSecond = fixture.spark.sql("SELECT snapshot_id FROM local.cdc.replayed.snapshots ORDER BY committed_at"
        + " DESC LIMIT 1").first().getLong(0);
    loadBatches(profile, table, all, MIXED.subList(1, 2));
    List<String> once = fixture.rows("SELECT id, val, CAST(dt AS STRING) FROM local.cdc.replayed ORDER BY id");

    // The crash between the two commits: the tombstones stay, the table's commit is undone.
    fixture.spark.sql("CALL local.system.rollback_to_snapshot('cdc.replayed', " + beforeSecond + ")");
    assertThat(fixture.rows("SELECT id FROM local.cdc.replayed ORDER BY id")).containsExactly("[k1]", "[k3]", "[k4]");
    List<String> tombstones = fixture.rows("SELECT * FROM local.cdc.replayed__deletes ORDER BY id");
    long tombstoneSnapshots = fixture.snapshotCount("local.cdc.replayed__deletes");
    BatchLoadReport replay = fixture.load(loaded.get(loaded.size() - 1));

    assertThat(fixture.rows("SELECT id, val, CAST(dt AS STRING) FROM local.cdc.replayed ORDER BY id"))
        .isEqualTo(once)
        .containsExactlyElementsOf(expected(all, BY_TIME_THEN_POSITION));
    assertThat(replay.alreadyCommitted()).isFalse();
    assertThat(replay.metrics().rowsDeleted()).isEqualTo(2);
    assertThat(fixture.rows("SELECT * FROM local.cdc.replayed__deletes ORDER BY id")).isEqualTo(tombstones);
    assertThat(fixture.snapshotCount("local.cdc.replayed__deletes")).isEqualTo(tombstoneSnapshots);

    // And once the table holds the batch, running it again writes nothing anywhere.
    BatchLoadReport third = fixture.load(loaded.get(loaded.size() - 1));
    assertThat(third.alreadyCommitted()).isTrue();
    assertThat(fixture.rows("SELECT id, val, CAST(dt AS STRING) FROM local.cdc.replayed ORDER BY id")).isEqualTo(once);
    assertThat(fixture.snapshotCount("local.cdc.replayed__deletes")).isEqualTo(tombstoneSnapshots);
  }

  @Test
  void eachFileIsCheckedOnceBeforeItIsReadAndOnceBeforeTheTombstoneCommitWhichIsTheBatchsFirst() {
    String table = "checked";
    TableProfile profile = changes(table, "");
    Path a = fixture.writeFile("parquet", table + "/dt=2024-01-01/a.parquet", CHANGES, List.of(
        new Change("k1", "I", "10:00:00", "v1", "", 0, 0, 0).toRow(),
        new Change("k2", "D", "10:00:00", null, "", 0, 0, 1).toRow()));
    Path b = fixture.writeFile("parquet", table + "/dt=2024-01-02/b.parquet", CHANGES, List.of(
        new Change("k3", "I", "10:00:00", "v1", "", 0, 1, 0).toRow()));
    Path manifest = fixture.writeManifest(fixture.claimBatch(profile, Landed.of(a, "2024-01-01"),
        Landed.of(b, "2024-01-02")));
    // Per object, at each question: whether the tombstone table (the batch's first commit) exists yet.
    Map<String, List<Boolean>> asked = new ConcurrentHashMap<>();
    LiveGenerations storage = LiveGenerations.byScheme();
    LiveGenerations counting = object -> {
      asked.computeIfAbsent(object.uri(), u -> new CopyOnWriteArrayList<>())
          .add(fixture.spark.catalog().tableExists("local.cdc.checked__deletes"));
      return storage.of(object);
    };

    int code = fixture.runJob(manifest, counting);

    assertThat(code).as("stderr: %s", fixture.stderr).isEqualTo(BatchJob.EXIT_OK);
    assertThat(asked).containsOnlyKeys(JobFixture.uri(a), JobFixture.uri(b));
    assertThat(asked.values()).allSatisfy(questions -> assertThat(questions)
        .as("whether the tombstones were committed at each generation read").containsExactly(false, false));
    assertThat(fixture.rows("SELECT id FROM local.cdc.checked__deletes")).containsExactly("[k2]");
    assertThat(fixture.rows("SELECT id, val FROM local.cdc.checked ORDER BY id")).containsExactly("[k1,v1]", "[k3,v1]");
  }

  @Test
  void aChangeBatchWithoutDeletesRunsAsManySparkJobsAsTheSameBatchWithoutCdc() throws Exception {
    TableProfile withCdc = changes("nodeletes", "");
    TableProfile withoutCdc = byDay("plain", "", "");
    List<Row> rows = List.of(new Change("k1", "I", "10:00:00", "v1", "", 0, 0, 0).toRow(),
        new Change("k2", "U", "10:00:00", "v1", "", 0, 0, 1).toRow(),
        new Change("k1", "U", "10:05:00", "v2", "", 0, 0, 2).toRow());
    BatchManifest cdcBatch = fixture.claimBatch(withCdc, Landed.of(
        fixture.writeFile("parquet", "nodeletes/dt=2024-01-01/a.parquet", CHANGES, rows), "2024-01-01"));
    BatchManifest plainBatch = fixture.claimBatch(withoutCdc, Landed.of(
        fixture.writeFile("parquet", "plain/dt=2024-01-01/a.parquet", CHANGES, rows), "2024-01-01"));

    int cdcJobs = fixture.sparkJobs(() -> fixture.load(cdcBatch));
    int plainJobs = fixture.sparkJobs(() -> fixture.load(plainBatch));

    assertThat(fixture.rows("SELECT id, val FROM local.cdc.nodeletes ORDER BY id"))
        .isEqualTo(fixture.rows("SELECT id, val FROM local.cdc.plain ORDER BY id"))
        .containsExactly("[k1,v2]", "[k2,v1]");
    assertThat(fixture.spark.catalog().tableExists("local.cdc.nodeletes__deletes")).isFalse();
    assertThat(cdcJobs).as("Spark jobs with load.cdc, against %s without", plainJobs).isEqualTo(plainJobs);
  }

  @Test
  void deleteOfAKeyTheTableNeverHeldInsertsNothing() {
    String table = "unknown";
    TableProfile profile = changes(table, "");
    List<Change> all = new ArrayList<>();

    List<BatchLoadReport> reports = loadBatches(profile, table, all, List.of(
        List.of(new ChangeFile("2024-01-01", c("a", "I", "10:00:00", "v1"))),
        List.of(new ChangeFile("2024-01-02", c("b", "D", "10:00:00", null), c("c", "X", "10:00:00", "kept")))));

    assertThat(fixture.rows("SELECT id, val FROM local.cdc.unknown ORDER BY id"))
        .containsExactly("[a,v1]", "[c,kept]");
    assertThat(reports.get(1).metrics().rowsDeleted()).isZero();
    assertThat(reports.get(1).metrics().rowsInserted()).isEqualTo(1);
    assertThat(reports.get(1).metrics().rowsUnchanged()).isEqualTo(1);
  }

  @Test
  void deleteFlagWithoutPrecombineFieldLetsTheLaterChangeWinAndRemembersNothing() {
    String table = "flagged";
    TableProfile profile = fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        load {
          iceberg.table = "local.cdc.%s"
          primary-key = [id]
          cdc.delete-flag = is_deleted
        }
        """.formatted(fixture.landing(table), table));
    Path first = fixture.writeFile("parquet", table + "/p1/a.parquet", FLAGGED, List.of(
        RowFactory.create("k1", false, "v1"), RowFactory.create("k2", false, "v1"), RowFactory.create("k3", null, "v1"),
        RowFactory.create("k2", true, null)));
    BatchLoadReport one = fixture.load(fixture.claimBatch(profile, Landed.of(first, "p1")));
    Path second = fixture.writeFile("parquet", table + "/p2/a.parquet", FLAGGED, List.of(
        RowFactory.create("k1", true, null), RowFactory.create("k2", false, "v2")));
    BatchLoadReport two = fixture.load(fixture.claimBatch(profile, Landed.of(second, "p2")));

    // k2: deleted in the first batch, inserted by the later one; a NULL flag is not a delete.
    assertThat(fixture.rows("SELECT id, val FROM local.cdc.flagged ORDER BY id")).containsExactly("[k2,v2]", "[k3,v1]");
    assertThat(one.metrics().rowsInserted()).isEqualTo(2);
    assertThat(two.metrics().rowsDeleted()).isEqualTo(1);
    assertThat(two.metrics().rowsInserted()).isEqualTo(1);
    assertThat(fixture.spark.table("local.cdc.flagged").columns()).doesNotContain("is_deleted");
    assertThat(fixture.spark.catalog().tableExists("local.cdc.flagged__deletes")).isFalse();
  }

  @Test
  void aFileWithoutTheOpColumnFailsTheBatchNamingTheFileAndTheColumn() {
    String table = "noop";
    TableProfile profile = changes(table, "");
    Path good = fixture.writeFile("parquet", table + "/dt=2024-01-01/a.parquet", CHANGES,
        List.of(new Change("k1", "I", "10:00:00", "v1", "", 0, 0, 0).toRow()));
    StructType withoutOp = new StructType().add("id", DataTypes.StringType).add("ts", DataTypes.TimestampType)
        .add("val", DataTypes.StringType);
    Path bad = fixture.writeFile("parquet", table + "/dt=2024-01-01/b.parquet", withoutOp,
        List.of(RowFactory.create("k2", Timestamp.valueOf("2024-01-01 10:00:00"), "v1")));

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile,
        Landed.of(good, "2024-01-01"), Landed.of(bad, "2024-01-01"))));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("file " + JobFixture.uri(bad) + " has no column op, which load.cdc.op-column"
        + " needs");
    assertThat(fixture.spark.catalog().tableExists("local.cdc.noop")).isFalse();
  }

  @Test
  void anOpColumnNoFileHasFailsTheBatchNamingTheKey() {
    String table = "wrongop";
    TableProfile profile = fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        load {
          iceberg.table = "local.cdc.%s"
          primary-key = [id]
          cdc.op-column = operation
        }
        """.formatted(fixture.landing(table), table));
    Path file = fixture.writeFile("parquet", table + "/p1/a.parquet", CHANGES,
        List.of(new Change("k1", "I", "10:00:00", "v1", "", 0, 0, 0).toRow()));

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, Landed.of(file, "p1"))));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("load.cdc.op-column: column \"operation\" is not among the batch's columns"
        + " [id, op, ts, val, partition]");
    assertThat(fixture.spark.catalog().tableExists("local.cdc.wrongop")).isFalse();
  }

  @Test
  void aDeleteFlagThatIsNotBooleanFailsTheBatchNamingTheKeyAndTheType() {
    String table = "stringflag";
    TableProfile profile = fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        load {
          iceberg.table = "local.cdc.%s"
          primary-key = [id]
          cdc.delete-flag = op
        }
        """.formatted(fixture.landing(table), table));
    Path file = fixture.writeFile("parquet", table + "/p1/a.parquet", CHANGES,
        List.of(new Change("k1", "D", "10:00:00", null, "", 0, 0, 0).toRow()));

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, Landed.of(file, "p1"))));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("load.cdc.delete-flag: column \"op\" has type string, not boolean");
    assertThat(fixture.spark.catalog().tableExists("local.cdc.stringflag")).isFalse();
  }

  @Test
  void aMergeRestrictedToTheBatchsPartitionsDeletesWithinThem() {
    String table = "scoped";
    TableProfile profile = fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = yyyy-MM-dd
            partition-column = dt
          }
        }
        load {
          iceberg.table = "local.cdc.%s"
          primary-key = [id, dt]
          partition-by = [dt]
          iceberg.precombine-field = ts
          cdc.op-column = op
        }
        """.formatted(fixture.landing(table), table));
    List<Change> all = new ArrayList<>();

    List<BatchLoadReport> reports = loadBatches(profile, table, all, List.of(
        List.of(new ChangeFile("2024-01-01", c("a", "I", "10:00:00", "v1"), c("b", "I", "10:00:00", "v1")),
            new ChangeFile("2024-01-02", c("a", "I", "10:00:00", "v1"))),
        List.of(new ChangeFile("2024-01-01", c("a", "D", "11:00:00", null)))));

    assertThat(fixture.rows("SELECT id, val, CAST(dt AS STRING) FROM local.cdc.scoped ORDER BY id, dt"))
        .containsExactly("[a,v1,2024-01-02]", "[b,v1,2024-01-01]");
    assertThat(reports.get(1).metrics().rowsDeleted()).isEqualTo(1);
  }
}
