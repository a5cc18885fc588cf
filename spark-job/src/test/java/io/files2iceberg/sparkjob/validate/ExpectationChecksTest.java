package io.files2iceberg.sparkjob.validate;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.sql.SqlMain;
import io.files2iceberg.sparkjob.sql.TestSessions;
import io.files2iceberg.sparkjob.validate.ExpectationChecks.Finding;
import io.files2iceberg.sparkjob.validate.ExpectationChecks.Outcome;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate}'s check of expectations with Spark's parser and analyzer: against the table
 * when it exists, against the profile's typed columns when not, and never an error for a column
 * only the files can tell.
 */
class ExpectationChecksTest {
  @TempDir static Path root;
  static Home home;
  static SparkSession spark;

  private static final String EXISTING = """
      extract.path = "file:///landing/orders/*/*.csv"
      extract.format = csv
      load.iceberg.table = local.shop.orders
      """;

  @BeforeAll
  static void createTable() throws Exception {
    home = new Home(root.resolve("home"));
    spark = TestSessions.newSession(SqlMain.catalogProperties(home, Optional.empty()));
    spark.sql("CREATE TABLE local.shop.orders (order_id STRING, amount DOUBLE, email STRING) USING iceberg");
  }

  @Test
  void checksThatFitTheTableHaveNoFinding() throws Exception {
    assertThat(check(EXISTING + """
        quality.expectations = [
          { name = amount_positive, check = "amount > 0 AND order_id IS NOT NULL" }
          { name = email_set, column = email, max-null-fraction = 0.1 }
          { name = enough, min-rows = 5 }
        ]
        """)).isEmpty();
  }

  @Test
  void aColumnTheTableLacksIsAnErrorNamingItAndTheTablesColumns() throws Exception {
    List<Finding> findings = check(EXISTING + """
        load.schema-evolution = none
        quality.expectations = [
          { name = amount_positive, check = "amout > 0" }
          { name = email_set, column = e_mail, max-null-fraction = 0.1 }
        ]
        """);
    assertThat(findings).extracting(Finding::key, Finding::outcome).containsExactly(
        org.assertj.core.groups.Tuple.tuple("quality.expectations[0].check", Outcome.ERROR),
        org.assertj.core.groups.Tuple.tuple("quality.expectations[1].column", Outcome.ERROR));
    assertThat(findings.get(0).reason()).contains("expectation amount_positive", "`amout`", "local.shop.orders",
        "order_id, amount, email");
    assertThat(findings.get(1).reason()).contains("expectation email_set", "`e_mail`");
  }

  @Test
  void withAddNewColumnsAColumnTheTableLacksIsUncheckedNotAnError() throws Exception {
    List<Finding> findings = check(EXISTING + """
        load.schema-evolution = add-new-columns
        quality.expectations = [{ name = coupon_known, check = "coupon IS NOT NULL" }]
        """);
    assertThat(findings).singleElement().satisfies(finding -> {
      assertThat(finding.outcome()).isEqualTo(Outcome.UNCHECKED);
      assertThat(finding.reason()).contains("`coupon`", "checked when a batch reads the files");
    });
  }

  @Test
  void syntaxErrorsAndNonConditionsAreErrorsWhateverTheColumns() throws Exception {
    List<Finding> findings = check("""
        extract.path = "file:///landing/refunds/*/*.csv"
        extract.format = csv
        load.iceberg.table = local.shop.refunds
        quality.expectations = [
          { name = broken, check = "amount >> > 0" }
          { name = not_a_condition, check = "1 + 1" }
          { name = an_aggregate, check = "count(*) > 0" }
        ]
        """);
    assertThat(findings).extracting(Finding::outcome).containsExactly(Outcome.ERROR, Outcome.ERROR, Outcome.ERROR);
    assertThat(findings.get(2).reason()).contains("expectation an_aggregate", "\"count(*) > 0\" does not apply");
    assertThat(findings.get(0).reason()).contains("expectation broken", "is not Spark SQL");
    assertThat(findings.get(1).reason()).contains("\"1 + 1\" is of type int, not a condition");
  }

  @Test
  void withoutATableTypedProfileColumnsAreCheckedAndOthersLeftUnchecked() throws Exception {
    List<Finding> findings = check("""
        extract.path = "file:///landing/refunds/*/*.csv"
        extract.format = csv
        load.iceberg.table = local.shop.refunds
        transform.cast.columns { amount = "DECIMAL(10,2)" }
        quality.expectations = [
          { name = typed, check = "amount > 0" }
          { name = wrong_type, check = "amount" }
          { name = later, check = "reason IS NOT NULL" }
        ]
        """);
    assertThat(findings).extracting(Finding::key, Finding::outcome).containsExactly(
        org.assertj.core.groups.Tuple.tuple("quality.expectations[1].check", Outcome.ERROR),
        org.assertj.core.groups.Tuple.tuple("quality.expectations[2].check", Outcome.UNCHECKED));
    assertThat(findings.get(1).reason()).contains("does not exist yet");
  }

  @Test
  void theMainPrintsOneJsonLinePerFinding() throws Exception {
    TableProfile profile = profile(EXISTING + """
        load.schema-evolution = none
        quality.expectations = [{ name = amount_positive, check = "amout > 0" }]
        """);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = ExpectationCheckMain.run(spark, List.of(profile), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertThat(code).isZero();
    assertThat(bytes.toString(StandardCharsets.UTF_8).strip()).startsWith("{\"profile\":\"orders\",\"source\":")
        .contains("\"key\":\"quality.expectations[0].check\",\"outcome\":\"error\",\"reason\":\"expectation"
            + " amount_positive: \\\"amout > 0\\\" names column `amout`");
  }

  private static List<Finding> check(String text) throws Exception {
    TableProfile profile = profile(text);
    Optional<org.apache.spark.sql.types.StructType> schema = spark.catalog().tableExists(profile.table())
        ? Optional.of(spark.table(profile.table()).schema()) : Optional.empty();
    return ExpectationChecks.check(spark, profile, schema);
  }

  private static TableProfile profile(String text) throws Exception {
    Path dir = Files.createTempDirectory(root, "profiles");
    Path file = dir.resolve(text.contains("refunds") ? "refunds.conf" : "orders.conf");
    Files.writeString(file, text);
    return ProfileLoader.load(file, home);
  }
}
