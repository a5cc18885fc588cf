package io.files2iceberg.batcher.validate;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code validate} checks {@code quality.expectations} with Spark's parser in a child JVM on the
 * job's classpath: against an existing table's columns, and, before the table exists, against the
 * profile's typed columns, leaving what only the files can tell to the batch.
 */
class ExpectationValidateTest {
  @TempDir static Path home;
  @TempDir Path work;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private static final String ORDERS = """
      extract.path = "file:///landing/orders/*/*.csv"
      extract.format = csv
      load.iceberg.table = local.shop.orders
      load.schema-evolution = none
      """;

  @BeforeAll
  static void createTable() {
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    int exit = commandLine.execute("sql", "--home", home.toString(),
        "CREATE TABLE local.shop.orders (order_id STRING, amount DOUBLE, email STRING) USING iceberg");
    assertThat(exit).isZero();
  }

  private int validate(String profile) throws Exception {
    Files.writeString(work.resolve("orders.conf"), profile);
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute("validate", "--config", work.toString(), "--home", home.toString());
  }

  @Test
  void aCheckOnAColumnTheTableLacksAndASyntaxErrorExitTwoNamingFileKeyAndColumn() throws Exception {
    int exit = validate(ORDERS + """
        quality.expectations = [
          { name = amount_positive, check = "amout > 0", on-violation = reject }
          { name = broken, check = "amount >> > 0" }
          { name = fine, check = "amount > 0" }
          { name = email_set, column = email, max-null-fraction = 0.2, on-violation = warn }
        ]
        """);

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.INVALID);
    Path file = work.resolve("orders.conf");
    assertThat(err.toString())
        .contains("2 problem(s) in " + work)
        .contains(file + ": quality.expectations[0].check: expectation amount_positive: \"amout > 0\" names column"
            + " `amout`, which the table local.shop.orders does not have (its columns: order_id, amount, email)")
        .contains(file + ": quality.expectations[1].check: expectation broken: \"amount >> > 0\" is not Spark SQL");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void beforeTheTableExistsAColumnOnlyTheFilesCanTellIsAWarningAndTheProfileValidates() throws Exception {
    int exit = validate("""
        extract.path = "file:///landing/refunds/*/*.csv"
        extract.format = csv
        load.iceberg.table = local.shop.refunds
        quality.expectations = [{ name = reason_set, check = "reason IS NOT NULL", on-violation = drop }]
        """.replace("refunds/*", "refunds/*"));

    assertThat(exit).as(err.toString()).isZero();
    assertThat(err.toString()).contains("warning: " + work.resolve("orders.conf")
        + ": quality.expectations[0].check: expectation reason_set: column `reason` is not among the columns the"
        + " profile declares (the table local.shop.refunds does not exist yet); checked when a batch reads the files");
    assertThat(out.toString()).contains("\"on-violation\" : \"drop\"");
  }
}
