package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
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
 * A file whose schema cannot be aligned with the table's (a key or precombine column missing, a
 * type that cannot widen, no column in common) is quarantined alone with {@code
 * extract.quarantine-bad-files = true}, and the rest of its partition loads; without it the batch
 * fails naming the file and the column.
 */
class SchemaDifferentFileTest {
  @TempDir static Path home;
  static JobFixture fixture;

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile table(String table, String extra) {
    return fixture.profile(table, """
        extract.path = "file://%s/*/*.parquet"
        load.iceberg.table = "local.odd.%s"
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  static TableProfile keyed(String table, String extra) {
    return table(table, "load.primary-key = [id]\n" + extra);
  }

  static StructType schema(Object... namesAndTypes) {
    StructType schema = new StructType();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      schema = schema.add((String) namesAndTypes[i], (DataType) namesAndTypes[i + 1]);
    }
    return schema;
  }

  static final StructType ORDERS = schema("id", DataTypes.IntegerType, "amount", DataTypes.IntegerType);

  static Landed file(String table, String partition, String name, StructType schema, Row... rows) {
    return Landed.of(fixture.writeFile("parquet", table + "/" + partition + "/" + name, schema, List.of(rows)),
        partition);
  }

  static FileRecord ledgerFile(BatchManifest batch, Landed landed) {
    String uri = landed.path().toUri().toString();
    String fileId = batch.files().stream().filter(f -> f.uri().equals(uri)).findFirst().map(ManifestFile::fileId)
        .orElseThrow();
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.file(fileId).orElseThrow();
    }
  }

  static BatchState batchState(BatchManifest batch) {
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.batch(batch.batchId()).orElseThrow().state();
    }
  }

  /** The odd file is QUARANTINED with the reason, listed in the report; the good one INGESTED. */
  static void assertQuarantinedAlone(BatchManifest batch, BatchLoadReport report, Landed good, Landed odd,
      String reason) {
    FileRecord stored = ledgerFile(batch, odd);
    assertThat(stored.state()).isEqualTo(FileState.QUARANTINED);
    assertThat(stored.quarantineReason().orElseThrow()).isEqualTo(reason);
    assertThat(report.quarantinedFiles()).extracting(QuarantinedFile::uri).containsExactly(odd.path().toUri().toString());
    assertThat(report.quarantinedFiles()).extracting(QuarantinedFile::reason).containsExactly(reason);
    assertThat(report.metrics().files()).isEqualTo(1);
    assertThat(ledgerFile(batch, good).state()).isEqualTo(FileState.INGESTED);
    assertThat(batchState(batch)).isEqualTo(BatchState.COMMITTED);
  }

  @Test
  void keylessFileSharingNoColumnWithTheTableIsQuarantinedAloneAndTheOtherFileLoads() {
    TableProfile profile = table("nocommon", "extract.quarantine-bad-files = true");
    fixture.load(fixture.claimBatch(profile, file("nocommon", "p1", "a.parquet", ORDERS, RowFactory.create(1, 10))));
    Landed good = file("nocommon", "p2", "b.parquet", ORDERS, RowFactory.create(2, 20));
    Landed odd = file("nocommon", "p2", "c.parquet", schema("x", DataTypes.StringType, "y", DataTypes.StringType),
        RowFactory.create("x1", "y1"));
    BatchManifest batch = fixture.claimBatch(profile, good, odd);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.nocommon ORDER BY id")).containsExactly("[1,10,p1]", "[2,20,p2]");
    assertQuarantinedAlone(batch, report, good, odd, "file " + odd.path().toUri() + " shares no column with table"
        + " local.odd.nocommon: its columns are [x, y], the table's [id, amount]");
  }

  @Test
  void keylessFirstBatchFileSharingNoColumnWithTheFirstFileIsQuarantined() {
    TableProfile profile = table("firstfile", "extract.quarantine-bad-files = true");
    Landed good = file("firstfile", "p1", "a.parquet", ORDERS, RowFactory.create(1, 10));
    Landed odd = file("firstfile", "p1", "b.parquet", schema("x", DataTypes.StringType), RowFactory.create("x1"));
    BatchManifest batch = fixture.claimBatch(profile, good, odd);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.firstfile")).containsExactly("[1,10,p1]");
    assertQuarantinedAlone(batch, report, good, odd, "file " + odd.path().toUri() + " shares no column with file "
        + good.path().toUri() + ", the first of the batch (there is no table yet and the profile declares no"
        + " column): its columns are [x], that file's [id, amount]");
  }

  @Test
  void keylessFirstBatchFileSharingNoColumnWithTheDeclaredColumnsIsQuarantinedEvenWhenItIsFirst() {
    TableProfile profile = table("declared", "extract.quarantine-bad-files = true\n"
        + "transform.cast.columns { amount = BIGINT }");
    Landed odd = file("declared", "p1", "a.parquet", schema("x", DataTypes.StringType), RowFactory.create("x1"));
    Landed good = file("declared", "p1", "b.parquet", ORDERS, RowFactory.create(1, 10));
    BatchManifest batch = fixture.claimBatch(profile, odd, good);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.declared")).containsExactly("[1,10,p1]");
    assertQuarantinedAlone(batch, report, good, odd, "file " + odd.path().toUri() + " shares no column with the"
        + " columns the profile declares: its columns are [x], the profile's [amount]");
  }

  @Test
  void keyedFileWithoutTheKeyColumnIsQuarantinedAloneAndTheGoodFileBesideItLoads() {
    TableProfile profile = keyed("nokey", "extract.quarantine-bad-files = true\n"
        + "transform.rename-columns { order_id = id }");
    Landed good = file("nokey", "p1", "a.parquet", schema("order_id", DataTypes.IntegerType, "amount", DataTypes.IntegerType),
        RowFactory.create(1, 10));
    Landed odd = file("nokey", "p1", "b.parquet", schema("amount", DataTypes.IntegerType, "note", DataTypes.StringType),
        RowFactory.create(20, "n"));
    BatchManifest batch = fixture.claimBatch(profile, good, odd);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.nokey")).containsExactly("[1,10,p1]");
    assertQuarantinedAlone(batch, report, good, odd, "file " + odd.path().toUri() + " has no column id, which"
        + " load.primary-key[0] needs (after transform.rename-columns its columns are [amount, note])");
  }

  @Test
  void batchWhoseOnlyFileIsAMisfitCommitsItsMarkerAndLeavesTheTableAsItWas() {
    TableProfile profile = keyed("onlyodd", "extract.quarantine-bad-files = true");
    fixture.load(fixture.claimBatch(profile, file("onlyodd", "p1", "a.parquet", ORDERS, RowFactory.create(1, 10))));
    Landed odd = file("onlyodd", "p2", "b.parquet", schema("amount", DataTypes.IntegerType), RowFactory.create(20));
    BatchManifest batch = fixture.claimBatch(profile, odd);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.onlyodd")).containsExactly("[1,10,p1]");
    assertThat(report.quarantinedFiles()).extracting(QuarantinedFile::uri).containsExactly(odd.path().toUri().toString());
    assertThat(ledgerFile(batch, odd).state()).isEqualTo(FileState.QUARANTINED);
    assertThat(batchState(batch)).isEqualTo(BatchState.COMMITTED);
  }

  @Test
  void keyedFileWithoutTheKeyColumnFailsTheBatchNamingTheFileAndTheColumnWhenQuarantineIsOff() {
    TableProfile profile = keyed("nokeyfail", "");
    Landed good = file("nokeyfail", "p1", "a.parquet", ORDERS, RowFactory.create(1, 10));
    Landed odd = file("nokeyfail", "p1", "b.parquet", schema("amount", DataTypes.IntegerType), RowFactory.create(20));
    BatchManifest batch = fixture.claimBatch(profile, good, odd);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr.strip()).isEqualTo("files2iceberg: table local.odd.nokeyfail batch " + batch.batchId()
        + " rejected: file " + odd.path().toUri() + " has no column id, which load.primary-key[0] needs (after"
        + " transform.rename-columns its columns are [amount]); set extract.quarantine-bad-files = true to"
        + " quarantine it and load the other files");
    assertThat(ledgerFile(batch, odd).state()).isEqualTo(FileState.CLAIMED);
    assertThat(ledgerFile(batch, good).state()).isEqualTo(FileState.CLAIMED);
    assertThat(fixture.spark.catalog().tableExists("local.odd.nokeyfail")).isFalse();
  }

  @Test
  void fileWithoutThePrecombineColumnIsQuarantined() {
    TableProfile profile = keyed("noprecombine", "extract.quarantine-bad-files = true\n"
        + "load.iceberg.precombine-field = version");
    Landed good = file("noprecombine", "p1", "a.parquet", schema("id", DataTypes.IntegerType, "version", DataTypes.IntegerType),
        RowFactory.create(1, 3));
    Landed odd = file("noprecombine", "p1", "b.parquet", schema("id", DataTypes.IntegerType), RowFactory.create(1));
    BatchManifest batch = fixture.claimBatch(profile, good, odd);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.noprecombine")).containsExactly("[1,3,p1]");
    assertQuarantinedAlone(batch, report, good, odd, "file " + odd.path().toUri() + " has no column version, which"
        + " load.iceberg.precombine-field needs (after transform.rename-columns its columns are [id])");
  }

  @Test
  void everyFileWithoutTheKeyIsTheProfilesMistakeAndFailsTheBatchEvenWithQuarantine() {
    TableProfile profile = keyed("typo", "extract.quarantine-bad-files = true");
    Landed file = file("typo", "p1", "a.parquet", schema("order_id", DataTypes.IntegerType), RowFactory.create(1));
    BatchManifest batch = fixture.claimBatch(profile, file);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: load.primary-key[0]: column \"id\" is not among the batch's"
        + " columns [order_id, partition] (after transform.rename-columns)");
    assertThat(ledgerFile(batch, file).state()).isEqualTo(FileState.CLAIMED);
  }

  @Test
  void fileWithATypeTheTableCannotTakeIsQuarantinedAlone() {
    TableProfile profile = keyed("unsafe", "extract.quarantine-bad-files = true");
    fixture.load(fixture.claimBatch(profile, file("unsafe", "p1", "a.parquet", ORDERS, RowFactory.create(1, 10))));
    Landed good = file("unsafe", "p2", "b.parquet", ORDERS, RowFactory.create(2, 20));
    Landed odd = file("unsafe", "p2", "c.parquet", schema("id", DataTypes.IntegerType, "amount", DataTypes.StringType),
        RowFactory.create(3, "thirty"));
    BatchManifest batch = fixture.claimBatch(profile, good, odd);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.unsafe ORDER BY id")).containsExactly("[1,10,p1]", "[2,20,p2]");
    assertQuarantinedAlone(batch, report, good, odd, "column amount: file " + odd.path().toUri() + " has type string"
        + " but table local.odd.unsafe has type int, which is not a safe change (safe: int -> bigint, float -> double,"
        + " decimal to more precision)");
  }

  @Test
  void fileWhoseTypeConflictsWithAnEarlierFileOfTheBatchIsQuarantined() {
    TableProfile profile = keyed("conflict", "extract.quarantine-bad-files = true");
    Landed good = file("conflict", "p1", "a.parquet", ORDERS, RowFactory.create(1, 10));
    Landed odd = file("conflict", "p1", "b.parquet", schema("id", DataTypes.IntegerType, "amount", DataTypes.StringType),
        RowFactory.create(2, "twenty"));
    BatchManifest batch = fixture.claimBatch(profile, good, odd);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT * FROM local.odd.conflict")).containsExactly("[1,10,p1]");
    assertQuarantinedAlone(batch, report, good, odd, "column amount: file " + odd.path().toUri() + " has type string"
        + " but file " + good.path().toUri() + " has type int, and neither widens safely to the other");
  }

  @Test
  void emptyJsonFileWithoutColumnsIsNoMisfitOfAKeyedTable() {
    TableProfile profile = fixture.profile("emptyjson", """
        extract {
          path = "file://%s/*/*.json"
          format = json
        }
        load {
          iceberg.table = "local.odd.emptyjson"
          primary-key = [id]
        }
        """.formatted(fixture.landing("emptyjson")));
    Landed good = Landed.of(fixture.writeText("emptyjson/p1/a.json", "{\"id\": 1, \"amount\": 10}\n"), "p1");
    Landed empty = Landed.of(fixture.writeText("emptyjson/p1/b.json", ""), "p1");

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, good, empty));

    assertThat(report.quarantinedFiles()).isEmpty();
    assertThat(fixture.rows("SELECT id, amount FROM local.odd.emptyjson")).containsExactly("[1,10]");
  }

  @Test
  void widerTypeInALaterFileIsNotOdd() {
    TableProfile profile = keyed("wider", "extract.quarantine-bad-files = true");
    Landed ints = file("wider", "p1", "a.parquet", ORDERS, RowFactory.create(1, 10));
    Landed longs = file("wider", "p1", "b.parquet", schema("id", DataTypes.IntegerType, "amount", DataTypes.LongType),
        RowFactory.create(2, 5_000_000_000L));

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, ints, longs));

    assertThat(report.quarantinedFiles()).isEmpty();
    assertThat(fixture.rows("SELECT id, amount FROM local.odd.wider ORDER BY id"))
        .containsExactly("[1,10]", "[2,5000000000]");
  }
}
