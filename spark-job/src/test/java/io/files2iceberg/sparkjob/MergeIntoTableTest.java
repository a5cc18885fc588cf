package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keyed loads: one row per key per batch, MERGE across batches, newer precombine values win. */
class MergeIntoTableTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType CLICKS = new StructType()
      .add("click_id", DataTypes.StringType)
      .add("user_id", DataTypes.StringType)
      .add("click_time", DataTypes.TimestampType)
      .add("temp_id", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  /** The example profile of docs/profiles.md, on parquet files in the landing folder. */
  static TableProfile clicks(String table) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = yyyy-MM-dd
          }
        }
        transform {
          filter = ["click_id IS NOT NULL", "user_id != ''"]
          rename-columns { temp_id = temporary_id }
          cast.columns { user_id = BIGINT }
        }
        load {
          iceberg.table = "local.demo.%s"
          primary-key = [click_id]
          partition-by = [dt]
          iceberg.precombine-field = click_time
        }
        """.formatted(fixture.landing(table), table));
  }

  static Row click(String id, String user, String time, String temp) {
    return RowFactory.create(id, user, Timestamp.valueOf("2024-01-01 " + time), temp);
  }

  static Landed clicksFile(String table, String day, String name, long generation, Row... rows) {
    Path path = fixture.writeFile("parquet", table + "/dt=" + day + "/" + name, CLICKS, List.of(rows));
    return new Landed(path, day, generation);
  }

  @Test
  void duplicateKeysWithinABatchKeepTheRowWithTheHighestPrecombineValue() {
    TableProfile profile = clicks("dupes");
    BatchManifest batch = fixture.claimBatch(profile,
        clicksFile("dupes", "2024-01-01", "a.parquet", 1,
            click("c1", "1", "10:00:00", "first"), click("c1", "1", "10:05:00", "newest"), click("c2", "2", "10:00:00", "only")),
        clicksFile("dupes", "2024-01-01", "b.parquet", 1, click("c1", "1", "10:03:00", "middle")));

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT click_id, user_id, click_time, temporary_id, dt FROM local.demo.dupes ORDER BY click_id"))
        .containsExactly("[c1,1,2024-01-01 10:05:00.0,newest,2024-01-01]", "[c2,2,2024-01-01 10:00:00.0,only,2024-01-01]");
    assertThat(report.metrics().rowsRead()).isEqualTo(4);
    assertThat(report.metrics().rowsInserted()).isEqualTo(2);
    assertThat(report.metrics().files()).isEqualTo(2);
    assertThat(report.checkpoint()).isEqualTo(BatchLoadReport.Checkpoint.COMMITTED);
  }

  @Test
  void precombineTiesAreBrokenByObjectGenerationThenByFileOrder() {
    TableProfile profile = clicks("ties");
    BatchManifest batch = fixture.claimBatch(profile,
        // Same key and time in all three: the highest generation wins, wherever its file is.
        clicksFile("ties", "2024-01-01", "a.parquet", 7, click("c1", "1", "10:00:00", "generation 7")),
        clicksFile("ties", "2024-01-01", "b.parquet", 3, click("c1", "1", "10:00:00", "generation 3")),
        // Same generation: the file later in the manifest wins.
        clicksFile("ties", "2024-01-01", "c.parquet", 1, click("c2", "2", "10:00:00", "earlier file")),
        clicksFile("ties", "2024-01-01", "d.parquet", 1, click("c2", "2", "10:00:00", "later file")));

    fixture.load(batch);

    assertThat(fixture.rows("SELECT click_id, temporary_id FROM local.demo.ties ORDER BY click_id"))
        .containsExactly("[c1,generation 7]", "[c2,later file]");
  }

  @Test
  void laterBatchUpdatesStoredRowsAndInsertsNewKeys() {
    TableProfile profile = clicks("updates");
    fixture.load(fixture.claimBatch(profile, clicksFile("updates", "2024-01-01", "a.parquet", 1,
        click("c1", "1", "10:00:00", "v1"), click("c2", "2", "10:00:00", "v1"))));

    BatchManifest second = fixture.claimBatch(profile, clicksFile("updates", "2024-01-02", "a.parquet", 1,
        click("c1", "1", "11:00:00", "v2"), click("c3", "3", "11:00:00", "v1")));
    BatchLoadReport report = fixture.load(second);

    assertThat(fixture.rows("SELECT click_id, temporary_id, dt FROM local.demo.updates ORDER BY click_id"))
        .containsExactly("[c1,v2,2024-01-02]", "[c2,v1,2024-01-01]", "[c3,v1,2024-01-02]");
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isEqualTo(1);
    assertThat(report.metrics().rowsUnchanged()).isZero();
    try (Ledger ledger = fixture.openLedger()) {
      BatchRecord stored = ledger.batch(second.batchId()).orElseThrow();
      assertThat(stored.state()).isEqualTo(BatchState.COMMITTED);
      assertThat(stored.snapshotId()).contains(report.snapshotId());
      assertThat(stored.metrics()).contains(report.metrics());
      assertThat(stored.eventIds()).isEqualTo(second.eventIds());
    }
  }

  @Test
  void olderPrecombineValueDoesNotOverwriteANewerStoredRow() {
    TableProfile profile = clicks("replay");
    fixture.load(fixture.claimBatch(profile, clicksFile("replay", "2024-01-02", "a.parquet", 1,
        click("c1", "1", "12:00:00", "newer"))));

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, clicksFile("replay", "2024-01-01", "a.parquet", 1,
        click("c1", "1", "09:00:00", "older"), click("c2", "2", "09:00:00", "new key"))));

    assertThat(fixture.rows("SELECT click_id, click_time, temporary_id FROM local.demo.replay ORDER BY click_id"))
        .containsExactly("[c1,2024-01-01 12:00:00.0,newer]", "[c2,2024-01-01 09:00:00.0,new key]");
    assertThat(report.metrics().rowsUnchanged()).isEqualTo(1);
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
    assertThat(report.metrics().rowsUpdated()).isZero();
  }

  @Test
  void emptyUserIdIsFilteredOutBeforeTheCastToBigint() {
    TableProfile profile = clicks("filtered");
    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, clicksFile("filtered", "2024-01-01", "a.parquet", 1,
        click("c1", "42", "10:00:00", null), click("c2", "", "10:00:00", null), click(null, "7", "10:00:00", null))));

    assertThat(fixture.rows("SELECT click_id, user_id FROM local.demo.filtered")).containsExactly("[c1,42]");
    assertThat(fixture.spark.table("local.demo.filtered").schema().apply("user_id").dataType())
        .isEqualTo(DataTypes.LongType);
    assertThat(report.metrics().rowsRead()).isEqualTo(3);
    assertThat(report.metrics().rowsFiltered()).isEqualTo(2);
    assertThat(report.metrics().rowsRejected()).isZero();
  }
}
