package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code extract.schema-hints} and {@code extract.infer-column-types}: the types csv and json
 * columns are read as, what a value that does not convert does, and what Spark refuses.
 */
class SchemaHintsTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final String ORDERS_CSV = """
      id,amount,ts,qty
      o1,12.50,2026-11-30 08:00:00,3
      o2,7,2026-11-30 09:30:00,4
      """;

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile orders(String table, String format, String extract, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/*/*"
          format = %s
          options { header = "true" }
          %s
        }
        load.iceberg.table = "local.hints.%s"
        %s
        """.formatted(fixture.landing(table), format, extract, table, extra));
  }

  static Landed csv(String table, String text) {
    return Landed.of(fixture.writeText(table + "/p1/orders.csv", text), "p1");
  }

  @Test
  void hintedCsvColumnsAreReadAsTheirTypesWithTimestampsInTheTablesZoneAndTheOthersAsStrings() {
    TableProfile profile = orders("typed", "csv", """
        schema-hints = "amount DECIMAL(12,2), ts TIMESTAMP, missing INT"
        timezone = "Europe/Paris"
        """, "");

    fixture.load(fixture.claimBatch(profile, csv("typed", ORDERS_CSV)));

    assertThat(fixture.rows("SELECT id, typeof(amount), amount, typeof(ts), CAST(ts AS STRING), typeof(qty)"
        + " FROM local.hints.typed ORDER BY id")).containsExactly(
            "[o1,decimal(12,2),12.50,timestamp,2026-11-30 07:00:00,string]",
            "[o2,decimal(12,2),7.00,timestamp,2026-11-30 08:30:00,string]");
    assertThat(fixture.spark.table("local.hints.typed").columns()).containsExactly("id", "amount", "ts", "qty",
        "partition");
  }

  @Test
  void aHintedValueThatDoesNotConvertIsABadRecordAsAFailedCastIs() {
    TableProfile failing = orders("badfail", "csv", "schema-hints = \"amount DECIMAL(12,2)\"", "");
    Landed file = csv("badfail", "id,amount\no1,12.50\no2,twelve\n");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(failing, file)));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("file " + JobFixture.uri(file.path()) + ": column amount: cannot cast to"
        + " DECIMAL(12,2) (value 'twelve'); 1 bad record(s) in the batch");

    TableProfile rejecting = orders("badreject", "csv", "schema-hints = \"amount DECIMAL(12,2)\"",
        "transform.on-bad-record = reject");
    BatchLoadReport report = fixture.load(fixture.claimBatch(rejecting,
        csv("badreject", "id,amount\no1,12.50\no2,twelve\n")));

    assertThat(fixture.rows("SELECT id, amount FROM local.hints.badreject")).containsExactly("[o1,12.50]");
    assertThat(fixture.rows("SELECT column_name, value FROM local.hints.badreject__rejected"))
        .containsExactly("[amount,twelve]");
    assertThat(report.metrics().rowsRejected()).isEqualTo(1);
  }

  @Test
  void aHintSparkCannotParseFailsTheBatchNamingTheKey() {
    TableProfile profile = orders("unparsable", "csv", "schema-hints = \"amount DECIMAL(12,2), tags ARRAY<MONEY>\"",
        "");

    int code = fixture.runJob(fixture.writeManifest(fixture.claimBatch(profile, csv("unparsable", ORDERS_CSV))));

    assertThat(code).isEqualTo(BatchJob.EXIT_REJECTED);
    assertThat(fixture.stderr).contains("extract.schema-hints: tags \"ARRAY<MONEY>\" is not a Spark SQL type: ")
        .contains("MONEY");
    assertThat(fixture.spark.catalog().tableExists("local.hints.unparsable")).isFalse();
  }

  @Test
  void inferenceTypesCsvColumnsAndAHintWinsOverIt() {
    TableProfile profile = orders("inferred", "csv", """
        infer-column-types = true
        schema-hints = "qty BIGINT"
        """, "");

    fixture.load(fixture.claimBatch(profile, csv("inferred", ORDERS_CSV)));

    assertThat(fixture.rows("SELECT typeof(id), typeof(amount), typeof(ts), typeof(qty) FROM local.hints.inferred"
        + " LIMIT 1")).containsExactly("[string,double,timestamp,bigint]");
  }

  @Test
  void jsonWithoutInferenceReadsEveryValueAsAStringAndInfersByDefault() {
    String lines = "{\"id\": \"o1\", \"amount\": 12.5, \"qty\": 3, \"paid\": true}\n";
    TableProfile strings = orders("jsonstrings", "json", "infer-column-types = false", "");
    TableProfile inferred = orders("jsoninferred", "json", "", "");

    fixture.load(fixture.claimBatch(strings, Landed.of(fixture.writeText("jsonstrings/p1/a.json", lines), "p1")));
    fixture.load(fixture.claimBatch(inferred, Landed.of(fixture.writeText("jsoninferred/p1/a.json", lines), "p1")));

    assertThat(fixture.rows("SELECT typeof(amount), typeof(qty), typeof(paid), amount FROM local.hints.jsonstrings"))
        .containsExactly("[string,string,string,12.5]");
    assertThat(fixture.rows("SELECT typeof(amount), typeof(qty), typeof(paid) FROM local.hints.jsoninferred"))
        .containsExactly("[double,bigint,boolean]");
  }
}
