package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport.Checkpoint;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.List;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Append, Overwrite of the batch's partitions, and the whole-table modes full and last. */
class LoadModesTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType READINGS = new StructType()
      .add("id", DataTypes.IntegerType)
      .add("value", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile readings(String table, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load.iceberg.table = "local.modes.%s"
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  static Landed readings(String table, String day, String name, Row... rows) {
    return Landed.of(fixture.writeFile("parquet", table + "/dt=" + day + "/" + name, READINGS, List.of(rows)), day);
  }

  @Test
  void appendKeepsEveryRowOfEveryBatch() {
    TableProfile profile = readings("append", "");
    fixture.load(fixture.claimBatch(profile, readings("append", "2024-01-01", "a.parquet",
        RowFactory.create(1, "a"), RowFactory.create(1, "a again"))));

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, readings("append", "2024-01-02", "a.parquet",
        RowFactory.create(1, "b"))));

    assertThat(fixture.rows("SELECT id, value, dt FROM local.modes.append ORDER BY dt, value"))
        .containsExactly("[1,a,2024-01-01]", "[1,a again,2024-01-01]", "[1,b,2024-01-02]");
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
  }

  @Test
  void objectRewrittenBeforeItsBatchIsReadOnceThoughTwoGenerationsAreInTheBatch() {
    TableProfile profile = readings("rewritten", "");
    Landed first = readings("rewritten", "2024-01-01", "a.parquet", RowFactory.create(1, "old"));
    Landed second = readings("rewritten", "2024-01-01", "a.parquet", RowFactory.create(1, "new"));
    assertThat(first.path()).isEqualTo(second.path());
    Landed newer = new Landed(second.path(), second.partition(), first.generation() + 1);

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, first, newer));

    assertThat(fixture.rows("SELECT id, value FROM local.modes.rewritten")).containsExactly("[1,new]");
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsRead()).isEqualTo(1);
  }

  @Test
  void overwriteReplacesOnlyTheBatchsPartitionsWithTheirWholeLiveContent() {
    TableProfile profile = readings("overwrite", """
        load {
          save-mode = Overwrite
          partition-by = [dt]
        }
        """);
    fixture.load(fixture.claimBatch(profile,
        readings("overwrite", "2024-01-01", "a.parquet", RowFactory.create(1, "day one")),
        readings("overwrite", "2024-01-02", "a.parquet", RowFactory.create(2, "day two, first"))));

    fixture.load(fixture.claimBatch(profile,
        readings("overwrite", "2024-01-02", "b.parquet", RowFactory.create(3, "day two, again"))));

    assertThat(fixture.rows("SELECT id, value, dt FROM local.modes.overwrite ORDER BY id"))
        .containsExactly("[1,day one,2024-01-01]", "[2,day two, first,2024-01-02]", "[3,day two, again,2024-01-02]");
  }

  @Test
  void fullModeReplacesTheWholeTableAndWritesNoCheckpoint() {
    TableProfile profile = readings("full", "extract.batch-file.ingestion-type = full");
    Landed first = readings("full", "2024-01-01", "a.parquet", RowFactory.create(1, "old"), RowFactory.create(2, "old"));
    fixture.load(fixture.unrecordedBatch(profile, "full-run-1", first));

    Landed second = readings("full", "2024-01-02", "a.parquet", RowFactory.create(3, "new"));
    BatchLoadReport report = fixture.load(fixture.unrecordedBatch(profile, "full-run-2", first, second));

    assertThat(fixture.rows("SELECT id, value FROM local.modes.full ORDER BY id"))
        .containsExactly("[1,old]", "[2,old]", "[3,new]");
    assertThat(report.checkpoint()).isEqualTo(Checkpoint.SKIPPED);
    assertThat(fixture.rows("SELECT operation FROM local.modes.full.snapshots ORDER BY committed_at DESC LIMIT 1"))
        .containsExactly("[overwrite]");
  }

  @Test
  void lastModeReplacesTheWholeTableWithTheNewestPartitionDeduplicatedByKey() {
    TableProfile profile = readings("last", """
        extract.batch-file.ingestion-type = last
        load.primary-key = [id]
        """);
    fixture.load(fixture.claimBatch(profile, readings("last", "2024-01-01", "a.parquet",
        RowFactory.create(1, "monday"), RowFactory.create(2, "monday"))));

    fixture.load(fixture.claimBatch(profile, readings("last", "2024-01-02", "a.parquet",
        RowFactory.create(2, "tuesday, first"), RowFactory.create(2, "tuesday, last"), RowFactory.create(3, "tuesday"))));

    assertThat(fixture.rows("SELECT id, value, dt FROM local.modes.last ORDER BY id"))
        .containsExactly("[2,tuesday, last,2024-01-02]", "[3,tuesday,2024-01-02]");
  }

  @Test
  void tablePartitionedByDaysOfATimestampIsCreatedWithThatSpecAndMergedIntoWithMergeOnRead() throws Exception {
    StructType events = new StructType()
        .add("id", DataTypes.LongType)
        .add("ts", DataTypes.TimestampType)
        .add("state", DataTypes.StringType);
    TableProfile profile = fixture.profile("days", """
        extract.path = "file://%s/*/*.parquet"
        load {
          iceberg.table = "local.modes.days"
          primary-key = [id]
          iceberg.precombine-field = ts
          partition-by = ["days(ts)", "bucket(4, id)"]
          iceberg.table-properties { "write.merge.mode" = "merge-on-read", "write.update.mode" = "merge-on-read" }
        }
        """.formatted(fixture.landing("days")));
    fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet", "days/b1/part-0.parquet", events,
        List.of(RowFactory.create(1L, Timestamp.valueOf("2024-01-01 08:00:00"), "open"),
            RowFactory.create(2L, Timestamp.valueOf("2024-01-02 08:00:00"), "open"))), "b1")));

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet",
        "days/b2/part-0.parquet", events,
        List.of(RowFactory.create(1L, Timestamp.valueOf("2024-01-03 09:00:00"), "closed"))), "b2")));

    Table table = Spark3Util.loadIcebergTable(fixture.spark, "local.modes.days");
    assertThat(table.spec().fields()).extracting(PartitionField::name).containsExactly("ts_day", "id_bucket");
    assertThat(((HasTableOperations) table).operations().current().formatVersion()).isEqualTo(2);
    assertThat(table.properties()).containsEntry("write.merge.mode", "merge-on-read");
    assertThat(fixture.rows("SELECT id, ts, state FROM local.modes.days ORDER BY id"))
        .containsExactly("[1,2024-01-03 09:00:00.0,closed]", "[2,2024-01-02 08:00:00.0,open]");
    assertThat(report.metrics().rowsUpdated()).isEqualTo(1);
    assertThat(fixture.rows("SELECT count(*) FROM local.modes.days.delete_files")).containsExactly("[1]");
  }

  @Test
  void batchWhoseRowsAreAllFilteredOutCommitsAnEmptySnapshotCarryingTheBatchId() {
    TableProfile profile = readings("empty", "transform.filter = [\"id > 100\"]");
    fixture.load(fixture.claimBatch(profile, readings("empty", "2024-01-01", "a.parquet", RowFactory.create(1, "a"))));
    BatchManifest batch = fixture.claimBatch(profile, readings("empty", "2024-01-02", "a.parquet", RowFactory.create(2, "b")));

    BatchLoadReport report = fixture.load(batch);

    assertThat(report.metrics().rowsFiltered()).isEqualTo(1);
    assertThat(fixture.rows("SELECT count(*) FROM local.modes.empty")).containsExactly("[0]");
    assertThat(fixture.rows("SELECT snapshot_id, summary['files2iceberg.batch-id'] FROM local.modes.empty.snapshots"
            + " ORDER BY committed_at DESC LIMIT 1"))
        .containsExactly("[" + report.snapshotId() + "," + batch.batchId() + "]");
  }
}
