package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lineage recipe of docs/recipes.md: with every lineage column, each stored row names the object, the
 * generation and the batch it came from, and the batch id is that of the snapshot which committed
 * it; an update replaces the row's lineage with the winner's.
 */
class LineageRecipeTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType CLICKS = new StructType()
      .add("id", DataTypes.IntegerType)
      .add("value", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  @Test
  void everyRowNamesItsObjectGenerationAndBatchAndAnUpdateTakesTheWinnersLineage() throws Exception {
    TableProfile profile = fixture.profile("lineage", """
        extract {
          path = "file://%s/dt=*/*.parquet"
          lineage-columns = [_source_file, _source_generation, _batch_id, _ingested_at]
          batch-file {
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load { iceberg.table = "local.recipes.lineage", primary-key = [id] }
        """.formatted(fixture.landing("lineage")));
    Landed first = land("2024-01-01/a.parquet", RowFactory.create(1, "a"), RowFactory.create(2, "a"));
    BatchManifest one = fixture.claimBatch(profile, first);
    fixture.load(one);
    Landed second = land("2024-01-02/b.parquet", RowFactory.create(2, "b"));
    BatchManifest two = fixture.claimBatch(profile, second);
    fixture.load(two);

    assertThat(fixture.rows("SELECT id, value, _source_file, _source_generation, _batch_id"
        + " FROM local.recipes.lineage ORDER BY id")).containsExactly(
            "[1,a," + JobFixture.uri(first.path()) + "," + first.generation() + "," + one.batchId() + "]",
            "[2,b," + JobFixture.uri(second.path()) + "," + second.generation() + "," + two.batchId() + "]");

    // Each row's batch is the batch id of a snapshot of the table, read through Iceberg's API,
    // and its _ingested_at is when that batch started.
    Table table = Spark3Util.loadIcebergTable(fixture.spark, "local.recipes.lineage");
    List<String> snapshotBatches = new java.util.ArrayList<>();
    for (Snapshot snapshot : table.snapshots()) {
      snapshotBatches.add(snapshot.summary().get("files2iceberg.batch-id"));
    }
    assertThat(snapshotBatches).containsExactly(one.batchId(), two.batchId());
    assertThat(fixture.rows("SELECT count(DISTINCT _ingested_at) FROM local.recipes.lineage")).containsExactly("[2]");
    assertThat(fixture.rows("SELECT _source_file, count(*) FROM local.recipes.lineage GROUP BY 1 ORDER BY 1"))
        .containsExactly("[" + JobFixture.uri(first.path()) + ",1]", "[" + JobFixture.uri(second.path()) + ",1]");
  }

  private static Landed land(String relative, Row... rows) {
    Path path = fixture.writeFile("parquet", "lineage/dt=" + relative, CLICKS, List.of(rows));
    return new Landed(path, relative.substring(0, relative.indexOf('/')), JobFixture.liveGeneration(path));
  }
}
