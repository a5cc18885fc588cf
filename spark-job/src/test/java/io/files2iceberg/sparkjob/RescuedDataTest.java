package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transform.rescued-data-column}: a value a row cannot load as it is goes, as JSON with the
 * row's file, to that column, and the row loads; without the key a failed cast is a bad record
 * and a column the table cannot take fails the batch, as before.
 */
class RescuedDataTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType INT_AMOUNTS = new StructType()
      .add("id", DataTypes.StringType)
      .add("amount", DataTypes.IntegerType);
  static final StructType STRING_AMOUNTS = new StructType()
      .add("id", DataTypes.StringType)
      .add("amount", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile orders(String table, String format, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/*/*"
          format = %s
          options { header = "true" }
        }
        load {
          iceberg.table = "local.rescue.%s"
          primary-key = [id]
        }
        %s
        """.formatted(fixture.landing(table), format, table, extra));
  }

  static String uri(Landed landed) {
    return JobFixture.uri(landed.path());
  }

  /** The table's rows through Iceberg's own reader, each as {@code id|amount|rescued}. */
  static List<String> icebergRows(String table, String... columns) {
    try {
      Table loaded = Spark3Util.loadIcebergTable(fixture.spark, table);
      try (CloseableIterable<Record> records = IcebergGenerics.read(loaded).select(columns).build()) {
        List<String> rows = new java.util.ArrayList<>();
        for (Record record : records) {
          StringBuilder row = new StringBuilder();
          for (int i = 0; i < columns.length; i++) {
            row.append(i == 0 ? "" : "|").append(record.getField(columns[i]));
          }
          rows.add(row.toString());
        }
        rows.sort(null);
        return rows;
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void failedCastInAJsonFileIsNullInItsColumnAndKeptAsJsonWithTheFileAndTheRowLoads() throws Exception {
    TableProfile profile = orders("jsoncast", "json", """
        transform { cast.columns { amount = INT }, rescued-data-column = _rescued_data }
        """);
    Landed file = Landed.of(fixture.writeText("jsoncast/p1/orders.json",
        "{\"id\": \"o1\", \"amount\": \"10\"}\n{\"id\": \"o2\", \"amount\": \"ten\"}\n"), "p1");
    BatchManifest batch = fixture.claimBatch(profile, file);

    BatchLoadReport report = fixture.load(batch);

    assertThat(icebergRows("local.rescue.jsoncast", "id", "amount", "_rescued_data")).containsExactly(
        "o1|10|null",
        "o2|null|{\"amount\":\"ten\",\"_file_path\":\"" + uri(file) + "\"}");
    assertThat(fixture.rows("SELECT id, get_json_object(_rescued_data, '$.amount'),"
        + " get_json_object(_rescued_data, '$._file_path') FROM local.rescue.jsoncast WHERE _rescued_data IS NOT NULL"))
        .containsExactly("[o2,ten," + uri(file) + "]");
    Types.NestedField column = Spark3Util.loadIcebergTable(fixture.spark, "local.rescue.jsoncast").schema()
        .findField("_rescued_data");
    assertThat(column.type()).isEqualTo(Types.StringType.get());
    assertThat(column.isOptional()).isTrue();
    assertThat(report.metrics().rowsRead()).isEqualTo(2);
    assertThat(report.metrics().rowsInserted()).isEqualTo(2);
    assertThat(report.metrics().rowsRejected()).isZero();
    assertThat(report.rejectedTable()).isEmpty();
    assertThat(fixture.spark.catalog().tableExists("local.rescue.jsoncast__rejected")).isFalse();
  }

  @Test
  void failedCastsInACsvFileAreRescuedWhileANullKeyIsStillRejected() {
    TableProfile profile = orders("csvcast", "csv", """
        transform {
          cast.columns { amount = INT, seen = DATE }
          rescued-data-column = _rescued_data
          on-bad-record = reject
        }
        """);
    Landed file = Landed.of(fixture.writeText("csvcast/p1/orders.csv", """
        id,amount,seen
        o1,10,2024-05-01
        o2,ten,yesterday
        o3,30,
        ,40,2024-05-02
        """), "p1");
    BatchManifest batch = fixture.claimBatch(profile, file);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT id, amount, seen, _rescued_data FROM local.rescue.csvcast ORDER BY id"))
        .containsExactly(
            "[o1,10,2024-05-01,null]",
            "[o2,null,null,{\"amount\":\"ten\",\"seen\":\"yesterday\",\"_file_path\":\"" + uri(file) + "\"}]",
            "[o3,30,null,null]");
    assertThat(fixture.rows("SELECT column_name, reason FROM local.rescue.csvcast__rejected"))
        .containsExactly("[id,primary key column id is null]");
    assertThat(report.metrics().rowsRead()).isEqualTo(4);
    assertThat(report.metrics().rowsInserted()).isEqualTo(3);
    assertThat(report.metrics().rowsRejected()).isEqualTo(1);
  }

  @Test
  void failedCastOfAKeyColumnIsNeverRescued() {
    TableProfile profile = orders("keycast", "json", """
        transform { cast.columns { id = INT }, rescued-data-column = _rescued_data }
        """);
    Landed file = Landed.of(fixture.writeText("keycast/p1/orders.json",
        "{\"id\": \"1\", \"amount\": 10}\n{\"id\": \"x\", \"amount\": 20}\n"), "p1");
    BatchManifest batch = fixture.claimBatch(profile, file);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: file " + uri(file) + ": column id: cannot cast to INT (value 'x');"
        + " 1 bad record(s) in the batch");
    assertThat(fixture.spark.catalog().tableExists("local.rescue.keycast")).isFalse();
  }

  @Test
  void parquetColumnWhoseTypeCannotWidenToTheTablesIsRescuedAndTheFileLoads() {
    TableProfile profile = orders("widen", "parquet", "transform.rescued-data-column = _rescued_data");
    fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet", "widen/p1/a.parquet",
        INT_AMOUNTS, List.of(RowFactory.create("o1", 10))), "p1")));
    Landed strings = Landed.of(fixture.writeFile("parquet", "widen/p2/b.parquet", STRING_AMOUNTS,
        List.of(RowFactory.create("o2", "12.5"), RowFactory.create("o3", null))), "p2");
    Landed ints = Landed.of(fixture.writeFile("parquet", "widen/p2/c.parquet", INT_AMOUNTS,
        List.of(RowFactory.create("o4", 40))), "p2");

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, strings, ints));

    assertThat(icebergRows("local.rescue.widen", "id", "amount", "_rescued_data")).containsExactly(
        "o1|10|null",
        "o2|null|{\"amount\":\"12.5\",\"_file_path\":\"" + uri(strings) + "\"}",
        "o3|null|null",
        "o4|40|null");
    assertThat(fixture.rows("SELECT DISTINCT typeof(amount) FROM local.rescue.widen")).containsExactly("[int]");
    assertThat(report.quarantinedFiles()).isEmpty();
    assertThat(report.metrics().files()).isEqualTo(2);
    assertThat(report.metrics().rowsInserted()).isEqualTo(3);
    assertThat(report.metrics().rowsRejected()).isZero();
  }

  @Test
  void typeConflictWithAnEarlierFileOfTheFirstBatchIsRescuedInTheLaterFile() {
    TableProfile profile = orders("conflict", "json", "transform.rescued-data-column = _rescued_data");
    Landed numbers = Landed.of(fixture.writeText("conflict/p1/a.json", "{\"id\": \"o1\", \"amount\": 1}\n"), "p1");
    Landed words = Landed.of(fixture.writeText("conflict/p1/b.json", "{\"id\": \"o2\", \"amount\": \"one\"}\n"), "p1");

    fixture.load(fixture.claimBatch(profile, numbers, words));

    assertThat(fixture.rows("SELECT id, amount, typeof(amount), _rescued_data FROM local.rescue.conflict ORDER BY id"))
        .containsExactly(
            "[o1,1,bigint,null]",
            "[o2,null,bigint,{\"amount\":\"one\",\"_file_path\":\"" + uri(words) + "\"}]");
  }

  @Test
  void withoutTheRescuedColumnAParquetTypeTheTableCannotTakeStillFailsTheBatch() {
    TableProfile profile = orders("nowiden", "parquet", "");
    fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet", "nowiden/p1/a.parquet",
        INT_AMOUNTS, List.of(RowFactory.create("o1", 10))), "p1")));
    Landed strings = Landed.of(fixture.writeFile("parquet", "nowiden/p2/b.parquet", STRING_AMOUNTS,
        List.of(RowFactory.create("o2", "12.5"))), "p2");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, strings)));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: column amount: file " + strings.path().toUri() + " has type string"
        + " but table local.rescue.nowiden has type int, which is not a safe change");
    assertThat(fixture.rows("SELECT id FROM local.rescue.nowiden")).containsExactly("[o1]");
  }

  @Test
  void columnTheTableDoesNotHaveIsRescuedWhenSchemaEvolutionIsOffAndTheRescuedColumnIsStillAdded() throws Exception {
    fixture.load(fixture.claimBatch(orders("frozen", "json", ""), Landed.of(fixture.writeText(
        "frozen/p1/a.json", "{\"id\": \"o1\", \"amount\": 1}\n"), "p1")));
    TableProfile frozen = orders("frozen", "json", """
        transform.rescued-data-column = _rescued_data
        load.schema-evolution = false
        """);
    Landed extra = Landed.of(fixture.writeText("frozen/p2/b.json", """
        {"id": "o1", "amount": 2, "note": "late", "tags": ["a", "b"]}
        {"id": "o2", "amount": 3}
        """), "p2");

    BatchLoadReport report = fixture.load(fixture.claimBatch(frozen, extra));

    assertThat(fixture.rows("SELECT id, amount, _rescued_data FROM local.rescue.frozen ORDER BY id")).containsExactly(
        "[o1,2,{\"note\":\"late\",\"tags\":\"[\\\"a\\\",\\\"b\\\"]\",\"_file_path\":\"" + uri(extra) + "\"}]",
        "[o2,3,null]");
    assertThat(Spark3Util.loadIcebergTable(fixture.spark, "local.rescue.frozen").schema().columns())
        .extracting(Types.NestedField::name).containsExactly("amount", "id", "partition", "_rescued_data");
    assertThat(report.metrics().rowsUpdated()).isEqualTo(1);
    assertThat(report.metrics().rowsInserted()).isEqualTo(1);
  }

  @Test
  void updateOfARescuedRowByACleanOneClearsTheRescuedColumn() {
    TableProfile profile = orders("clears", "json", """
        transform { cast.columns { amount = INT }, rescued-data-column = _rescued_data }
        """);
    fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeText("clears/p1/a.json",
        "{\"id\": \"o1\", \"amount\": \"ten\"}\n"), "p1")));
    fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeText("clears/p2/b.json",
        "{\"id\": \"o1\", \"amount\": \"10\"}\n"), "p2")));

    assertThat(fixture.rows("SELECT id, amount, _rescued_data FROM local.rescue.clears")).containsExactly("[o1,10,null]");
  }

  @Test
  void fileColumnNamedLikeTheRescuedColumnFailsTheBatchNamingTheKey() {
    TableProfile profile = orders("collides", "json", "transform.rescued-data-column = _rescued_data");
    Landed file = Landed.of(fixture.writeText("collides/p1/a.json",
        "{\"id\": \"o1\", \"_rescued_data\": \"mine\"}\n"), "p1");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, file)));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: transform.rescued-data-column: \"_rescued_data\" is also a column of"
        + " file " + uri(file) + " (type string); rename that column with transform.rename-columns or choose another"
        + " name");
  }

  @Test
  void tableColumnOfAnotherTypeNamedLikeTheRescuedColumnFailsTheBatchNamingTheKey() {
    fixture.load(fixture.claimBatch(orders("typed", "json", ""), Landed.of(fixture.writeText("typed/p1/a.json",
        "{\"id\": \"o1\", \"_rescued_data\": 7}\n"), "p1")));
    TableProfile profile = orders("typed", "json", """
        transform.rescued-data-column = _rescued_data
        transform.rename-columns { _rescued_data = old }
        """);
    Landed file = Landed.of(fixture.writeText("typed/p2/b.json", "{\"id\": \"o2\", \"_rescued_data\": 8}\n"), "p2");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, file)));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: column _rescued_data: transform.rescued-data-column has type string"
        + " but table local.rescue.typed has type bigint, which is not a safe change");
  }
}
