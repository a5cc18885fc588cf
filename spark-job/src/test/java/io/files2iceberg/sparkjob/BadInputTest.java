package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
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
import java.util.Map;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Unreadable files and bad records: the batch fails naming them, or they are set aside; never dropped. */
class BadInputTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType ORDERS = new StructType()
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
        }
        transform.cast.columns { amount = INT }
        load {
          iceberg.table = "local.bad.%s"
          primary-key = [id]
        }
        %s
        """.formatted(fixture.landing(table), format, table, extra));
  }

  static Landed goodParquet(String table) {
    return Landed.of(fixture.writeFile("parquet", table + "/p1/a-good.parquet", ORDERS,
        List.of(RowFactory.create("o1", "10"), RowFactory.create("o2", "20"))), "p1");
  }

  static Landed corruptParquet(String table) {
    return Landed.of(fixture.writeText(table + "/p1/b-corrupt.parquet", "PAR1 this is not a parquet file"), "p1");
  }

  static FileRecord ledgerFile(BatchManifest batch, Landed landed) {
    String uri = landed.path().toUri().toString();
    String fileId = batch.files().stream().filter(f -> f.uri().equals(uri)).findFirst().map(ManifestFile::fileId)
        .orElseThrow();
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.file(fileId).orElseThrow();
    }
  }

  @Test
  void corruptFileFailsTheBatchNamingItAndIsQuarantinedInTheLedger() {
    TableProfile profile = orders("corrupt", "parquet", "");
    Landed good = goodParquet("corrupt");
    Landed corrupt = corruptParquet("corrupt");
    BatchManifest batch = fixture.claimBatch(profile, good, corrupt);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).startsWith("files2iceberg: table local.bad.corrupt batch " + batch.batchId()
        + " rejected: cannot read file " + corrupt.path().toUri() + ": ");
    assertThat(fixture.stderr).contains("; quarantined; set extract.quarantine-bad-files = true to load the other files");
    FileRecord stored = ledgerFile(batch, corrupt);
    assertThat(stored.state()).isEqualTo(FileState.QUARANTINED);
    assertThat(stored.quarantineReason().orElseThrow()).contains("is not a Parquet file");
    assertThat(fixture.stderr).contains(stored.quarantineReason().orElseThrow());
    assertThat(ledgerFile(batch, good).state()).isEqualTo(FileState.CLAIMED);
    assertThat(fixture.spark.catalog().tableExists("local.bad.corrupt")).isFalse();
  }

  @Test
  void withQuarantineOnTheBatchLoadsTheOtherFilesAndListsTheQuarantinedOne() {
    TableProfile profile = orders("quarantine", "parquet", "extract.quarantine-bad-files = true");
    Landed good = goodParquet("quarantine");
    Landed corrupt = corruptParquet("quarantine");
    BatchManifest batch = fixture.claimBatch(profile, good, corrupt);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT id, amount FROM local.bad.quarantine ORDER BY id")).containsExactly("[o1,10]", "[o2,20]");
    assertThat(report.quarantinedFiles()).extracting(QuarantinedFile::uri).containsExactly(corrupt.path().toUri().toString());
    assertThat(report.metrics().files()).isEqualTo(1);
    FileRecord stored = ledgerFile(batch, corrupt);
    assertThat(stored.state()).isEqualTo(FileState.QUARANTINED);
    assertThat(stored.quarantineReason()).contains(report.quarantinedFiles().get(0).reason());
    assertThat(ledgerFile(batch, good).state()).isEqualTo(FileState.INGESTED);
    try (Ledger ledger = fixture.openLedger()) {
      assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
    }
  }

  @Test
  void firstBatchWithNoReadableFileFailsRatherThanCreatingATableWithoutColumns() {
    TableProfile profile = orders("allbad", "parquet", "extract.quarantine-bad-files = true");
    Landed corrupt = corruptParquet("allbad");
    BatchManifest batch = fixture.claimBatch(profile, corrupt);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: no file of the batch could be read, so there are no columns to create"
        + " table local.bad.allbad with; quarantined: [" + corrupt.path().toUri() + "]");
    assertThat(ledgerFile(batch, corrupt).state()).isEqualTo(FileState.QUARANTINED);
    assertThat(fixture.spark.catalog().tableExists("local.bad.allbad")).isFalse();
  }

  @Test
  void failedCastFailsTheBatchNamingTheFileTheColumnAndTheValue() {
    TableProfile profile = orders("castfail", "json", "");
    Landed file = Landed.of(fixture.writeText("castfail/p1/orders.json",
        "{\"id\": \"o1\", \"amount\": \"10\"}\n{\"id\": \"o2\", \"amount\": \"ten\"}\n"), "p1");
    BatchManifest batch = fixture.claimBatch(profile, file);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr.strip()).isEqualTo("files2iceberg: table local.bad.castfail batch " + batch.batchId()
        + " rejected: file " + file.path().toUri() + ": column amount: cannot cast to INT (value 'ten'); 1 bad record(s)"
        + " in the batch; transform.on-bad-record = reject would route them to local.bad.castfail__rejected");
    assertThat(fixture.spark.catalog().tableExists("local.bad.castfail")).isFalse();
  }

  @Test
  void rejectedRowsGoToTheRejectedTableWithTheirReasonAndSourceFile() {
    TableProfile profile = orders("rejects", "json", "transform.on-bad-record = reject");
    Landed file = Landed.of(fixture.writeText("rejects/p1/orders.json", """
        {"id": "o1", "amount": "10"}
        {"id": "o2", "amount": "ten"}
        {"amount": "30"}
        {this is not json
        """), "p1");
    BatchManifest batch = fixture.claimBatch(profile, file);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT id, amount FROM local.bad.rejects")).containsExactly("[o1,10]");
    assertThat(fixture.rows("SELECT batch_id, source_file, column_name, value, reason FROM local.bad.rejects__rejected"
            + " ORDER BY column_name"))
        .containsExactly(
            "[" + batch.batchId() + "," + file.path().toUri() + ",_corrupt_record,{this is not json,malformed json record]",
            "[" + batch.batchId() + "," + file.path().toUri() + ",amount,ten,cannot cast to INT]",
            "[" + batch.batchId() + "," + file.path().toUri() + ",id,null,primary key column id is null]");
    assertThat(fixture.rows("SELECT record FROM local.bad.rejects__rejected WHERE column_name = 'amount'"))
        .containsExactly("[{\"amount\":\"ten\",\"id\":\"o2\",\"partition\":\"p1\"}]");
    assertThat(report.metrics().rowsRejected()).isEqualTo(3);
    assertThat(report.metrics().rowsRead()).isEqualTo(4);
    assertThat(report.fileRows()).isEqualTo(Map.of(batch.files().get(0).fileId(), new FileRows(4, 3, 0)));
    assertThat(report.rejectedTable()).contains("local.bad.rejects__rejected");
  }

  @Test
  void rerunOfABatchWhoseRejectsAreCommittedWritesThemOnce() {
    String extra = "transform.on-bad-record = reject\nload.schema-evolution = %s";
    fixture.load(fixture.claimBatch(orders("rerun", "json", extra.formatted("fail-on-new-columns")),
        Landed.of(fixture.writeText("rerun/p1/a.json", "{\"id\": \"o1\", \"amount\": \"10\"}\n"), "p1")));
    // A new column the frozen table refuses, declared by a cast no file has (the files' own new
    // columns are refused before anything is written): the rejects are committed, then the table
    // load fails.
    String flag = "\ntransform.cast.columns.flag = BOOLEAN";
    TableProfile frozen = orders("rerun", "json", extra.formatted("fail-on-new-columns") + flag);
    BatchManifest batch = fixture.claimBatch(frozen, Landed.of(fixture.writeText("rerun/p2/b.json",
        "{\"id\": \"o2\", \"amount\": \"x\"}\n{\"id\": \"o3\", \"amount\": \"3\"}\n"), "p2"));
    assertThat(fixture.runJob(fixture.writeManifest(batch))).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("the batch has column(s) that table local.bad.rerun does not have: [flag"
        + " boolean (from transform.cast.columns.flag)]; load.schema-evolution = fail-on-new-columns, so they are not"
        + " added");
    assertThat(fixture.rows("SELECT count(*) FROM local.bad.rerun__rejected WHERE batch_id = '" + batch.batchId() + "'"))
        .containsExactly("[1]");

    // The operator allows the new column; the same batch runs again.
    TableProfile evolving = orders("rerun", "json", extra.formatted("add-new-columns") + flag);
    BatchLoadReport report = fixture.load(new BatchManifest(batch.version(), batch.batchId(), evolving, batch.deployment(), batch.mode(),
        batch.saveCheckpoint(), batch.createdAt(), batch.files()));

    assertThat(fixture.rows("SELECT id, flag FROM local.bad.rerun ORDER BY id")).containsExactly("[o1,null]", "[o3,null]");
    assertThat(fixture.rows("SELECT count(*) FROM local.bad.rerun__rejected WHERE batch_id = '" + batch.batchId() + "'"))
        .containsExactly("[1]");
    assertThat(report.metrics().rowsRejected()).isEqualTo(1);
  }

  @Test
  void catalogThatCannotBeReachedFailsTheBatchNamingItAndLeavesItToRetry() {
    Path unreachable = home.resolve("no-such-folder").resolve("catalog.db");
    fixture.spark.conf().set("spark.sql.catalog.unreachable", "org.apache.iceberg.spark.SparkCatalog");
    fixture.spark.conf().set("spark.sql.catalog.unreachable.type", "jdbc");
    fixture.spark.conf().set("spark.sql.catalog.unreachable.uri", "jdbc:sqlite:" + unreachable);
    fixture.spark.conf().set("spark.sql.catalog.unreachable.warehouse", home.resolve("unreachable-wh").toString());
    TableProfile profile = fixture.profile("unreachable", """
        extract.path = "file://%s/*/*.parquet"
        load.iceberg.table = "unreachable.bad.orders"
        catalog.uri = "jdbc:sqlite:%s"
        """.formatted(fixture.landing("unreachable"), unreachable));
    BatchManifest batch = fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet",
        "unreachable/p1/a.parquet", ORDERS, List.of(RowFactory.create("o1", "10"))), "p1"));

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).as(fixture.stderr).isEqualTo(BatchJob.EXIT_FAILED);
    assertThat(fixture.stderr).contains("Cannot reach catalog unreachable: ")
        .contains("jdbc:sqlite:" + unreachable)
        .doesNotContain("single-part namespace");
  }
}
