package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** New columns are added, safe widenings applied, unsafe changes refused with a precise error. */
class SchemaEvolutionTest {
  @TempDir static Path home;
  static JobFixture fixture;

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile table(String table, String extra) {
    return fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        load.iceberg.table = "local.evo.%s"
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  static Landed file(String table, String partition, StructType schema, Row... rows) {
    return Landed.of(fixture.writeFile("parquet", table + "/" + partition + "/part-0.parquet", schema, List.of(rows)),
        partition);
  }

  static StructType schema(Object... namesAndTypes) {
    StructType schema = new StructType();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      schema = schema.add((String) namesAndTypes[i], (DataType) namesAndTypes[i + 1]);
    }
    return schema;
  }

  static DataType type(String table, String column) {
    return fixture.spark.table("local.evo." + table).schema().apply(column).dataType();
  }

  @Test
  void columnNewInTheFilesIsAddedToTheTable() {
    TableProfile profile = table("added", "");
    fixture.load(fixture.claimBatch(profile,
        file("added", "p1", schema("id", DataTypes.IntegerType), RowFactory.create(1))));

    fixture.load(fixture.claimBatch(profile, file("added", "p2",
        schema("id", DataTypes.IntegerType, "note", DataTypes.StringType), RowFactory.create(2, "new"))));

    assertThat(fixture.rows("SELECT id, note FROM local.evo.added ORDER BY id")).containsExactly("[1,null]", "[2,new]");
  }

  @Test
  void tableColumnMissingFromTheFilesIsFilledWithNull() {
    TableProfile profile = table("missing", "");
    fixture.load(fixture.claimBatch(profile, file("missing", "p1",
        schema("id", DataTypes.IntegerType, "note", DataTypes.StringType), RowFactory.create(1, "kept"))));

    fixture.load(fixture.claimBatch(profile,
        file("missing", "p2", schema("id", DataTypes.IntegerType), RowFactory.create(2))));

    assertThat(fixture.rows("SELECT id, note FROM local.evo.missing ORDER BY id")).containsExactly("[1,kept]", "[2,null]");
  }

  @Test
  void safeWideningsAreAppliedToTheTable() {
    TableProfile profile = table("widened", "");
    fixture.load(fixture.claimBatch(profile, file("widened", "p1",
        schema("id", DataTypes.IntegerType, "ratio", DataTypes.FloatType, "price", DataTypes.createDecimalType(10, 2)),
        RowFactory.create(1, 0.5f, new BigDecimal("12345678.90")))));

    fixture.load(fixture.claimBatch(profile, file("widened", "p2",
        schema("id", DataTypes.LongType, "ratio", DataTypes.DoubleType, "price", DataTypes.createDecimalType(14, 2)),
        RowFactory.create(5_000_000_000L, 0.25d, new BigDecimal("123456789012.34")))));

    assertThat(type("widened", "id")).isEqualTo(DataTypes.LongType);
    assertThat(type("widened", "ratio")).isEqualTo(DataTypes.DoubleType);
    assertThat(type("widened", "price")).isEqualTo(DataTypes.createDecimalType(14, 2));
    assertThat(fixture.rows("SELECT id, ratio, price FROM local.evo.widened ORDER BY id"))
        .containsExactly("[1,0.5,12345678.90]", "[5000000000,0.25,123456789012.34]");
  }

  @Test
  void narrowerTypeInTheFilesIsWrittenIntoTheWiderColumn() {
    TableProfile profile = table("narrower", "");
    fixture.load(fixture.claimBatch(profile,
        file("narrower", "p1", schema("id", DataTypes.LongType), RowFactory.create(5_000_000_000L))));

    fixture.load(fixture.claimBatch(profile,
        file("narrower", "p2", schema("id", DataTypes.IntegerType), RowFactory.create(2))));

    assertThat(type("narrower", "id")).isEqualTo(DataTypes.LongType);
    assertThat(fixture.rows("SELECT id FROM local.evo.narrower ORDER BY id")).containsExactly("[2]", "[5000000000]");
  }

  @Test
  void unsafeTypeChangeFailsNamingTheColumnTheFileAndBothTypesAndWritesNothing() {
    TableProfile profile = table("unsafe", "");
    fixture.load(fixture.claimBatch(profile, file("unsafe", "p1",
        schema("id", DataTypes.IntegerType, "amount", DataTypes.IntegerType), RowFactory.create(1, 10))));
    long snapshots = fixture.snapshotCount("local.evo.unsafe");
    Landed stringAmount = file("unsafe", "p2",
        schema("id", DataTypes.IntegerType, "amount", DataTypes.StringType), RowFactory.create(2, "ten"));
    BatchManifest batch = fixture.claimBatch(profile, stringAmount);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr.strip()).isEqualTo("files2iceberg: table local.evo.unsafe batch " + batch.batchId()
        + " rejected: column amount: file " + stringAmount.path().toUri() + " has type string but table local.evo.unsafe"
        + " has type int, which is not a safe change (safe: int -> bigint, float -> double, decimal to more precision);"
        + " set extract.quarantine-bad-files = true to quarantine it and load the other files");
    assertThat(fixture.stdout).isEmpty();
    assertThat(fixture.snapshotCount("local.evo.unsafe")).isEqualTo(snapshots);
    assertThat(type("unsafe", "amount")).isEqualTo(DataTypes.IntegerType);
    try (Ledger ledger = fixture.openLedger()) {
      assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);
    }
  }

  @Test
  void filesOfOneBatchWithConflictingTypesFailNamingBothFiles() {
    TableProfile profile = table("conflict", "");
    Landed ints = file("conflict", "p1", schema("amount", DataTypes.IntegerType), RowFactory.create(1));
    Landed strings = file("conflict", "p2", schema("amount", DataTypes.StringType), RowFactory.create("one"));

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, ints, strings)));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("column amount: file " + strings.path().toUri() + " has type string but file "
        + ints.path().toUri() + " has type int, and neither widens safely to the other");
  }

  @Test
  void newColumnsFailTheBatchNamingThemWhenSchemaEvolutionIsTheBooleanFalseOfOld() {
    TableProfile profile = table("frozen", "load.schema-evolution = false");
    fixture.load(fixture.claimBatch(profile,
        file("frozen", "p1", schema("id", DataTypes.IntegerType), RowFactory.create(1))));
    Landed wider = file("frozen", "p2", schema("id", DataTypes.IntegerType, "note", DataTypes.StringType,
        "flag", DataTypes.BooleanType), RowFactory.create(2, "x", true));

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, wider)));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("file " + JobFixture.uri(wider.path()) + " has column(s) that table"
        + " local.evo.frozen does not have: note string, flag boolean; load.schema-evolution = fail-on-new-columns"
        + " refuses them");
    assertThat(fixture.spark.table("local.evo.frozen").columns()).containsExactly("id", "partition");
  }
}
