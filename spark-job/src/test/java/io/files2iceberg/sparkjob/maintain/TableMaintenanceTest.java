package io.files2iceberg.sparkjob.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.load.CommitMarker;
import io.files2iceberg.sparkjob.sql.TestSessions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance on real Iceberg tables in the embedded catalog (JDBC on SQLite): the protection rule
 * keeps each protected batch's marker reachable through expiry and compaction, and a dry run
 * changes nothing. Each test has a table of its own; one session for the class.
 */
class TableMaintenanceTest {
  @TempDir static Path root;
  static Home home;
  static SparkSession spark;

  @BeforeAll
  static void session() {
    home = new Home(root);
    spark = embeddedSession(home);
  }

  /** A session whose catalog {@code local} is the home's embedded one (JDBC on SQLite), made active. */
  static SparkSession embeddedSession(Home home) {
    return TestSessions.embedded(home);
  }

  /**
   * Creates a format-2 table whose MERGE, UPDATE and DELETE write position delete files.
   *
   * @param definition its columns and partitioning, such as {@code (id INT, dt STRING) USING iceberg PARTITIONED BY (dt)}
   * @param properties more table properties, such as {@code , 'write.delete.granularity' = 'partition'}
   */
  static void createMergeOnReadTable(SparkSession spark, String table, String definition, String properties) {
    spark.sql("CREATE TABLE " + table + " " + definition
        + " TBLPROPERTIES ('format-version' = '2', 'write.merge.mode' = 'merge-on-read',"
        + " 'write.update.mode' = 'merge-on-read', 'write.delete.mode' = 'merge-on-read'" + properties + ")");
  }

  /**
   * A merge-on-read table of four rows, a data file each, then three MERGEs updating rows 1 to 3
   * with batch ids {@code <prefix>1..3}: three position delete files, one per MERGE (delete files
   * per partition, not per data file).
   */
  static void tableWithPositionDeletes(SparkSession spark, String table, String batchPrefix) {
    createMergeOnReadTable(spark, table, "(id INT, v STRING) USING iceberg", ", 'write.delete.granularity' = 'partition'");
    for (String row : List.of("(1, 'one')", "(2, 'two')", "(3, 'three')", "(4, 'four')")) {
      spark.sql("INSERT INTO " + table + " VALUES " + row);
    }
    for (int id = 1; id <= 3; id++) {
      String sql = "MERGE INTO " + table + " t USING (SELECT " + id + " AS id, 'new' AS v) s ON t.id = s.id"
          + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *";
      CommitMetadata.withCommitProperties(Map.of(CommitMarker.BATCH_ID, batchPrefix + id),
          () -> spark.sql(sql).collectAsList(), RuntimeException.class);
    }
  }

  /** A table with one snapshot per batch id, each appending one row (one small file). */
  private static List<Snapshot> tableWithBatches(String table, String... batchIds) throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.m");
    spark.sql("CREATE TABLE " + table + " (id INT, batch STRING) USING iceberg");
    for (int i = 0; i < batchIds.length; i++) {
      String sql = "INSERT INTO " + table + " VALUES (" + i + ", '" + batchIds[i] + "')";
      CommitMetadata.withCommitProperties(Map.of(CommitMarker.BATCH_ID, batchIds[i]), () -> spark.sql(sql),
          RuntimeException.class);
      Thread.sleep(5); // distinct commit times, as batches minutes apart have
    }
    return snapshots(table);
  }

  private static List<Snapshot> snapshots(String table) throws Exception {
    Table loaded = load(table);
    List<Snapshot> all = new ArrayList<>();
    loaded.snapshots().forEach(all::add);
    all.sort((a, b) -> Long.compare(a.timestampMillis(), b.timestampMillis()));
    return all;
  }

  private static Table load(String table) throws Exception {
    Table loaded = Spark3Util.loadIcebergTable(spark, table);
    loaded.refresh();
    return loaded;
  }

  private static MaintainRequest request(String table, String... args) throws Exception {
    return requestWith("", table, args);
  }

  /** The request of a profile of the table with the extra HOCON lines given. */
  private static MaintainRequest requestWith(String profileLines, String table, String... args) throws Exception {
    TableProfile profile = ProfileLoader.parse("extract.path = \"file:///landing/m/*.json\"\nextract.format = json\n"
        + "load.iceberg.table = \"" + table + "\"\n" + profileLines, Path.of("m.conf"), home);
    List<String> all = new ArrayList<>(List.of("--profile", ProfileJson.toJson(profile),
        "--retention-cutoff", Instant.now().plusSeconds(1).toString()));
    all.addAll(List.of(args));
    return MaintainRequest.parse(all.toArray(String[]::new));
  }

  /** Runs the maintenance of a table that exists. */
  private static MaintainReport maintained(MaintainRequest request) {
    MaintainOutcome outcome = new TableMaintenance(spark).run(request);
    assertThat(outcome).isInstanceOf(MaintainReport.class);
    return (MaintainReport) outcome;
  }

  /** {@link MaintainMain#run}: exit code, stdout, stderr. */
  private static String[] runMain(MaintainRequest request) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = MaintainMain.run(spark, request, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8)};
  }

  private static long rows(String table) {
    return spark.sql("SELECT count(*) FROM " + table).first().getLong(0);
  }

  private static List<String> deleteFiles(Table table) throws Exception {
    List<String> deletes = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        task.deletes().forEach(d -> deletes.add(d.location()));
      }
    }
    return deletes;
  }

  /** The rows as Iceberg's own reader returns them, sorted: what every action must leave as it was. */
  static List<String> icebergRows(Table table) throws Exception {
    List<String> rows = new ArrayList<>();
    table.refresh();
    try (CloseableIterable<org.apache.iceberg.data.Record> records =
        org.apache.iceberg.data.IcebergGenerics.read(table).build()) {
      // The table's columns only: a reader applying position deletes may add the row position.
      records.forEach(r -> rows.add(table.schema().columns().stream().map(c -> String.valueOf(r.getField(c.name())))
          .collect(java.util.stream.Collectors.joining(",", "[", "]"))));
    }
    rows.sort(String::compareTo);
    return rows;
  }

  /** A table of four batches, each appending two rows in descending id order (one file each). */
  private static List<Snapshot> unsortedBatches(String table) throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.m");
    spark.sql("CREATE TABLE " + table + " (id INT, a INT, b INT) USING iceberg");
    for (int i = 0; i < 4; i++) {
      String sql = "INSERT INTO " + table + " SELECT * FROM VALUES (" + (10 - i) + ", " + i + ", " + (3 - i) + "), ("
          + (5 - i) + ", " + (3 - i) + ", " + i + ") AS v(id, a, b) ORDER BY id DESC";
      CommitMetadata.withCommitProperties(Map.of(CommitMarker.BATCH_ID, "s" + i),
          () -> spark.sql(sql).collectAsList(), RuntimeException.class);
      Thread.sleep(5);
    }
    return snapshots(table);
  }

  /** The ids of the table's one data file, in the file's order. */
  private static List<Integer> idsInFileOrder(Table table) throws Exception {
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file().location()));
    }
    assertThat(files).hasSize(1);
    return spark.read().parquet(files.get(0)).select("id").collectAsList().stream().map(r -> r.getInt(0)).toList();
  }

  @Test
  void sortRewritesTheFilesInTheProfilesOrderAndEveryBatchIsStillFoundInTheTable() throws Exception {
    String table = "local.m.sorted";
    List<Snapshot> before = unsortedBatches(table);
    List<String> rowsBefore = icebergRows(load(table));

    MaintainReport report = maintained(requestWith("maintain.sort-by = [\"id DESC\"]\n", table, "--sort",
        "--compact", "--target-file-size", "1048576", "--min-input-files", "2", "--protect-newest", "4"));

    MaintainReport.Sorted sorted = (MaintainReport.Sorted) report.sort().orElseThrow();
    assertThat(sorted.from()).isEqualTo("maintain.sort-by");
    assertThat(sorted.order()).isEqualTo("id DESC NULLS LAST");
    assertThat(sorted.rewrite().rewrittenFiles()).isEqualTo(4);
    assertThat(sorted.rewrite().addedFiles()).isEqualTo(1);
    assertThat(sorted.rewrite().rewrittenBytes()).isPositive();
    // The sort took binpack's place.
    assertThat(report.compaction()).isEmpty();
    Table after = load(table);
    assertThat(sorted.rewrite().snapshotId()).contains(after.currentSnapshot().snapshotId());
    assertThat(idsInFileOrder(after)).containsExactly(10, 9, 8, 7, 5, 4, 3, 2);
    assertThat(icebergRows(after)).isEqualTo(rowsBefore).hasSize(8);
    // The job's walk still finds every batch through the replace snapshot.
    for (int i = 0; i < 4; i++) {
      assertThat(CommitMarker.find(after, "s" + i)).map(Snapshot::snapshotId).contains(before.get(i).snapshotId());
    }
    assertThat(report.toLine()).contains("\"sort\":{\"order\":\"id DESC NULLS LAST\",\"from\":\"maintain.sort-by\","
        + "\"rewrittenFiles\":4,\"addedFiles\":1,");
  }

  @Test
  void zOrderRewritesTheFilesByTheProfilesColumns() throws Exception {
    String table = "local.m.zordered";
    unsortedBatches(table);
    List<String> rowsBefore = icebergRows(load(table));

    MaintainReport report = maintained(requestWith("maintain.z-order-by = [a, b]\n", table, "--sort",
        "--target-file-size", "1048576", "--min-input-files", "2"));

    MaintainReport.Sorted sorted = (MaintainReport.Sorted) report.sort().orElseThrow();
    assertThat(sorted.order()).isEqualTo("zorder(a, b)");
    assertThat(sorted.from()).isEqualTo("maintain.z-order-by");
    assertThat(sorted.rewrite().rewrittenFiles()).isEqualTo(4);
    assertThat(sorted.rewrite().addedFiles()).isEqualTo(1);
    assertThat(icebergRows(load(table))).isEqualTo(rowsBefore);
  }

  @Test
  void withoutAProfileOrderTheTablesOwnSortOrderIsUsed() throws Exception {
    String table = "local.m.ordered";
    unsortedBatches(table);
    spark.sql("ALTER TABLE " + table + " WRITE ORDERED BY id");

    MaintainReport report = maintained(request(table, "--sort", "--target-file-size", "1048576",
        "--min-input-files", "2"));

    MaintainReport.Sorted sorted = (MaintainReport.Sorted) report.sort().orElseThrow();
    assertThat(sorted.from()).isEqualTo("table");
    assertThat(sorted.order()).isEqualTo("id ASC NULLS FIRST");
    assertThat(idsInFileOrder(load(table))).containsExactly(2, 3, 4, 5, 7, 8, 9, 10);
  }

  @Test
  void aTableWithNoOrderIsNotSortedButSaysWhatToSetAndStillCompacts() throws Exception {
    String table = "local.m.unordered";
    unsortedBatches(table);

    String[] run = runMain(request(table, "--sort", "--compact", "--target-file-size", "1048576",
        "--min-input-files", "2"));

    assertThat(run[0]).as(run[2]).isEqualTo("0");
    assertThat(run[1]).contains("\"sort\":{\"skipped\":\"table local.m.unordered has no sort order: set"
        + " maintain.sort-by (or maintain.z-order-by) in its profile, or give the table one with ALTER TABLE"
        + " local.m.unordered WRITE ORDERED BY ...\"}", "\"compaction\":{\"rewrittenFiles\":4,\"addedFiles\":1,");
  }

  @Test
  void aSortColumnTheTableDoesNotHaveIsASkipNamingTheKeyAndTheColumn() throws Exception {
    String table = "local.m.badsort";
    List<Snapshot> before = unsortedBatches(table);

    MaintainReport report = maintained(requestWith("maintain.sort-by = [id, \"amount DESC\"]\n", table, "--sort",
        "--min-input-files", "2"));

    assertThat(report.sort()).contains(new MaintainReport.SortSkipped("maintain.sort-by[1]: column \"amount\" is"
        + " not in table local.m.badsort (its columns: id, a, b)"));
    assertThat(load(table).currentSnapshot().snapshotId()).isEqualTo(before.get(3).snapshotId());
  }

  @Test
  void positionDeleteFilesAreRewrittenAndTheRowsAndBatchMarkersStay() throws Exception {
    String table = "local.m.deletes";
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.m");
    tableWithPositionDeletes(spark, table, "d");
    Table loaded = load(table);
    List<String> rowsBefore = icebergRows(loaded);
    int deleteFilesBefore = Set.copyOf(deleteFiles(loaded)).size();
    assertThat(deleteFilesBefore).isEqualTo(3);

    MaintainReport dry = maintained(request(table, "--rewrite-position-deletes", "--min-input-files", "3",
        "--dry-run"));
    assertThat(dry.positionDeletes().orElseThrow().rewrittenFiles()).isEqualTo(3);
    assertThat(load(table).currentSnapshot().snapshotId()).isEqualTo(loaded.currentSnapshot().snapshotId());

    // Fewer delete files in the partition than --min-input-files: nothing to merge, nothing committed.
    MaintainReport fewer = maintained(request(table, "--rewrite-position-deletes", "--min-input-files", "4",
        "--protect-newest", "3"));
    assertThat(fewer.positionDeletes()).contains(new MaintainReport.Rewritten(0, 0, 0, Optional.empty()));
    assertThat(load(table).currentSnapshot().snapshotId()).isEqualTo(loaded.currentSnapshot().snapshotId());

    MaintainReport report = maintained(request(table, "--rewrite-position-deletes", "--min-input-files", "3",
        "--protect-newest", "3"));

    MaintainReport.Rewritten rewritten = report.positionDeletes().orElseThrow();
    assertThat(rewritten.rewrittenFiles()).isEqualTo(3);
    assertThat(rewritten.addedFiles()).isEqualTo(1);
    Table after = load(table);
    assertThat(Set.copyOf(deleteFiles(after))).hasSize(1);
    assertThat(rewritten.snapshotId()).contains(after.currentSnapshot().snapshotId());
    assertThat(icebergRows(after)).isEqualTo(rowsBefore);
    for (int id = 1; id <= 3; id++) {
      assertThat(CommitMarker.find(after, "d" + id)).isPresent();
    }
  }

  @Test
  void manifestsAreRewrittenIntoFewerAndEveryBatchIsStillFound() throws Exception {
    String table = "local.m.manifests";
    List<Snapshot> before = tableWithBatches(table, "f1", "f2", "f3", "f4");
    Table loaded = load(table);
    assertThat(loaded.currentSnapshot().dataManifests(loaded.io())).hasSize(4);

    MaintainReport report = maintained(request(table, "--rewrite-manifests", "--protect-newest", "4"));

    MaintainReport.Rewritten rewritten = report.manifests().orElseThrow();
    assertThat(rewritten.rewrittenFiles()).isEqualTo(4);
    assertThat(rewritten.addedFiles()).isEqualTo(1);
    assertThat(rewritten.rewrittenBytes()).isPositive();
    Table after = load(table);
    assertThat(after.currentSnapshot().dataManifests(after.io())).hasSize(1);
    assertThat(icebergRows(after)).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(CommitMarker.find(after, "f" + (i + 1))).map(Snapshot::snapshotId)
          .contains(before.get(i).snapshotId());
    }
    assertThat(report.toLine()).contains("\"manifests\":{\"rewrittenFiles\":4,\"addedFiles\":1,");

    // A scheduled run again: one manifest has nothing to regroup, and no snapshot is committed.
    MaintainReport again = maintained(request(table, "--rewrite-manifests", "--protect-newest", "4"));
    assertThat(again.manifests()).contains(new MaintainReport.Rewritten(0, 0, 0, Optional.empty()));
    assertThat(load(table).currentSnapshot().snapshotId()).isEqualTo(after.currentSnapshot().snapshotId());
  }

  /** A file under the table's data folder that no snapshot references, last modified {@code age} ago. */
  static Path orphan(Table table, String name, java.time.Duration age) throws Exception {
    Path data = Path.of(java.net.URI.create(table.location().startsWith("file:") ? table.location()
        : "file://" + table.location())).resolve("data");
    Path file = Files.writeString(Files.createDirectories(data).resolve(name), "not a data file");
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.from(Instant.now().minus(age)));
    return file;
  }

  @Test
  void orphanFilesOlderThanTheCutoffAreRemovedAndNewerOnesAndTheTablesFilesStay() throws Exception {
    String table = "local.m.orphans";
    tableWithBatches(table, "o1", "o2");
    Table loaded = load(table);
    List<String> rowsBefore = icebergRows(loaded);
    Path old = orphan(loaded, "old-orphan.parquet", java.time.Duration.ofDays(4));
    Path recent = orphan(loaded, "recent-orphan.parquet", java.time.Duration.ofHours(2));
    String cutoff = Instant.now().minus(java.time.Duration.ofDays(3)).toString();

    MaintainReport dry = maintained(request(table, "--remove-orphans-older-than", cutoff, "--dry-run"));
    assertThat(dry.orphans().orElseThrow().removedFiles()).isEqualTo(1);
    assertThat(dry.orphans().orElseThrow().files()).singleElement().asString().endsWith("/old-orphan.parquet");
    assertThat(old).exists();

    MaintainReport report = maintained(request(table, "--remove-orphans-older-than", cutoff));

    assertThat(report.orphans().orElseThrow().removedFiles()).isEqualTo(1);
    assertThat(report.orphans().orElseThrow().olderThan()).isEqualTo(Instant.parse(cutoff));
    assertThat(old).doesNotExist();
    assertThat(recent).exists();
    assertThat(icebergRows(load(table))).isEqualTo(rowsBefore);
    assertThat(report.toLine()).contains("\"orphanFiles\":{\"olderThan\":\"" + cutoff + "\",\"removedFiles\":1,"
        + "\"files\":[\"");
  }

  @Test
  void anOrphanCutoffLessThanADayAgoIsRefusedNamingWhy() {
    String cutoff = Instant.now().minus(java.time.Duration.ofHours(3)).toString();

    assertThatThrownBy(() -> request("local.m.x", "--remove-orphans-older-than", cutoff))
        .hasMessageStartingWith("--remove-orphans-older-than " + cutoff + " is less than 24h before now (")
        .hasMessageEndingWith("): the data files of a batch still in flight, or of one recovery relaunches, would be"
            + " deleted before they are committed");
  }

  @Test
  void compactionAppliesAndDropsTheDeleteFilesOfAMergeOnReadTable() throws Exception {
    String table = "local.m.mor";
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.m");
    createMergeOnReadTable(spark, table, "(id INT, v STRING, dt STRING) USING iceberg PARTITIONED BY (dt)", "");
    spark.sql("INSERT INTO " + table + " VALUES (1, 'one', 'a'), (2, 'two', 'a'), (3, 'three', 'b')");
    spark.sql("MERGE INTO " + table + " t USING (SELECT 2 AS id, 'TWO' AS v, 'a' AS dt) s"
        + " ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
    List<String> rowsBefore = spark.sql("SELECT * FROM " + table + " ORDER BY id").collectAsList().stream()
        .map(Object::toString).toList();
    assertThat(deleteFiles(load(table))).isNotEmpty();

    MaintainReport report = maintained(request(table, "--compact", "--target-file-size", "1048576",
        "--min-input-files", "5"));

    Table after = load(table);
    assertThat(deleteFiles(after)).isEmpty();
    assertThat(after.currentSnapshot().summary()).containsEntry("total-position-deletes", "0");
    assertThat(report.compaction().orElseThrow().rewrittenFiles()).isPositive();
    assertThat(spark.sql("SELECT * FROM " + table + " ORDER BY id").collectAsList().stream().map(Object::toString)
        .toList()).isEqualTo(rowsBefore).containsExactly("[1,one,a]", "[2,TWO,a]", "[3,three,b]");
  }

  @Test
  void protectedBatchKeepsItsSnapshotAndEveryNewerAncestorThroughCompactionAndExpiry() throws Exception {
    String table = "local.m.protect";
    List<Snapshot> before = tableWithBatches(table, "b1", "b2", "b3", "b4");

    MaintainReport report = maintained(request(table, "--protect", "b2=in flight, lease expired",
        "--protect", "gone=FAILED", "--compact", "--target-file-size", "1048576", "--min-input-files", "2"));

    assertThat(report.protectedSnapshots()).singleElement().satisfies(p -> {
      assertThat(p.batchId()).isEqualTo("b2");
      assertThat(p.snapshotId()).isEqualTo(before.get(1).snapshotId());
      assertThat(p.reason()).isEqualTo("in flight, lease expired");
    });
    assertThat(report.notInTable()).containsExactly("gone");
    assertThat(report.olderThan()).isEqualTo(Instant.ofEpochMilli(before.get(1).timestampMillis()));
    assertThat(report.compaction().orElseThrow().rewrittenFiles()).isEqualTo(4);
    assertThat(report.compaction().orElseThrow().addedFiles()).isEqualTo(1);
    assertThat(report.expiredSnapshotIds()).containsExactly(before.get(0).snapshotId());
    Table after = load(table);
    Snapshot compaction = after.currentSnapshot();
    assertThat(compaction.operation()).isEqualTo("replace");
    assertThat(compaction.summary()).doesNotContainKey(CommitMarker.BATCH_ID);
    assertThat(report.compaction().orElseThrow().snapshotId()).contains(compaction.snapshotId());
    // The job's walk still finds the protected batch (and the newer ones) through the replace snapshot.
    assertThat(CommitMarker.find(after, "b2")).map(Snapshot::snapshotId).contains(before.get(1).snapshotId());
    assertThat(CommitMarker.find(after, "b4")).map(Snapshot::snapshotId).contains(before.get(3).snapshotId());
    assertThat(CommitMarker.find(after, "b1")).isEmpty();
    assertThat(rows(table)).isEqualTo(4);
    assertThat(report.toLine()).startsWith("{\"files2iceberg-maintain\":{\"table\":\"" + table + "\",\"dryRun\":false,");

    // Without the protection the same expiry drops the marker: the rule is what keeps it.
    MaintainReport unprotected = maintained(request(table));
    assertThat(unprotected.expiredSnapshotIds()).hasSize(3);
    assertThat(CommitMarker.find(load(table), "b2")).isEmpty();
    assertThat(rows(table)).isEqualTo(4);
  }

  @Test
  void newestBatchesTheLedgerKeepsAreProtectedWithoutBeingNamed() throws Exception {
    String table = "local.m.newest";
    List<Snapshot> before = tableWithBatches(table, "n1", "n2", "n3", "n4");

    MaintainReport report = maintained(request(table, "--protect-newest", "2",
        "--protect", "n4=RUNNING, lease expired"));

    assertThat(report.protectedSnapshots()).extracting(ProtectedSnapshot::batchId).containsExactly("n2", "n3", "n4");
    assertThat(report.protectedSnapshots().get(0).reason()).startsWith("one of the 2 newest batches in the table");
    assertThat(report.protectedSnapshots().get(2).reason()).isEqualTo("RUNNING, lease expired");
    assertThat(report.expiredSnapshotIds()).containsExactly(before.get(0).snapshotId());
    assertThat(snapshots(table)).extracting(Snapshot::snapshotId)
        .containsExactly(before.get(1).snapshotId(), before.get(2).snapshotId(), before.get(3).snapshotId());
  }

  @Test
  void dryRunReportsWhatTheRunThenDoesAndChangesNothing() throws Exception {
    String table = "local.m.dry";
    List<Snapshot> before = tableWithBatches(table, "d1", "d2", "d3");

    String[] run = runMain(request(table, "--dry-run", "--compact", "--target-file-size", "1048576",
        "--min-input-files", "2"));

    assertThat(run[0]).as(run[2]).isEqualTo("0");
    String line = run[1].strip();
    assertThat(line).contains("\"dryRun\":true", "\"compaction\":{\"rewrittenFiles\":3,\"addedFiles\":0,",
        "\"expiredSnapshots\":[" + before.get(0).snapshotId() + "," + before.get(1).snapshotId() + "]",
        "\"snapshotsBefore\":3,\"snapshotsAfter\":1");
    assertThat(snapshots(table)).extracting(Snapshot::snapshotId)
        .containsExactlyElementsOf(before.stream().map(Snapshot::snapshotId).toList());
    assertThat(load(table).currentSnapshot().snapshotId()).isEqualTo(before.get(2).snapshotId());

    MaintainReport real = maintained(request(table));
    assertThat(real.expiredSnapshotIds()).containsExactly(before.get(0).snapshotId(), before.get(1).snapshotId());
  }

  @Test
  void aTableNotCreatedYetIsSkippedWithItsReasonInTheResultAndTheResultFile() throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.m");
    Path resultFile = root.resolve("missing-result.json");

    String[] run = runMain(request("local.m.missing", "--compact", "--result", resultFile.toUri().toString()));

    assertThat(run[0]).as(run[2]).isEqualTo("0");
    String line = "{\"files2iceberg-maintain\":{\"table\":\"local.m.missing\",\"dryRun\":false,"
        + "\"skipped\":{\"reason\":\"not created yet\",\"detail\":\"no batch has loaded it\"}}}";
    assertThat(run[1]).isEqualTo(line + System.lineSeparator());
    assertThat(run[2]).isEmpty();
    assertThat(Files.readString(resultFile)).isEqualTo(line + "\n");
    // Skipping creates nothing.
    assertThat(spark.sql("SHOW TABLES IN local.m LIKE 'missing'").count()).isZero();
  }

  @Test
  void aTableWhoseNamespaceDoesNotExistIsSkippedAsNotCreatedYet() throws Exception {
    String[] run = runMain(request("local.nowhere.events", "--dry-run"));

    assertThat(run[0]).as(run[2]).isEqualTo("0");
    assertThat(run[1].strip()).isEqualTo("{\"files2iceberg-maintain\":{\"table\":\"local.nowhere.events\","
        + "\"dryRun\":true,\"skipped\":{\"reason\":\"not created yet\",\"detail\":\"no batch has loaded it\"}}}");
    assertThat(spark.sql("SHOW NAMESPACES IN local LIKE 'nowhere'").count()).isZero();
  }

  @Test
  void aTableTheCatalogCannotReadStillFailsNamingIt() throws Exception {
    String table = "local.m.unreadable";
    tableWithBatches(table, "u1");
    Table loaded = load(table);
    String metadata = ((org.apache.iceberg.HasTableOperations) loaded).operations().current().metadataFileLocation();
    Files.delete(Path.of(java.net.URI.create(metadata.startsWith("file:") ? metadata : "file://" + metadata)));
    spark.sql("REFRESH TABLE " + table); // drops the catalog's cached copy: the next load reads the catalog

    String[] run = runMain(request(table));

    assertThat(run[0]).isEqualTo(Integer.toString(MaintainMain.EXIT_FAILED));
    assertThat(run[1]).isEmpty();
    assertThat(run[2]).startsWith("files2iceberg: table local.m.unreadable maintenance failed: ")
        .contains(metadata.substring(metadata.lastIndexOf('/') + 1));
  }

  @Test
  void aCatalogThatCannotBeReachedFailsNamingTheTableTheCatalogAndWhy() throws Exception {
    // A catalog whose database cannot be opened: its folder does not exist.
    Path unreachable = root.resolve("no-such-folder").resolve("catalog.db");
    spark.conf().set("spark.sql.catalog.broken", "org.apache.iceberg.spark.SparkCatalog");
    spark.conf().set("spark.sql.catalog.broken.type", "jdbc");
    spark.conf().set("spark.sql.catalog.broken.uri", "jdbc:sqlite:" + unreachable);
    spark.conf().set("spark.sql.catalog.broken.warehouse", root.resolve("broken-warehouse").toString());

    String[] run = runMain(requestWith("catalog.uri = \"jdbc:sqlite:" + unreachable + "\"\n", "broken.m.events"));

    assertThat(run[0]).isEqualTo(Integer.toString(MaintainMain.EXIT_FAILED));
    assertThat(run[1]).isEmpty();
    assertThat(run[2]).startsWith("files2iceberg: table broken.m.events maintenance failed: Cannot reach catalog broken:"
        + " Failed to connect: jdbc:sqlite:" + unreachable + ": [SQLITE_CANTOPEN]");
  }

  @Test
  void badArgumentsNameTheOption() throws Exception {
    assertThatThrownBy(() -> request("local.m.x", "--retain-last", "0"))
        .hasMessage("--retain-last must be at least 1 (the current snapshot), was 0");
    assertThatThrownBy(() -> MaintainRequest.parse(new String[] {"--retention-cutoff", "2026-11-30T12:00:00Z"}))
        .hasMessage("--profile is required");
    assertThatThrownBy(() -> request("local.m.x", "--protect", "no-reason"))
        .hasMessage("--protect takes BATCH_ID=REASON, was \"no-reason\"");
  }
}
