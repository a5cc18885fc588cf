package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.schema-evolution}'s four modes, on a new top-level column and on a field new inside
 * a struct column: what the table's schema becomes, what rows read back, what the file's history
 * counts, and the error a refusal gives.
 */
class SchemaEvolutionModesTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType META_AB = new StructType()
      .add("a", DataTypes.StringType)
      .add("b", DataTypes.IntegerType);
  static final StructType META_ABC = META_AB.add("c", DataTypes.StringType);
  static final StructType BEFORE = new StructType()
      .add("id", DataTypes.StringType)
      .add("meta", META_AB);
  static final StructType AFTER = new StructType()
      .add("id", DataTypes.StringType)
      .add("meta", META_ABC)
      .add("note", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile profile(String table, String extra) {
    return fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        extract.quarantine-bad-files = true
        load { iceberg.table = "local.modes.%s", primary-key = [id] }
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  /** The table loaded once from a file of {@link #BEFORE}, then a file of {@link #AFTER} to load. */
  static Landed tableThenAWiderFile(String table, TableProfile profile) {
    fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet", table + "/p1/a.parquet", BEFORE,
        List.of(RowFactory.create("k1", RowFactory.create("x", 1)))), "p1")));
    return Landed.of(fixture.writeFile("parquet", table + "/p2/b.parquet", AFTER,
        List.of(RowFactory.create("k2", RowFactory.create("y", 2, "new"), "hello"))), "p2");
  }

  static String tableSchema(String table) throws Exception {
    return Spark3Util.loadIcebergTable(fixture.spark, "local.modes." + table).schema().asStruct().toString();
  }

  static FileRows onlyFileRows(BatchLoadReport report) {
    assertThat(report.fileRows()).hasSize(1);
    return report.fileRows().values().iterator().next();
  }

  @Test
  void addNewColumnsAddsAFieldNewInsideAStructAndATopLevelColumnAndLoadsBoth() throws Exception {
    TableProfile profile = profile("added", "");
    Landed wider = tableThenAWiderFile("added", profile);

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, wider));

    assertThat(report.quarantinedFiles()).isEmpty();
    assertThat(fixture.rows("SELECT id, meta.a, meta.b, meta.c, note FROM local.modes.added ORDER BY id"))
        .containsExactly("[k1,x,1,null,null]", "[k2,y,2,new,hello]");
    assertThat(tableSchema("added")).contains("meta: optional struct<", "c: optional string", "note: optional string");
    assertThat(onlyFileRows(report).ignoredColumns()).isZero();
  }

  @Test
  void aBatchWithTheOldAndTheWiderStructLoadsBothWithNullWhereTheOldFileHasNoField() throws Exception {
    TableProfile profile = profile("mixed", "");
    Landed wider = tableThenAWiderFile("mixed", profile);
    Landed old = Landed.of(fixture.writeFile("parquet", "mixed/p2/c.parquet", BEFORE,
        List.of(RowFactory.create("k3", RowFactory.create("z", 3)))), "p2");

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, old, wider));

    assertThat(report.quarantinedFiles()).isEmpty();
    assertThat(fixture.rows("SELECT id, meta.a, meta.b, meta.c, note FROM local.modes.mixed ORDER BY id"))
        .containsExactly("[k1,x,1,null,null]", "[k2,y,2,new,hello]", "[k3,z,3,null,null]");
  }

  @Test
  void failOnNewColumnsFailsTheBatchNamingTheFileAndTheColumnsAndCommitsNothing() throws Exception {
    TableProfile profile = profile("failing", "load.schema-evolution = fail-on-new-columns");
    Landed wider = tableThenAWiderFile("failing", profile);
    long snapshots = fixture.snapshotCount("local.modes.failing");
    String before = tableSchema("failing");
    BatchManifest batch = fixture.claimBatch(profile, wider);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: file " + JobFixture.uri(wider.path()) + " has column(s) that table"
        + " local.modes.failing does not have: meta.c string, note string; load.schema-evolution ="
        + " fail-on-new-columns refuses them: set load.schema-evolution to add-new-columns (or rescue, or none), or"
        + " add the columns to the table");
    assertThat(fixture.snapshotCount("local.modes.failing")).isEqualTo(snapshots);
    assertThat(tableSchema("failing")).isEqualTo(before);
    assertThat(fixture.rows("SELECT id FROM local.modes.failing")).containsExactly("[k1]");
  }

  @Test
  void rescueKeepsTheTablesSchemaAndPutsTheNewColumnsValuesInTheRescuedDataColumn() throws Exception {
    TableProfile profile = profile("rescued", """
        transform.rescued-data-column = _rescued_data
        load.schema-evolution = rescue
        """);
    Landed wider = tableThenAWiderFile("rescued", profile);
    String before = tableSchema("rescued");

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, wider));

    assertThat(tableSchema("rescued")).isEqualTo(before);
    assertThat(fixture.rows("SELECT id, meta.a, meta.b, _rescued_data FROM local.modes.rescued ORDER BY id"))
        .containsExactly("[k1,x,1,null]",
            "[k2,y,2,{\"meta.c\":\"new\",\"note\":\"hello\",\"_file_path\":\"" + JobFixture.uri(wider.path()) + "\"}]");
    assertThat(onlyFileRows(report).rescued()).isEqualTo(1);
    assertThat(onlyFileRows(report).ignoredColumns()).isZero();
  }

  @Test
  void noneKeepsTheTablesSchemaLeavesTheNewColumnsOutAndCountsThemForTheFile() throws Exception {
    TableProfile profile = profile("ignored", "load.schema-evolution = none");
    Landed wider = tableThenAWiderFile("ignored", profile);
    String before = tableSchema("ignored");

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, wider));

    assertThat(tableSchema("ignored")).isEqualTo(before);
    assertThat(fixture.rows("SELECT id, meta.a, meta.b FROM local.modes.ignored ORDER BY id"))
        .containsExactly("[k1,x,1]", "[k2,y,2]");
    assertThat(report.quarantinedFiles()).isEmpty();
    assertThat(onlyFileRows(report)).isEqualTo(new FileRows(1, 0, 0, 2));
  }

  @Test
  void noneWithARescuedDataColumnPutsTheNewColumnsValuesThere() throws Exception {
    TableProfile profile = profile("noneRescued", """
        transform.rescued-data-column = _rescued_data
        load.schema-evolution = none
        """);
    Landed wider = tableThenAWiderFile("noneRescued", profile);

    fixture.load(fixture.claimBatch(profile, wider));

    assertThat(fixture.rows("SELECT id, get_json_object(_rescued_data, '$.note') FROM local.modes.noneRescued"
        + " ORDER BY id")).containsExactly("[k1,null]", "[k2,hello]");
    assertThat(fixture.spark.table("local.modes.noneRescued").columns())
        .containsExactly("id", "meta", "partition", "_rescued_data");
  }
}
