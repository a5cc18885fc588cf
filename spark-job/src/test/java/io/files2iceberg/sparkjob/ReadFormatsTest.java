package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every format, with its reader options, and the columns the job adds. */
class ReadFormatsTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType ITEMS = new StructType()
      .add("id", DataTypes.IntegerType)
      .add("name", DataTypes.StringType);
  static final List<Row> TWO_ITEMS = List.of(RowFactory.create(1, "one"), RowFactory.create(2, "two"));

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile items(String table, String format, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/day=*/*"
          format = %s
          batch-file {
            partition-type = date
            pattern = ".+/day=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load.iceberg.table = "local.formats.%s"
        %s
        """.formatted(fixture.landing(table), format, table, extra));
  }

  private void loadsTwoItems(String format) {
    TableProfile profile = items(format, format, "");
    Path file = fixture.writeFile(format, format + "/day=2024-03-01/part-0." + format, ITEMS, TWO_ITEMS);

    fixture.load(fixture.claimBatch(profile, Landed.of(file, "2024-03-01")));

    assertThat(fixture.rows("SELECT id, name, day FROM local.formats." + format + " ORDER BY id"))
        .containsExactly("[1,one,2024-03-01]", "[2,two,2024-03-01]");
    StructType schema = fixture.spark.table("local.formats." + format).schema();
    // No lineage columns unless the profile asks for them; the internal columns are never written.
    assertThat(schema.fieldNames()).containsExactly("id", "name", "day");
    assertThat(schema.apply("id").dataType()).isEqualTo(DataTypes.IntegerType);
    assertThat(schema.apply("day").dataType()).isEqualTo(DataTypes.DateType);
  }

  @Test
  void parquetIsLoadedWithTheDatePartitionColumnTypedAsDateAndNoLineage() {
    loadsTwoItems("parquet");
  }

  @Test
  void orcIsLoaded() {
    loadsTwoItems("orc");
  }

  @Test
  void avroIsLoaded() {
    loadsTwoItems("avro");
  }

  @Test
  void jsonLinesAreLoadedAndCast() {
    TableProfile profile = items("json", "json", "transform.cast.columns { id = INT }");
    Path file = fixture.writeText("json/day=2024-03-01/events.json",
        "{\"id\": 1, \"name\": \"one\"}\n{\"id\": 2, \"name\": \"two\", \"extra\": true}\n");

    fixture.load(fixture.claimBatch(profile, Landed.of(file, "2024-03-01")));

    assertThat(fixture.rows("SELECT id, name, extra, day FROM local.formats.json ORDER BY id"))
        .containsExactly("[1,one,null,2024-03-01]", "[2,two,true,2024-03-01]");
    assertThat(fixture.spark.table("local.formats.json").schema().apply("id").dataType())
        .isEqualTo(DataTypes.IntegerType);
  }

  @Test
  void csvIsReadWithTheHeaderDelimiterAndQuoteOfTheReaderOptions() {
    TableProfile profile = items("csv", "csv", """
        extract.options { header = "true", delimiter = ";", quote = "'" }
        transform.cast.columns { id = BIGINT }
        """);
    Path file = fixture.writeText("csv/day=2024-03-01/items.csv", "id;name\n1;'one;uno'\n2;two\n");

    fixture.load(fixture.claimBatch(profile, Landed.of(file, "2024-03-01")));

    assertThat(fixture.rows("SELECT id, name FROM local.formats.csv ORDER BY id"))
        .containsExactly("[1,one;uno]", "[2,two]");
    assertThat(fixture.spark.table("local.formats.csv").schema().apply("id").dataType())
        .isEqualTo(DataTypes.LongType);
  }

  @Test
  void lineageColumnsSayWhereEachRowCameFrom() {
    TableProfile profile = items("lineage", "parquet",
        "extract.lineage-columns = [_source_file, _source_generation, _batch_id, _ingested_at]");
    Path file = fixture.writeFile("parquet", "lineage/day=2024-03-01/part-0.parquet", ITEMS, TWO_ITEMS);
    BatchManifest batch = fixture.claimBatch(profile, new Landed(file, "2024-03-01", 42));

    fixture.load(batch);

    assertThat(fixture.rows("SELECT id, _source_file, _source_generation, _batch_id, _ingested_at FROM local.formats.lineage"
            + " ORDER BY id"))
        .containsExactly(
            "[1," + file.toUri() + ",42," + batch.batchId() + "," + java.sql.Timestamp.from(fixture.clock.instant()) + "]",
            "[2," + file.toUri() + ",42," + batch.batchId() + "," + java.sql.Timestamp.from(fixture.clock.instant()) + "]");
  }
}
