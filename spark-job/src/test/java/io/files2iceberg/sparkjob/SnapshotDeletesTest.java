package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.snapshot-deletes}: a keyed table fed whole snapshots ({@code full}, {@code last})
 * MERGEs each snapshot and deletes the stored rows whose key it lacks, within the merge scope, unless
 * they are more than {@code load.snapshot-deletes-max-fraction} of the rows in scope.
 */
class SnapshotDeletesTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType CUSTOMERS = new StructType()
      .add("id", DataTypes.IntegerType)
      .add("name", DataTypes.StringType)
      .add("ts", DataTypes.TimestampType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  /** A keyed table of whole snapshots, landed as {@code <table>/dt=<day>/<file>}. */
  static TableProfile snapshots(String table, String mode, String extra) {
    return fixture.dailyParquet(table, mode, "local.snap." + table, "primary-key = [id]\nsnapshot-deletes = true",
        extra);
  }

  static Row customer(int id, String name) {
    return RowFactory.create(id, name, Timestamp.valueOf("2024-01-01 10:00:00"));
  }

  /** Customers {@code from..to}, named {@code name}. */
  static List<Row> customers(int from, int to, String name) {
    return IntStream.rangeClosed(from, to).mapToObj(id -> customer(id, name)).toList();
  }

  static Landed snapshotFile(String table, String day, String file, List<Row> rows) {
    return Landed.of(fixture.writeFile("parquet", table + "/dt=" + day + "/" + file, CUSTOMERS, rows), day);
  }

  /** Loads one listed snapshot of mode full, as the batcher lists it. */
  static BatchLoadReport loadFull(TableProfile profile, String batchId, Landed... files) {
    return fixture.load(fixture.unrecordedBatch(profile, batchId, files));
  }

  /** The table's first snapshot: customers 1..{@code count}, loaded as batch {@code <table>-1}. */
  static void loadMonday(TableProfile profile, String table, int count) {
    loadFull(profile, table + "-1", snapshotFile(table, "2024-01-01", "a.parquet", customers(1, count, "monday")));
  }

  /** Runs a listed snapshot that the job must reject; returns its stderr, stripped. */
  static String rejected(TableProfile profile, String batchId, Landed... files) {
    int exit = fixture.runJob(fixture.writeManifest(fixture.unrecordedBatch(profile, batchId, files)));
    assertThat(exit).as(fixture.stderr).isEqualTo(BatchJob.EXIT_REJECTED);
    return fixture.stderr.strip();
  }

  private List<String> rows(String table) {
    return fixture.rows("SELECT id, name FROM local.snap." + table + " ORDER BY id");
  }

  private static List<String> expected(List<Row> rows) {
    return rows.stream().map(r -> "[" + r.get(0) + "," + r.get(1) + "]").toList();
  }

  private void absentKeysAreDeletedAndTheRestMerged(String table, String extra) {
    TableProfile profile = snapshots(table, "full", extra);
    loadMonday(profile, table, 10);

    // Tuesday's snapshot: 1..8 renamed, 9 and 10 gone upstream, 11 new.
    List<Row> tuesday = new ArrayList<>(customers(1, 8, "tuesday"));
    tuesday.add(customer(11, "tuesday"));
    BatchLoadReport report = loadFull(profile, table + "-2",
        snapshotFile(table, "2024-01-02", "a.parquet", tuesday));

    assertThat(rows(table)).containsExactlyElementsOf(expected(tuesday));
    assertThat(report.metrics().rowsDeleted()).isEqualTo(2);
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isEqualTo(8);
    assertThat(report.metrics().rowsUnchanged()).isZero();
    // One snapshot, marked with the batch, that the table's history keeps beside Monday's.
    assertThat(fixture.rows("SELECT summary['files2iceberg.batch-id'] FROM local.snap." + table + ".snapshots"
        + " WHERE snapshot_id = " + report.snapshotId())).containsExactly("[" + table + "-2]");
    assertThat(fixture.rows("SELECT count(*) FROM local.snap." + table + " VERSION AS OF "
        + fixture.spark.sql("SELECT snapshot_id FROM local.snap." + table + ".snapshots WHERE"
            + " summary['files2iceberg.batch-id'] = '" + table + "-1'").first().getLong(0)))
        .containsExactly("[10]");
  }

  @Test
  void keysAbsentFromTheSnapshotAreDeletedAndTheRestMergedWithCopyOnWrite() {
    absentKeysAreDeletedAndTheRestMerged("cow", "");
    assertThat(fixture.rows("SELECT count(*) FROM local.snap.cow.delete_files")).containsExactly("[0]");
  }

  @Test
  void keysAbsentFromTheSnapshotAreDeletedAndTheRestMergedWithMergeOnRead() {
    absentKeysAreDeletedAndTheRestMerged("mor", "load.write-mode = merge-on-read");
    assertThat(fixture.rows("SELECT count(*) > 0 FROM local.snap.mor.delete_files")).containsExactly("[true]");
  }

  @Test
  void truncatedSnapshotIsRejectedByTheGuardAndCommitsNothing() {
    TableProfile profile = snapshots("truncated", "full", "");
    loadMonday(profile, "truncated", 10);
    long snapshots = fixture.snapshotCount("local.snap.truncated");

    // Only 3 of 10 customers arrived: 7 of the 10 stored rows would go, more than half.
    String stderr = rejected(profile, "truncated-2",
        snapshotFile("truncated", "2024-01-02", "a.parquet", customers(1, 3, "tuesday")));

    assertThat(stderr).isEqualTo("files2iceberg: table local.snap.truncated batch truncated-2"
        + " rejected: load.snapshot-deletes: table local.snap.truncated: the batch would delete 7 of the 10 stored"
        + " rows of the table (a share of 0.7000), more than load.snapshot-deletes-max-fraction = 0.5 allows;"
        + " nothing is committed. An empty or truncated snapshot looks like this: check the batch's files, or raise"
        + " load.snapshot-deletes-max-fraction (1.0 lets a batch delete every row in scope)");
    assertThat(rows("truncated")).containsExactlyElementsOf(expected(customers(1, 10, "monday")));
    assertThat(fixture.snapshotCount("local.snap.truncated")).isEqualTo(snapshots);
  }

  @Test
  void emptySnapshotHitsTheGuardUnlessItAllowsEveryRowToGo() {
    TableProfile guarded = snapshots("empty", "full", "");
    loadMonday(guarded, "empty", 4);
    Landed empty = snapshotFile("empty", "2024-01-02", "a.parquet", List.of());

    assertThat(rejected(guarded, "empty-2", empty)).contains("the batch would delete 4 of the 4 stored rows of the table (a share of"
        + " 1.0000), more than load.snapshot-deletes-max-fraction = 0.5 allows");
    assertThat(rows("empty")).hasSize(4);

    TableProfile anything = snapshots("empty", "full", "load.snapshot-deletes-max-fraction = 1.0");
    BatchLoadReport report = loadFull(anything, "empty-3", empty);

    assertThat(rows("empty")).isEmpty();
    assertThat(report.metrics().rowsDeleted()).isEqualTo(4);
  }

  @Test
  void aStricterGuardRefusesFewerDeletes() {
    TableProfile strict = snapshots("strict", "full", "load.snapshot-deletes-max-fraction = 0.1");
    loadMonday(strict, "strict", 10);

    String stderr = rejected(strict, "strict-2",
        snapshotFile("strict", "2024-01-02", "a.parquet", customers(1, 8, "tuesday")));

    assertThat(stderr).contains("would delete 2 of the 10 stored rows of the table (a share of 0.2000), more"
        + " than load.snapshot-deletes-max-fraction = 0.1 allows");
    assertThat(rows("strict")).containsExactlyElementsOf(expected(customers(1, 10, "monday")));
  }

  @Test
  void rerunOfACommittedSnapshotDeletesNothingAgain() {
    TableProfile profile = snapshots("rerun", "full", "");
    loadMonday(profile, "rerun", 10);
    BatchManifest tuesday = fixture.unrecordedBatch(profile, "rerun-2",
        snapshotFile("rerun", "2024-01-02", "a.parquet", customers(1, 8, "tuesday")));
    fixture.load(tuesday);
    // Wednesday brings 9 and 10 back.
    loadFull(profile, "rerun-3", snapshotFile("rerun", "2024-01-03", "a.parquet", customers(1, 10, "wednesday")));
    long snapshots = fixture.snapshotCount("local.snap.rerun");

    BatchLoadReport again = fixture.load(tuesday);

    assertThat(again.metrics().rowsDeleted()).isZero();
    assertThat(rows("rerun")).containsExactlyElementsOf(expected(customers(1, 10, "wednesday")));
    assertThat(fixture.snapshotCount("local.snap.rerun")).isEqualTo(snapshots);
  }

  @Test
  void theNewestPrecombineValueOfAKeyInTheSnapshotWinsAndAbsentKeysAreStillDeleted() {
    TableProfile profile = snapshots("precombine", "full", "load.iceberg.precombine-field = ts");
    loadMonday(profile, "precombine", 4);

    // Key 1 twice in the snapshot, across two files: the newer ts wins whatever the file order.
    BatchLoadReport report = loadFull(profile, "precombine-2",
        snapshotFile("precombine", "2024-01-02", "a.parquet", List.of(
            RowFactory.create(1, "newest", Timestamp.valueOf("2024-01-02 12:00:00")),
            RowFactory.create(2, "tuesday", Timestamp.valueOf("2024-01-02 10:00:00")),
            RowFactory.create(3, "tuesday", Timestamp.valueOf("2024-01-02 10:00:00")))),
        snapshotFile("precombine", "2024-01-02", "b.parquet", List.of(
            RowFactory.create(1, "older", Timestamp.valueOf("2024-01-02 11:00:00")))));

    assertThat(rows("precombine")).containsExactly("[1,newest]", "[2,tuesday]", "[3,tuesday]");
    assertThat(report.metrics().rowsDeleted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isEqualTo(3);
  }

  /** Landed as {@code <table>/region=<region>/<file>}, partitioned by region, keyed on id alone. */
  static TableProfile byRegion(String table, String scope) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/region=*/*.parquet"
          batch-file {
            ingestion-type = full
            partition-type = string
            pattern = ".+/region=([a-z]+)/.+"
            partition-column = region
          }
        }
        load {
          iceberg.table = "local.snap.%s"
          primary-key = [id]
          partition-by = [region]
          merge-scope = %s
          snapshot-deletes = true
        }
        """.formatted(fixture.landing(table), table, scope));
  }

  static Landed regionFile(String table, String region, String file, List<Row> rows) {
    return Landed.of(fixture.writeFile("parquet", table + "/region=" + region + "/" + file, CUSTOMERS, rows), region);
  }

  @Test
  void withPartitionsScopeRowsOfPartitionsTheSnapshotLacksAreNeverDeleted() {
    TableProfile profile = byRegion("regions", "partitions");
    Landed eu = regionFile("regions", "eu", "a.parquet", customers(1, 3, "eu"));
    Landed us = regionFile("regions", "us", "a.parquet", customers(4, 6, "us"));
    loadFull(profile, "regions-1", eu, us);

    // The next snapshot is eu's only, without customer 3: us is out of scope.
    BatchLoadReport report = loadFull(profile, "regions-2",
        regionFile("regions", "eu", "b.parquet", customers(1, 2, "eu again")));

    assertThat(fixture.rows("SELECT id, name, region FROM local.snap.regions ORDER BY id")).containsExactly(
        "[1,eu again,eu]", "[2,eu again,eu]", "[4,us,us]", "[5,us,us]", "[6,us,us]");
    assertThat(report.metrics().rowsDeleted()).isEqualTo(1);
  }

  @Test
  void withPartitionsScopeAnEmptySnapshotIsRefusedToo() {
    TableProfile profile = byRegion("noregion", "partitions");
    loadFull(profile, "noregion-1", regionFile("noregion", "eu", "a.parquet", customers(1, 3, "eu")));

    assertThat(rejected(profile, "noregion-2", regionFile("noregion", "eu", "b.parquet", List.of())))
        .endsWith("rejected: load.snapshot-deletes: table local.snap.noregion: the batch has no rows; with"
            + " load.merge-scope = partitions it names no partition to delete in, but an empty snapshot is refused"
            + " unless load.snapshot-deletes-max-fraction = 1.0 (it is 0.5); nothing is committed. Check the batch's"
            + " files");
    assertThat(fixture.rows("SELECT count(*) FROM local.snap.noregion")).containsExactly("[3]");
  }

  @Test
  void withTableScopeTheSameSnapshotWouldDeleteTheOtherPartitionsRowsAndTheGuardCountsThem() {
    TableProfile profile = byRegion("wide", "table");
    loadFull(profile, "wide-1", regionFile("wide", "eu", "a.parquet", customers(1, 3, "eu")),
        regionFile("wide", "us", "a.parquet", customers(4, 6, "us")));

    assertThat(rejected(profile, "wide-2", regionFile("wide", "eu", "b.parquet", customers(1, 2, "eu again"))))
        .contains("would delete 4 of the 6 stored rows of the table");
  }

  @Test
  void lastModeMergesTheNewestPartitionAndDeletesTheKeysItLacks() {
    TableProfile profile = snapshots("last", "last", "");
    fixture.load(fixture.claimBatch(profile, snapshotFile("last", "2024-01-01", "a.parquet",
        customers(1, 4, "monday"))));

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, snapshotFile("last", "2024-01-02", "a.parquet",
        customers(2, 5, "tuesday"))));

    assertThat(fixture.rows("SELECT id, name, CAST(dt AS STRING) FROM local.snap.last ORDER BY id")).containsExactly(
        "[2,tuesday,2024-01-02]", "[3,tuesday,2024-01-02]", "[4,tuesday,2024-01-02]", "[5,tuesday,2024-01-02]");
    assertThat(report.metrics().rowsDeleted()).isEqualTo(1);
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isEqualTo(3);
  }

  @Test
  void aSnapshotWithAFileThatWasNotReadIsMergedWithoutDeletingAnyKey() {
    TableProfile profile = snapshots("partial", "full", "extract.quarantine-bad-files = true");
    loadMonday(profile, "partial", 10);
    Landed good = snapshotFile("partial", "2024-01-02", "a.parquet", customers(1, 8, "tuesday"));
    Landed corrupt = Landed.of(fixture.writeText("partial/dt=2024-01-02/b.parquet", "not parquet"), "2024-01-02");

    BatchLoadReport report = loadFull(profile, "partial-2", good, corrupt);

    // 9 and 10 may be in the unreadable file: they stay until a whole snapshot loads.
    List<String> want = new ArrayList<>(expected(customers(1, 8, "tuesday")));
    want.addAll(expected(customers(9, 10, "monday")));
    assertThat(rows("partial")).containsExactlyElementsOf(want);
    assertThat(report.metrics().rowsDeleted()).isZero();
    assertThat(report.metrics().rowsUpdated()).isEqualTo(8);
    assertThat(report.quarantinedFiles()).singleElement().satisfies(q -> assertThat(q.uri()).endsWith("b.parquet"));

    BatchLoadReport whole = loadFull(profile, "partial-3", good);

    assertThat(rows("partial")).containsExactlyElementsOf(expected(customers(1, 8, "tuesday")));
    assertThat(whole.metrics().rowsDeleted()).isEqualTo(2);
  }
}
