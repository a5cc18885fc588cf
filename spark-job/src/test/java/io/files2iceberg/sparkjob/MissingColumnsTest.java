package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
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

/**
 * A keyed table updated by a file that lacks a column: {@code load.missing-columns = keep} (the
 * default) leaves the stored value, {@code null} replaces it; inserts get NULL, and a NULL the file
 * holds is written. The files' {@code status} column is renamed {@code s}.
 */
class MissingColumnsTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType FULL = schema("id", DataTypes.StringType, "amount", DataTypes.IntegerType,
      "status", DataTypes.StringType);
  static final StructType WITHOUT_STATUS = schema("id", DataTypes.StringType, "amount", DataTypes.IntegerType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile table(String table, String extra) {
    return fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        transform.rename-columns { status = s }
        load {
          iceberg.table = "local.missing.%s"
          primary-key = [id]
        }
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  static StructType schema(Object... namesAndTypes) {
    StructType schema = new StructType();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      schema = schema.add((String) namesAndTypes[i], (DataType) namesAndTypes[i + 1]);
    }
    return schema;
  }

  static Landed file(String table, String partition, String name, long generation, StructType schema, Row... rows) {
    return new Landed(fixture.writeFile("parquet", table + "/" + partition + "/" + name, schema, List.of(rows)),
        partition, generation);
  }

  static List<String> rows(String table) {
    return fixture.rows("SELECT id, amount, s FROM local.missing." + table + " ORDER BY id");
  }

  /** The first batch: key k1 with s = 's1'. */
  static void loadFirst(TableProfile profile, String table) {
    fixture.load(fixture.claimBatch(profile,
        file(table, "p1", "a.parquet", 1, FULL, RowFactory.create("k1", 1, "s1"))));
  }

  @Test
  void fileWithoutAColumnKeepsTheStoredValueOnUpdateAndInsertsNull() {
    TableProfile profile = table("keep", "");
    loadFirst(profile, "keep");

    fixture.load(fixture.claimBatch(profile, file("keep", "p2", "b.parquet", 1, WITHOUT_STATUS,
        RowFactory.create("k1", 2), RowFactory.create("k2", 3))));

    assertThat(rows("keep")).containsExactly("[k1,2,s1]", "[k2,3,null]");
  }

  @Test
  void mergeOnReadTableKeepsTheStoredValueToo() {
    TableProfile profile = table("mor", """
        load.iceberg.table-properties { "write.merge.mode" = merge-on-read, "write.update.mode" = merge-on-read }
        """);
    loadFirst(profile, "mor");

    fixture.load(fixture.claimBatch(profile,
        file("mor", "p2", "b.parquet", 1, WITHOUT_STATUS, RowFactory.create("k1", 2))));

    assertThat(rows("mor")).containsExactly("[k1,2,s1]");
  }

  @Test
  void nullHeldByTheFileIsWrittenOverTheStoredValue() {
    TableProfile profile = table("explicit", "");
    loadFirst(profile, "explicit");

    fixture.load(fixture.claimBatch(profile,
        file("explicit", "p2", "b.parquet", 1, FULL, RowFactory.create("k1", 2, null))));

    assertThat(rows("explicit")).containsExactly("[k1,2,null]");
  }

  @Test
  void winningRowFromAFileWithoutTheColumnKeepsTheStoredValueWhenAnotherFileOfTheBatchHasIt() {
    TableProfile profile = table("winner", "");
    loadFirst(profile, "winner");

    // Both files update k1; the newer generation wins, and it has no status column.
    fixture.load(fixture.claimBatch(profile,
        file("winner", "p2", "b.parquet", 1, FULL, RowFactory.create("k1", 2, "s2"), RowFactory.create("k3", 4, "s3")),
        file("winner", "p2", "c.parquet", 2, WITHOUT_STATUS, RowFactory.create("k1", 3))));

    assertThat(rows("winner")).containsExactly("[k1,3,s1]", "[k3,4,s3]");
  }

  @Test
  void tableColumnNoFileOfTheBatchHasKeepsTheStoredValue() {
    TableProfile profile = table("batchwide", "transform.cast.columns { note = STRING }");
    fixture.load(fixture.claimBatch(profile, file("batchwide", "p1", "a.parquet", 1,
        schema("id", DataTypes.StringType, "amount", DataTypes.IntegerType, "status", DataTypes.StringType,
            "note", DataTypes.StringType),
        RowFactory.create("k1", 1, "s1", "n1"))));
    TableProfile withoutNote = table("batchwide", "");

    fixture.load(fixture.claimBatch(withoutNote,
        file("batchwide", "p2", "b.parquet", 1, WITHOUT_STATUS, RowFactory.create("k1", 2))));

    assertThat(fixture.rows("SELECT id, amount, s, note FROM local.missing.batchwide"))
        .containsExactly("[k1,2,s1,n1]");
  }

  @Test
  void castColumnNoFileHasKeepsTheStoredValue() {
    TableProfile profile = table("castonly", "transform.cast.columns { note = STRING }");
    fixture.load(fixture.claimBatch(profile, file("castonly", "p1", "a.parquet", 1,
        schema("id", DataTypes.StringType, "amount", DataTypes.IntegerType, "status", DataTypes.StringType,
            "note", DataTypes.StringType),
        RowFactory.create("k1", 1, "s1", "n1"))));

    fixture.load(fixture.claimBatch(profile,
        file("castonly", "p2", "b.parquet", 1, FULL, RowFactory.create("k1", 2, "s2"))));

    assertThat(fixture.rows("SELECT id, amount, s, note FROM local.missing.castonly"))
        .containsExactly("[k1,2,s2,n1]");
  }

  @Test
  void missingColumnsNullReplacesTheStoredValueWithNull() {
    TableProfile profile = table("nulled", "load.missing-columns = null");
    loadFirst(profile, "nulled");

    fixture.load(fixture.claimBatch(profile,
        file("nulled", "p2", "b.parquet", 1, WITHOUT_STATUS, RowFactory.create("k1", 2))));

    assertThat(rows("nulled")).containsExactly("[k1,2,null]");
  }

  @Test
  void olderRowIsStillNotAppliedWhenItsFileLacksAColumn() {
    TableProfile profile = fixture.profile("precombined", """
        extract.path = "file://%s/*/*.parquet"
        load {
          iceberg.table = "local.missing.precombined"
          primary-key = [id]
          iceberg.precombine-field = version
        }
        """.formatted(fixture.landing("precombined")));
    fixture.load(fixture.claimBatch(profile, file("precombined", "p1", "a.parquet", 1,
        schema("id", DataTypes.StringType, "version", DataTypes.IntegerType, "s", DataTypes.StringType),
        RowFactory.create("k1", 5, "s5"), RowFactory.create("k2", 5, "s5"))));

    fixture.load(fixture.claimBatch(profile, file("precombined", "p2", "b.parquet", 1,
        schema("id", DataTypes.StringType, "version", DataTypes.IntegerType),
        RowFactory.create("k1", 4), RowFactory.create("k2", 6))));

    assertThat(fixture.rows("SELECT id, version, s FROM local.missing.precombined ORDER BY id"))
        .containsExactly("[k1,5,s5]", "[k2,6,s5]");
  }
}
