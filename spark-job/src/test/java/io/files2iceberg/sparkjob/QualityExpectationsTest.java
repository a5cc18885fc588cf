package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ExpectationCounts;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quality.expectations}: row checks and per-partition aggregates, evaluated in the
 * transform's one pass, whose actions fail the batch, reject rows to {@code <table>__rejected},
 * drop them or only count them; the counts reach the report, the files' history and the
 * snapshot summary.
 */
class QualityExpectationsTest {
  @TempDir static Path home;
  static JobFixture fixture;

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  /** A JSON table keyed on id, one partition per {@code dt=} folder, with the given sections. */
  static TableProfile orders(String table, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.json"
          format = json
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = yyyy-MM-dd
            partition-column = dt
          }
        }
        transform.cast.columns { amount = INT }
        load {
          iceberg.table = "local.q.%s"
          primary-key = [id]
        }
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  static Landed json(String table, String day, String file, String... lines) {
    return Landed.of(fixture.writeText(table + "/dt=" + day + "/" + file, String.join("\n", lines) + "\n"), day);
  }

  static Table iceberg(String table) {
    try {
      Table loaded = Spark3Util.loadIcebergTable(fixture.spark, table);
      loaded.refresh();
      return loaded;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The summary of the snapshot that committed the batch. */
  static Map<String, String> summaryOf(String table, BatchLoadReport report) {
    Snapshot snapshot = iceberg(table).snapshot(report.snapshotId());
    return snapshot.summary();
  }

  @Test
  void everyActionTogetherWithChangeDeletesAndRescuedDataLoadsWhatTheExpectationsAllow() {
    String table = "every";
    TableProfile profile = orders(table, """
        transform { filter = ["id != 'skip'"], rescued-data-column = _rescued_data }
        load.cdc { op-column = op, delete-values = ["D"] }
        quality.expectations = [
          { name = amount_positive, check = "amount > 0", on-violation = reject }
          { name = country_known, check = "country IN ('FR', 'DE')", on-violation = drop }
          { name = id_shaped, check = "id LIKE 'k%'", on-violation = fail }
          { name = small_amount, check = "amount < 100", on-violation = warn }
          { name = two_rows, min-rows = 2, on-violation = warn }
          { name = country_present, column = country, max-null-fraction = 0.5, on-violation = reject }
        ]
        """);
    fixture.load(fixture.claimBatch(profile, json(table, "2024-01-01", "a.json",
        "{\"id\": \"k3\", \"op\": \"I\", \"amount\": \"1\", \"country\": \"FR\"}",
        "{\"id\": \"k7\", \"op\": \"I\", \"amount\": \"7\", \"country\": \"DE\"}")));
    Landed second = json(table, "2024-01-02", "b.json",
        "{\"id\": \"k1\", \"op\": \"I\", \"amount\": \"10\", \"country\": \"FR\"}",
        "{\"id\": \"k2\", \"op\": \"U\", \"amount\": \"-5\", \"country\": \"FR\"}",
        "{\"id\": \"k3\", \"op\": \"U\", \"amount\": \"20\", \"country\": \"XX\"}",
        "{\"id\": \"k4\", \"op\": \"I\", \"amount\": \"-1\", \"country\": \"XX\"}",
        "{\"id\": \"k5\", \"op\": \"I\", \"amount\": \"ten\", \"country\": \"FR\"}",
        "{\"id\": \"k6\", \"op\": \"I\", \"amount\": \"500\", \"country\": \"DE\"}",
        "{\"id\": \"k7\", \"op\": \"D\"}",
        "{\"id\": \"skip\", \"op\": \"I\", \"amount\": \"-9\", \"country\": \"XX\"}");
    BatchManifest batch = fixture.claimBatch(profile, second);

    BatchLoadReport report = fixture.load(batch);

    // What the expectations allow, computed over the files themselves: the first batch's rows, then
    // the second's that pass the filter and every reject and drop check, less the deleted keys.
    fixture.spark.read().json(fixture.landing(table).toString() + "/dt=*/*.json").createOrReplaceTempView("every_src");
    String checked = "id != 'skip' AND op != 'D'";
    String loads = checked + " AND coalesce(try_cast(amount AS INT) > 0, false)"
        + " AND coalesce(country IN ('FR', 'DE'), false)";
    List<String> want = fixture.rows("""
        SELECT id, try_cast(amount AS INT), country FROM (
          SELECT *, row_number() OVER (PARTITION BY id ORDER BY input_file_name() DESC) AS newest
          FROM every_src WHERE op = 'D' OR (%s)) ranked
        WHERE newest = 1 AND op != 'D' ORDER BY id""".formatted(loads));
    assertThat(want).containsExactly("[k1,10,FR]", "[k3,1,FR]", "[k6,500,DE]");
    assertThat(fixture.rows("SELECT id, amount, country FROM local.q.every ORDER BY id")).isEqualTo(want);
    // Rejected: the rows that violate amount_positive (k5's "ten" is rescued: NULL in its column,
    // so the check sees NULL), including k4, which also violates the drop check.
    List<String> wantRejected = fixture.rows("SELECT id, 'amount_positive' FROM every_src WHERE " + checked
        + " AND input_file_name() LIKE '%dt=2024-01-02%' AND NOT coalesce(try_cast(amount AS INT) > 0, false)"
        + " ORDER BY id");
    assertThat(wantRejected).containsExactly("[k2,amount_positive]", "[k4,amount_positive]", "[k5,amount_positive]");
    assertThat(fixture.rows("SELECT get_json_object(record, '$.id'), expectation FROM local.q.every__rejected"
        + " ORDER BY 1")).isEqualTo(wantRejected);
    assertThat(fixture.rows("SELECT DISTINCT batch_id, source_file, column_name, reason FROM local.q.every__rejected"))
        .containsExactly("[" + batch.batchId() + "," + JobFixture.uri(second.path())
            + ",null,expectation amount_positive failed: amount > 0]");
    assertThat(fixture.rows("SELECT record FROM local.q.every__rejected WHERE get_json_object(record, '$.id') = 'k5'"))
        .containsExactly("[{\"amount\":\"ten\",\"country\":\"FR\",\"id\":\"k5\",\"op\":\"I\",\"dt\":\"2024-01-02\"}]");

    // Six rows checked (not the filtered row, not the delete).
    Map<String, ExpectationCounts> quality = new LinkedHashMap<>();
    quality.put("amount_positive", new ExpectationCounts("reject", 3, 3));
    quality.put("country_known", new ExpectationCounts("drop", 4, 2));
    quality.put("id_shaped", new ExpectationCounts("fail", 6, 0));
    quality.put("small_amount", new ExpectationCounts("warn", 4, 2));
    quality.put("two_rows", new ExpectationCounts("warn", 1, 0));
    quality.put("country_present", new ExpectationCounts("reject", 1, 0));
    assertThat(report.quality()).containsExactlyEntriesOf(quality);
    assertThat(report.metrics().rowsRead()).isEqualTo(8);
    assertThat(report.metrics().rowsFiltered()).isEqualTo(1);
    assertThat(report.metrics().rowsRejected()).isEqualTo(3);
    assertThat(report.metrics().rowsDeleted()).isEqualTo(1);
    assertThat(report.rejectedTable()).contains("local.q.every__rejected");
    assertThat(report.fileRows()).containsExactly(Map.entry(batch.files().get(0).fileId(), new FileRows(8, 3, 1, 0,
        Map.of("amount_positive", 3L, "country_known", 2L, "small_amount", 2L))));
    assertThat(summaryOf("local.q.every", report))
        .containsEntry("files2iceberg.batch-id", batch.batchId())
        .containsEntry("files2iceberg.quality.amount_positive.failed", "3")
        .containsEntry("files2iceberg.quality.amount_positive.passed", "3")
        .containsEntry("files2iceberg.quality.country_known.failed", "2")
        .containsEntry("files2iceberg.quality.id_shaped.failed", "0")
        .containsEntry("files2iceberg.quality.two_rows.passed", "1");
    assertThat(fixture.stdout).contains("\"quality\":{\"amount_positive\":{\"onViolation\":\"reject\",\"passed\":3,"
        + "\"failed\":3}");
  }

  @Test
  void aFailedCheckFailsTheBatchNamingTheExpectationSampleKeysAndTheFileAndCommitsNothing() {
    String table = "failing";
    TableProfile profile = orders(table, """
        transform.on-bad-record = reject
        quality.expectations = [{ name = amount_positive, check = "amount > 0" }]
        """);
    Landed file = json(table, "2024-01-01", "a.json",
        "{\"id\": \"o1\", \"amount\": \"10\"}",
        "{\"id\": \"o2\", \"amount\": \"-5\"}",
        "{\"id\": \"o3\", \"amount\": null}",
        "{\"id\": \"o4\", \"amount\": \"ten\"}");
    BatchManifest batch = fixture.claimBatch(profile, file);

    int code = fixture.runJob(fixture.writeManifest(batch));

    assertThat(code).as(fixture.stderr).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr.strip()).isEqualTo("files2iceberg: table local.q.failing batch " + batch.batchId()
        + " rejected: quality.expectations[0] amount_positive (amount > 0, on-violation fail) failed for 2 row(s);"
        + " first in file " + JobFixture.uri(file.path()) + "; sample: id=o2, id=o3. Fix the files or the profile,"
        + " then run retry for the batch");
    assertThat(fixture.spark.catalog().tableExists("local.q.failing")).isFalse();
    assertThat(fixture.spark.catalog().tableExists("local.q.failing__rejected")).isFalse();
  }

  @Test
  void aFailedCheckWithoutAKeyNamesTheFileAndTheRows() {
    String table = "nokey";
    TableProfile profile = fixture.profile(table, """
        extract { path = "file://%s/dt=*/*.json", format = json }
        load.iceberg.table = "local.q.%s"
        quality.expectations = [{ name = named, check = "name IS NOT NULL", on-violation = fail }]
        """.formatted(fixture.landing(table), table));
    Landed file = json(table, "2024-01-01", "a.json", "{\"name\": \"a\"}", "{\"name\": null}", "{\"other\": 1}");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, file)));

    assertThat(code).as(fixture.stderr).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("quality.expectations[0] named (name IS NOT NULL, on-violation fail) failed"
        + " for 2 row(s); first in file " + JobFixture.uri(file.path()) + "; sample: row 2, row 3 of that file.");
  }

  @Test
  void aggregatesApplyPerPartitionOfTheBatch() {
    String table = "parts";
    TableProfile profile = orders(table, """
        quality.expectations = [
          { name = positive, check = "amount > 0", on-violation = drop }
          { name = two_rows, min-rows = 2, on-violation = drop }
          { name = three_rows, min-rows = 3, on-violation = warn }
          { name = country_present, column = country, max-null-fraction = 0.5, on-violation = reject }
        ]
        """);
    // p1: three rows; p2: two rows, one dropped by the check, so one to load; p3: two rows, both
    // without a country.
    Landed p1 = json(table, "2024-01-01", "a.json", "{\"id\": \"a1\", \"amount\": \"1\", \"country\": \"FR\"}",
        "{\"id\": \"a2\", \"amount\": \"2\", \"country\": \"FR\"}", "{\"id\": \"a3\", \"amount\": \"3\"}");
    Landed p2 = json(table, "2024-01-02", "b.json", "{\"id\": \"b1\", \"amount\": \"1\", \"country\": \"FR\"}",
        "{\"id\": \"b2\", \"amount\": \"-1\", \"country\": \"FR\"}");
    Landed p3 = json(table, "2024-01-03", "c.json", "{\"id\": \"c1\", \"amount\": \"1\"}",
        "{\"id\": \"c2\", \"amount\": \"2\", \"country\": null}");
    BatchManifest batch = fixture.claimBatch(profile, p1, p2, p3);

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT id FROM local.q.parts ORDER BY id")).containsExactly("[a1]", "[a2]", "[a3]");
    assertThat(fixture.rows("SELECT get_json_object(record, '$.id'), expectation, column_name, reason"
        + " FROM local.q.parts__rejected ORDER BY 1")).containsExactly(
            "[c1,country_present,country,expectation country_present failed for partition 2024-01-03:"
                + " max-null-fraction 0.5 of country (2 of 2 rows NULL)]",
            "[c2,country_present,country,expectation country_present failed for partition 2024-01-03:"
                + " max-null-fraction 0.5 of country (2 of 2 rows NULL)]");
    assertThat(report.quality()).containsExactly(
        Map.entry("positive", new ExpectationCounts("drop", 6, 1)),
        Map.entry("two_rows", new ExpectationCounts("drop", 2, 1)),
        Map.entry("three_rows", new ExpectationCounts("warn", 1, 2)),
        Map.entry("country_present", new ExpectationCounts("reject", 2, 1)));
    assertThat(report.metrics().rowsRejected()).isEqualTo(2);
    assertThat(report.metrics().rowsFiltered()).isZero();
    assertThat(report.metrics().rowsInserted()).isEqualTo(3);
    // Each file's rows that violated each expectation: an aggregate's are the partition's rows.
    assertThat(report.fileRows()).containsExactly(
        Map.entry(batch.files().get(0).fileId(), new FileRows(3, 0, 0, 0, Map.of())),
        Map.entry(batch.files().get(1).fileId(), new FileRows(2, 0, 0, 0,
            Map.of("positive", 1L, "two_rows", 1L, "three_rows", 1L))),
        Map.entry(batch.files().get(2).fileId(), new FileRows(2, 2, 0, 0,
            Map.of("three_rows", 2L, "country_present", 2L))));
  }

  @Test
  void aFailedMinRowsFailsTheBatchNamingThePartitionAndTheCounts() {
    String table = "fewrows";
    TableProfile profile = orders(table, """
        quality.expectations = [{ name = enough, min-rows = 2, on-violation = fail }]
        """);
    Landed full = json(table, "2024-01-01", "a.json", "{\"id\": \"a1\", \"amount\": \"1\"}",
        "{\"id\": \"a2\", \"amount\": \"2\"}");
    Landed thin = json(table, "2024-01-02", "b.json", "{\"id\": \"b1\", \"amount\": \"1\"}");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, full, thin)));

    assertThat(code).as(fixture.stderr).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: quality.expectations[0] enough (min-rows 2, on-violation fail)"
        + " failed for partition 2024-01-02: 1 row(s) to load; files: [" + JobFixture.uri(thin.path()) + "]."
        + " Fix the files or the profile, then run retry for the batch");
    assertThat(fixture.spark.catalog().tableExists("local.q.fewrows")).isFalse();
  }

  @Test
  void aRowDroppedFromASnapshotKeepsItsStoredRowAndAPartitionDroppedWholeDeletesNothing() {
    String table = "snap";
    TableProfile profile = snapshotProfile(table, """
        quality.expectations = [
          { name = named, check = "name IS NOT NULL", on-violation = drop }
          { name = two_rows, min-rows = 2, on-violation = drop }
        ]
        """);
    fixture.load(fixture.unrecordedBatch(profile, "snap-1", json(table, "2024-01-01", "a.json",
        "{\"id\": 1, \"name\": \"monday\"}", "{\"id\": 2, \"name\": \"monday\"}",
        "{\"id\": 3, \"name\": \"monday\"}", "{\"id\": 4, \"name\": \"monday\"}")));

    // Tuesday: 3's new row is dropped, so 3 keeps its stored row; 4 is gone upstream.
    BatchLoadReport tuesday = fixture.load(fixture.unrecordedBatch(profile, "snap-2", json(table, "2024-01-02",
        "a.json", "{\"id\": 1, \"name\": \"tuesday\"}", "{\"id\": 2, \"name\": \"tuesday\"}",
        "{\"id\": 3}")));

    assertThat(fixture.rows("SELECT id, name FROM local.q.snap ORDER BY id"))
        .containsExactly("[1,tuesday]", "[2,tuesday]", "[3,monday]");
    assertThat(tuesday.metrics().rowsDeleted()).isEqualTo(1);
    assertThat(tuesday.metrics().rowsUpdated()).isEqualTo(2);
    assertThat(tuesday.metrics().rowsInserted()).isZero();
    assertThat(tuesday.quality()).containsExactly(Map.entry("named", new ExpectationCounts("drop", 2, 1)),
        Map.entry("two_rows", new ExpectationCounts("drop", 1, 0)));

    // Wednesday: one row, so min-rows drops the whole snapshot partition: nothing loads, nothing is deleted.
    BatchLoadReport wednesday = fixture.load(fixture.unrecordedBatch(profile, "snap-3", json(table, "2024-01-03",
        "a.json", "{\"id\": 1, \"name\": \"wednesday\"}")));

    assertThat(fixture.rows("SELECT id, name FROM local.q.snap ORDER BY id"))
        .containsExactly("[1,tuesday]", "[2,tuesday]", "[3,monday]");
    assertThat(wednesday.metrics().rowsDeleted()).isZero();
    assertThat(wednesday.quality()).containsEntry("two_rows", new ExpectationCounts("drop", 0, 1));
  }

  @Test
  void aBadRecordRejectedFromASnapshotKeepsItsKeysStoredRow() {
    String table = "snapbad";
    TableProfile profile = snapshotProfile(table, """
        transform { cast.columns { amount = INT }, on-bad-record = reject }
        """);
    fixture.load(fixture.unrecordedBatch(profile, "snapbad-1", json(table, "2024-01-01", "a.json",
        "{\"id\": 1, \"amount\": \"10\"}", "{\"id\": 2, \"amount\": \"20\"}",
        "{\"id\": 3, \"amount\": \"30\"}")));

    // 2's new amount does not cast: a bad record, rejected. 2 is in the snapshot: its stored row stays.
    // 3 is gone upstream.
    BatchLoadReport second = fixture.load(fixture.unrecordedBatch(profile, "snapbad-2", json(table, "2024-01-02",
        "a.json", "{\"id\": 1, \"amount\": \"11\"}", "{\"id\": 2, \"amount\": \"twenty\"}")));

    assertThat(fixture.rows("SELECT id, amount FROM local.q.snapbad ORDER BY id"))
        .containsExactly("[1,11]", "[2,20]");
    assertThat(second.metrics().rowsRejected()).isEqualTo(1);
    assertThat(second.metrics().rowsDeleted()).isEqualTo(1);
  }

  /** A keyed table fed whole snapshots (mode full, one JSON folder a day) with snapshot deletes, and {@code extra}. */
  private TableProfile snapshotProfile(String table, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.json"
          format = json
          batch-file {
            ingestion-type = full
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load {
          iceberg.table = "local.q.%s"
          primary-key = [id]
          snapshot-deletes = true
        }
        """.formatted(fixture.landing(table), table) + extra);
  }

  @Test
  void anOlderRejectedTableGainsTheExpectationColumn() {
    String table = "olderrejects";
    fixture.spark.sql("CREATE NAMESPACE IF NOT EXISTS local.q");
    fixture.spark.sql("CREATE TABLE local.q.olderrejects__rejected (batch_id STRING, source_file STRING,"
        + " column_name STRING, value STRING, reason STRING, record STRING, rejected_at TIMESTAMP) USING iceberg");
    fixture.spark.sql("INSERT INTO local.q.olderrejects__rejected VALUES ('old', 'file:///x', 'amount', 'ten',"
        + " 'cannot cast to INT', '{}', TIMESTAMP '2024-01-01 00:00:00')");
    TableProfile profile = orders(table, """
        quality.expectations = [{ name = amount_positive, check = "amount > 0", on-violation = reject }]
        """);
    BatchManifest batch = fixture.claimBatch(profile, json(table, "2024-01-01", "a.json",
        "{\"id\": \"o1\", \"amount\": \"10\"}", "{\"id\": \"o2\", \"amount\": \"-5\"}"));

    fixture.load(batch);

    Types.NestedField column = iceberg("local.q.olderrejects__rejected").schema().findField("expectation");
    assertThat(column).isNotNull();
    assertThat(column.type()).isEqualTo(Types.StringType.get());
    assertThat(column.isOptional()).isTrue();
    assertThat(fixture.rows("SELECT batch_id, expectation FROM local.q.olderrejects__rejected ORDER BY batch_id"))
        .containsExactly("[" + batch.batchId() + ",amount_positive]", "[old,null]");
    assertThat(fixture.rows("SELECT id FROM local.q.olderrejects")).containsExactly("[o1]");
  }

  @Test
  void aCheckThatDoesNotApplyToTheBatchsColumnsFailsNamingItsKey() {
    String table = "badcheck";
    TableProfile profile = orders(table, """
        quality.expectations = [
          { name = fine, check = "amount > 0", on-violation = warn }
          { name = typo, check = "amout > 0", on-violation = warn }
        ]
        """);
    Landed file = json(table, "2024-01-01", "a.json", "{\"id\": \"o1\", \"amount\": \"10\"}");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, file)));

    assertThat(code).as(fixture.stderr).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: quality.expectations[1] typo: check \"amout > 0\" does not apply"
        + " to the batch's columns [amount, id, dt]: ");
    assertThat(fixture.spark.catalog().tableExists("local.q.badcheck")).isFalse();
  }

  @Test
  void aCheckThatIsNoConditionOrANullFractionOfAnUnknownColumnFailsNamingItsKey() {
    String table = "notbool";
    Landed file = json(table, "2024-01-01", "a.json", "{\"id\": \"o1\", \"amount\": \"10\"}");
    TableProfile notCondition = orders(table, """
        quality.expectations = [{ name = sum, check = "amount + 1" }]
        """);
    assertThat(fixture.runJob(fixture.writeManifest(fixture.claimBatch(notCondition, file))))
        .isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: quality.expectations[0] sum: check \"amount + 1\" is of type int,"
        + " not a condition");

    TableProfile unknownColumn = orders("notcolumn", """
        quality.expectations = [{ name = present, column = country, max-null-fraction = 0.1 }]
        """);
    Landed other = json("notcolumn", "2024-01-01", "a.json", "{\"id\": \"o1\", \"amount\": \"10\"}");
    assertThat(fixture.runJob(fixture.writeManifest(fixture.claimBatch(unknownColumn, other))))
        .isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("rejected: quality.expectations[0] present: column \"country\" is not among"
        + " the batch's columns [amount, id, dt]");
  }
}
