package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A MERGE whose key holds the partition column (or with {@code load.merge-scope = partitions})
 * reads and rewrites only the batch's partitions; the batch's counts come from the commit itself,
 * in copy-on-write and merge-on-read.
 */
class ScopedMergeTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType EVENTS = new StructType()
      .add("id", DataTypes.StringType)
      .add("version", DataTypes.LongType)
      .add("value", DataTypes.StringType);

  /** Every scan Iceberg planned in this JVM, as the catalog's metrics reporter saw it. */
  public static final class RecordedScans implements MetricsReporter {
    static final Queue<ScanReport> SCANS = new ConcurrentLinkedQueue<>();

    @Override
    public void report(MetricsReport report) {
      if (report instanceof ScanReport scan) {
        SCANS.add(scan);
      }
    }
  }

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
    // Before the session's first use of the catalog, which reads its properties once.
    fixture.spark.conf().set("spark.sql.catalog.local.metrics-reporter-impl", RecordedScans.class.getName());
  }

  @BeforeEach
  void forgetScans() {
    RecordedScans.SCANS.clear();
  }

  static TableProfile events(String table, String key, String extraLoad) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = yyyy-MM-dd
          }
        }
        load {
          iceberg.table = "local.scoped.%s"
          primary-key = %s
          partition-by = [dt]
          iceberg.precombine-field = version
          %s
        }
        """.formatted(fixture.landing(table), table, key, extraLoad));
  }

  static Row event(String id, long version, String value) {
    return RowFactory.create(id, version, value);
  }

  static Landed file(String table, String day, String name, Row... rows) {
    Path path = fixture.writeFile("parquet", table + "/dt=" + day + "/" + name, EVENTS, List.of(rows));
    return new Landed(path, day, 1);
  }

  /** Three days of two keys each, loaded as the first batch. */
  static void seed(TableProfile profile, String table) {
    fixture.load(fixture.claimBatch(profile,
        file(table, "2024-01-01", "seed.parquet", event("a1", 1, "seed"), event("a2", 1, "seed")),
        file(table, "2024-01-02", "seed.parquet", event("b1", 1, "seed"), event("b2", 1, "seed")),
        file(table, "2024-01-03", "seed.parquet", event("c1", 1, "seed"), event("c2", 1, "seed"))));
  }

  static Table table(String table) {
    return fixture.icebergTable("local.scoped." + table);
  }

  /** The table's live data file paths, by partition (as its path: {@code dt=2024-01-01}). */
  static Map<String, TreeSet<String>> dataFiles(Table table) {
    Map<String, TreeSet<String>> files = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.computeIfAbsent(table.specs().get(task.file().specId()).partitionToPath(task.file().partition()),
            p -> new TreeSet<>()).add(task.file().location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  static List<DeleteFile> deleteFiles(Table table) {
    List<DeleteFile> deletes = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        deletes.addAll(task.deletes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return deletes;
  }

  /** The most data files any one scan of the table planned since the scans were last cleared. */
  static long mostFilesOneScanPlanned(String table) {
    return RecordedScans.SCANS.stream().filter(s -> s.tableName().endsWith("scoped." + table))
        .mapToLong(s -> s.scanMetrics().resultDataFiles().value()).max().orElse(-1);
  }

  @Test
  void batchOfOnePartitionLeavesOtherPartitionsDataFilesUntouched() {
    TableProfile profile = events("cow", "[id, dt]", "");
    seed(profile, "cow");
    Map<String, TreeSet<String>> before = dataFiles(table("cow"));
    RecordedScans.SCANS.clear();

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile,
        file("cow", "2024-01-02", "update.parquet", event("b1", 2, "newer"), event("b3", 1, "new key"))));
    long planned = mostFilesOneScanPlanned("cow");

    Table after = table("cow");
    Map<String, TreeSet<String>> files = dataFiles(after);
    assertThat(files.get("dt=2024-01-01")).isEqualTo(before.get("dt=2024-01-01"));
    assertThat(files.get("dt=2024-01-03")).isEqualTo(before.get("dt=2024-01-03"));
    assertThat(files.get("dt=2024-01-02")).isNotEqualTo(before.get("dt=2024-01-02"));
    assertThat(after.currentSnapshot().summary()).containsEntry("changed-partition-count", "1");
    assertThat(planned).as("data files a scan of the MERGE planned")
        .isEqualTo(before.get("dt=2024-01-02").size());
    assertThat(fixture.rows("SELECT id, version, value, dt FROM local.scoped.cow ORDER BY id")).containsExactly(
        "[a1,1,seed,2024-01-01]", "[a2,1,seed,2024-01-01]",
        "[b1,2,newer,2024-01-02]", "[b2,1,seed,2024-01-02]", "[b3,1,new key,2024-01-02]",
        "[c1,1,seed,2024-01-03]", "[c2,1,seed,2024-01-03]");
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isEqualTo(1);
    assertThat(report.metrics().rowsUnchanged()).isZero();
  }

  @Test
  void declaredPartitionScopeRestrictsAKeyWithoutThePartitionColumn() {
    TableProfile profile = events("declared", "[id]", "merge-scope = partitions");
    seed(profile, "declared");
    Map<String, TreeSet<String>> before = dataFiles(table("declared"));
    RecordedScans.SCANS.clear();

    fixture.load(fixture.claimBatch(profile,
        file("declared", "2024-01-03", "update.parquet", event("c2", 2, "newer"))));
    long planned = mostFilesOneScanPlanned("declared");

    Map<String, TreeSet<String>> files = dataFiles(table("declared"));
    assertThat(files.get("dt=2024-01-01")).isEqualTo(before.get("dt=2024-01-01"));
    assertThat(files.get("dt=2024-01-02")).isEqualTo(before.get("dt=2024-01-02"));
    assertThat(planned).isEqualTo(before.get("dt=2024-01-03").size());
    assertThat(fixture.rows("SELECT id, version, value FROM local.scoped.declared WHERE dt = DATE'2024-01-03'"
        + " ORDER BY id")).containsExactly("[c1,1,seed]", "[c2,2,newer]");
  }

  @Test
  void keyWithoutThePartitionColumnMatchesAcrossPartitions() {
    // A key's row moves to the batch's partition: the MERGE must see every partition.
    TableProfile profile = events("moving", "[id]", "");
    seed(profile, "moving");
    long allFiles = dataFiles(table("moving")).values().stream().mapToLong(TreeSet::size).sum();
    RecordedScans.SCANS.clear();

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile,
        file("moving", "2024-01-03", "update.parquet", event("a1", 2, "moved"), event("c3", 1, "new key"))));

    assertThat(mostFilesOneScanPlanned("moving")).as("data files a scan of the MERGE planned").isEqualTo(allFiles);
    assertThat(fixture.rows("SELECT id, version, value, dt FROM local.scoped.moving WHERE id IN ('a1', 'c3')"
        + " ORDER BY id")).containsExactly("[a1,2,moved,2024-01-03]", "[c3,1,new key,2024-01-03]");
    assertThat(fixture.rows("SELECT count(*) FROM local.scoped.moving")).containsExactly("[7]");
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isEqualTo(1);
  }

  @Test
  void batchWhoseRowsAllLoseToNewerStoredRowsCountsThemUnchangedAndRewritesNothing() {
    for (String mode : List.of("copy-on-write", "merge-on-read")) {
      String name = "lose_" + mode.replace('-', '_');
      TableProfile profile = events(name, "[id, dt]", "write-mode = " + mode);
      fixture.load(fixture.claimBatch(profile,
          file(name, "2024-01-01", "seed.parquet", event("a1", 5, "stored"), event("a2", 5, "stored"))));
      Map<String, TreeSet<String>> before = dataFiles(table(name));

      BatchLoadReport report = fixture.load(fixture.claimBatch(profile,
          file(name, "2024-01-01", "late.parquet", event("a1", 3, "late"), event("a2", 4, "late"))));

      assertThat(fixture.rows("SELECT id, version, value FROM local.scoped." + name + " ORDER BY id")).as(mode)
          .containsExactly("[a1,5,stored]", "[a2,5,stored]");
      assertThat(dataFiles(table(name))).as(mode).isEqualTo(before);
      assertThat(deleteFiles(table(name))).as(mode).isEmpty();
      assertThat(report.metrics().rowsInserted()).as(mode).isZero();
      assertThat(report.metrics().rowsUpdated()).as(mode).isZero();
      assertThat(report.metrics().rowsUnchanged()).as(mode).isEqualTo(2);
    }
  }

  @Test
  void mergeOnReadWritesPositionDeletesReadBackAsTheNewRowsWithExactCounts() {
    TableProfile profile = events("mor", "[id, dt]", "write-mode = merge-on-read");
    seed(profile, "mor");
    Map<String, TreeSet<String>> before = dataFiles(table("mor"));

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile,
        file("mor", "2024-01-02", "update.parquet", event("b1", 2, "newer"), event("b2", 0, "older"),
            event("b3", 1, "new key"))));

    Table table = table("mor");
    assertThat(table.properties()).containsEntry("write.merge.mode", "merge-on-read")
        .containsEntry("write.update.mode", "merge-on-read").containsEntry("write.delete.mode", "merge-on-read");
    Snapshot snapshot = table.currentSnapshot();
    assertThat(snapshot.summary()).containsEntry("added-position-deletes", "1");
    assertThat(deleteFiles(table)).isNotEmpty();
    // The stored files all stay: merge-on-read adds files beside them.
    before.forEach((partition, paths) -> assertThat(dataFiles(table).get(partition)).containsAll(paths));
    assertThat(fixture.rows("SELECT id, version, value, dt FROM local.scoped.mor WHERE dt = DATE'2024-01-02'"
        + " ORDER BY id")).containsExactly(
        "[b1,2,newer,2024-01-02]", "[b2,1,seed,2024-01-02]", "[b3,1,new key,2024-01-02]");
    assertThat(fixture.rows("SELECT count(*) FROM local.scoped.mor")).containsExactly("[7]");
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isEqualTo(1);
    assertThat(report.metrics().rowsUnchanged()).isEqualTo(1);
  }

  @Test
  void replayedBatchIsNotWrittenTwiceInMergeOnRead() {
    TableProfile profile = events("mor_replay", "[id, dt]", "write-mode = merge-on-read");
    seed(profile, "mor_replay");
    BatchManifest batch = fixture.claimBatch(profile,
        file("mor_replay", "2024-01-01", "update.parquet", event("a1", 2, "newer")));
    fixture.load(batch);
    long snapshots = fixture.snapshotCount("local.scoped.mor_replay");

    BatchLoadReport again = fixture.load(batch);

    assertThat(again.alreadyCommitted()).isTrue();
    assertThat(fixture.snapshotCount("local.scoped.mor_replay")).isEqualTo(snapshots);
    assertThat(fixture.rows("SELECT id, version FROM local.scoped.mor_replay WHERE id = 'a1'"))
        .containsExactly("[a1,2]");
  }
}
