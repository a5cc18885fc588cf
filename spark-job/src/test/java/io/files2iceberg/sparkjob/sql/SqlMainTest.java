package io.files2iceberg.sparkjob.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.profile.Home;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sql} against the embedded catalog: aligned tables, JSON lines, time travel, the metadata
 * tables, and errors that name what is wrong.
 */
class SqlMainTest {
  @TempDir static Path root;
  static Home home;
  static SparkSession spark;
  static long firstSnapshot;

  @BeforeAll
  static void createTable() throws Exception {
    home = new Home(root.resolve("home"));
    spark = TestSessions.newSession(SqlMain.catalogProperties(home, Optional.empty()));
    spark.sql("CREATE TABLE local.demo.clicks (click_id STRING, user_id BIGINT, clicks INT, dt DATE) USING iceberg");
    spark.sql("INSERT INTO local.demo.clicks VALUES ('c1', 10, 3, DATE'2026-11-27'), ('c2', NULL, 12, DATE'2026-11-27')");
    firstSnapshot = spark.sql("SELECT snapshot_id FROM local.demo.clicks.snapshots").first().getLong(0);
    spark.sql("INSERT INTO local.demo.clicks VALUES ('c3', 11, 1, DATE'2026-11-28')");
  }

  private SqlRun run(String... args) {
    return SqlRun.of(spark, home, args);
  }

  @Test
  void resultIsAnAlignedTableWithNumbersOnTheRightAndNullSpelledOut() {
    SqlRun run = run("SELECT click_id, user_id, clicks FROM local.demo.clicks ORDER BY click_id");

    assertThat(run.code()).isZero();
    assertThat(run.out()).isEqualTo(String.join(System.lineSeparator(),
        "click_id  user_id  clicks",
        "--------  -------  ------",
        "c1             10       3",
        "c2           NULL      12",
        "c3             11       1",
        "(3 rows)",
        ""));
  }

  @Test
  void jsonPrintsOneObjectPerRow() {
    SqlRun run = run("--json", "SELECT click_id, dt FROM local.demo.clicks WHERE click_id = 'c3'");

    assertThat(run.code()).isZero();
    assertThat(run.out().strip()).isEqualTo("{\"click_id\":\"c3\",\"dt\":\"2026-11-28\"}");
  }

  @Test
  void jsonWritesLongsBeyondTwoToThe53AsStringsAndKeepsDecimalsExact() {
    // 2^53 + 1 is the first integer a double (jq 1.6, JavaScript) cannot hold.
    SqlRun run = run("--json", "SELECT 9007199254740993 AS big, -9007199254740993 AS negative, 9007199254740992 AS edge,"
        + " 42 AS small, CAST(12345678901234567.89 AS DECIMAL(19,2)) AS amount, snapshot_id"
        + " FROM local.demo.clicks.snapshots WHERE snapshot_id = " + firstSnapshot);

    assertThat(run.code()).as(run.err()).isZero();
    String id = Math.abs(firstSnapshot) > (1L << 53) ? "\"" + firstSnapshot + "\"" : String.valueOf(firstSnapshot);
    assertThat(run.out().strip()).isEqualTo("{\"big\":\"9007199254740993\",\"negative\":\"-9007199254740993\","
        + "\"edge\":9007199254740992,\"small\":42,\"amount\":12345678901234567.89,\"snapshot_id\":" + id + "}");
  }

  @Test
  void timeTravelReadsAnOlderSnapshot() {
    SqlRun run = run("--json", "SELECT count(*) AS n FROM local.demo.clicks VERSION AS OF " + firstSnapshot,
        "SELECT count(*) AS n FROM local.demo.clicks");

    assertThat(run.code()).isZero();
    assertThat(run.out().strip().split("\\R")).containsExactly("{\"n\":2}", "{\"n\":3}");
  }

  @Test
  void snapshotsMetadataTableListsEveryCommit() {
    SqlRun run = run("--json", "SELECT count(*) AS snapshots, min(snapshot_id) = " + firstSnapshot
        + " OR max(snapshot_id) = " + firstSnapshot + " AS has_first FROM local.demo.clicks.snapshots");

    assertThat(run.out().strip()).isEqualTo("{\"snapshots\":2,\"has_first\":true}");
  }

  @Test
  void theEmbeddedCatalogIsTheDefaultCatalog() {
    SqlRun run = run("--json", "SELECT count(*) AS n FROM demo.clicks");

    assertThat(run.out().strip()).isEqualTo("{\"n\":3}");
  }

  @Test
  void severalStatementsAreEchoedAndSeparated() {
    SqlRun run = run("--echo", "SELECT 1 AS one", "SELECT 'x' AS letter");

    assertThat(run.out()).isEqualTo(String.join(System.lineSeparator(),
        "> SELECT 1 AS one", "one", "---", "  1", "(1 row)", "",
        "> SELECT 'x' AS letter", "letter", "------", "x", "(1 row)", ""));
  }

  @Test
  void maxRowsCutsTheTableAndSaysSo() {
    SqlRun run = run("--max-rows", "2", "SELECT id FROM range(5)");

    assertThat(run.out()).isEqualTo(String.join(System.lineSeparator(),
        "id", "--", " 0", " 1", "(first 2 rows shown; --max-rows N shows more)", ""));
  }

  @Test
  void commandsWithoutResultSayOk() {
    SqlRun run = run("CREATE NAMESPACE IF NOT EXISTS local.scratch");

    assertThat(run.code()).isZero();
    assertThat(run.out().strip()).isEqualTo("OK");
  }

  @Test
  void missingTableFailsWithExitOneAndSparksMessageNamingTheTableAndItsPosition() {
    SqlRun run = run("SELECT * FROM local.nope.missing");

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err()).startsWith("error: [TABLE_OR_VIEW_NOT_FOUND] The table or view `local`.`nope`.`missing` "
        + "cannot be found.").contains("; line 1 pos 14");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void missingTableInTheDefaultCatalogIsNamedAsWritten() {
    SqlRun run = run("SELECT * FROM demo.clicks JOIN demo.gone USING (click_id)");

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err()).startsWith("error: [TABLE_OR_VIEW_NOT_FOUND] The table or view `demo`.`gone` cannot be found.")
        .contains("; line 1 pos 31");
  }

  @Test
  void syntaxErrorFailsWithSparksMessageAndPosition() {
    SqlRun run = run("SELEC 1");

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err()).startsWith("error: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.")
        .contains("line 1 pos 0");
  }

  @Test
  void statementsAfterAFailingOneDoNotRun() {
    SqlRun run = run("--json", "SELECT 1 AS n", "SELECT * FROM local.demo.nope", "SELECT 2 AS n");

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.out().strip()).isEqualTo("{\"n\":1}");
  }

  @Test
  void argumentsNeedAStatementAndKnownOptions() {
    assertThatThrownBy(() -> SqlMain.Options.parse(new String[] {"--json"}))
        .hasMessage("no SQL statement given");
    assertThatThrownBy(() -> SqlMain.Options.parse(new String[] {"--verbose", "SELECT 1"}))
        .hasMessage("unknown option --verbose");
    assertThatThrownBy(() -> SqlMain.Options.parse(new String[] {"--max-rows", "-1", "SELECT 1"}))
        .hasMessage("--max-rows \"-1\" is not a whole number, 0 or more");
    assertThat(SqlMain.Options.parse(new String[] {"--", "--not-an-option"}).statements())
        .containsExactly("--not-an-option");
  }

  @Test
  void profilesAddTheirCatalogsBesideTheEmbeddedOne() throws Exception {
    Path profiles = Files.createDirectories(root.resolve("profiles"));
    Files.writeString(profiles.resolve("events.conf"), """
        extract.path = "file:///landing/events/*.json"
        extract.format = json
        load.iceberg.table = lake.raw.events
        catalog { type = hadoop, warehouse = "file:///data/warehouse" }
        """);

    Map<String, String> properties = SqlMain.catalogProperties(home, Optional.of(profiles));

    assertThat(properties)
        .containsEntry("spark.sql.catalog.lake.type", "hadoop")
        .containsEntry("spark.sql.catalog.lake.warehouse", "file:///data/warehouse")
        .containsEntry("spark.sql.catalog.local.type", "jdbc")
        .containsEntry("spark.sql.catalog.local.uri", "jdbc:sqlite:" + home.catalogDb())
        .containsEntry("spark.sql.catalog.local.warehouse", home.warehouse().toString())
        .containsEntry("spark.sql.defaultCatalog", "local");
  }
}
