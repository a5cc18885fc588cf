package io.files2iceberg.sparkjob.sql;

import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.OwnSession;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs Spark SQL against the pipeline's Iceberg catalogs and prints the results: what {@code
 * bin/files2iceberg sql} starts as a child JVM.
 *
 * <pre>{@code
 * SqlMain [--home DIR] [--config DIR] [--ledger-tables DIR] [--json] [--echo] [--max-rows N] STATEMENT...
 * }</pre>
 *
 * <p>The session has Iceberg's SQL extensions and every catalog the profiles of {@code --config}
 * name (as the job's session gets them, {@link CatalogConf}); the embedded catalog {@value
 * Home#LOCAL_CATALOG} (JDBC on SQLite under the home) is always there unless a profile defines a
 * catalog of that name, and is the default catalog. So time travel ({@code VERSION AS OF},
 * {@code TIMESTAMP AS OF}) and the metadata tables ({@code local.demo.clicks.snapshots}, {@code
 * .history}, {@code .files}) work as they are. With {@code --ledger-tables} (a folder the CLI wrote
 * the ledger's records into, {@link io.files2iceberg.core.ledger.LedgerTable}), the read-only
 * catalog {@value LedgerCatalog#NAME} ({@link LedgerCatalog}) has them as {@code
 * files2iceberg.files}, {@code .partitions} and {@code .batches}.
 *
 * <p>Each statement's result goes to stdout as an aligned text table (or, with {@code --json}, one
 * JSON object per row), at most {@code --max-rows} rows (default {@value #DEFAULT_MAX_ROWS}; 0 is
 * no limit). Exit codes: 0 every statement ran; 1 a statement failed (stderr names it with Spark's
 * message; the statements before it ran); 2 bad arguments or profiles.
 */
public final class SqlMain {
  static final int DEFAULT_MAX_ROWS = 1000;
  static final String DEFAULT_CATALOG_KEY = "spark.sql.defaultCatalog";
  private static final String CATALOG_PREFIX = "spark.sql.catalog.";
  /** A log4j2 configuration on the job's classpath that keeps Spark's INFO and WARN lines away. */
  public static final String QUIET_LOGGING = "files2iceberg/log4j2-quiet.properties";

  private static final String USAGE =
      "usage: SqlMain [--home DIR] [--config DIR] [--ledger-tables DIR] [--json] [--echo] [--max-rows N] "
          + "STATEMENT...";

  private SqlMain() {}

  public static void main(String[] args) {
    // Before anything logs: the user wants the result, not Spark's start-up chatter.
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", QUIET_LOGGING);
    }
    Options options;
    Map<String, String> catalogs;
    try {
      options = Options.parse(args);
      catalogs = catalogProperties(options.home(), options.config());
      if (options.ledgerTables().isPresent()) {
        catalogs.putAll(LedgerCatalog.sparkProperties(options.ledgerTables().get()));
      }
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    } catch (ProfileException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    SparkSession spark = session(catalogs);
    OwnSession.runAndExit(spark, session -> run(session, options, System.out, System.err));
  }

  /** Runs the statements in order, stopping at the first that fails; returns the exit code. */
  static int run(SparkSession spark, Options options, PrintStream out, PrintStream err) {
    ResultPrinter printer = new ResultPrinter(out, options.maxRows());
    for (int i = 0; i < options.statements().size(); i++) {
      String statement = options.statements().get(i);
      if (i > 0 && !options.json()) {
        out.println();
      }
      if (options.echo() && !options.json()) {
        out.println("> " + statement.strip());
      }
      try {
        Dataset<Row> result = spark.sql(statement);
        if (options.json()) {
          printer.printJson(result);
        } else {
          printer.printTable(result);
        }
      } catch (Exception e) { // Scala code throws AnalysisException, a checked exception, undeclared
        err.println("error: " + message(e));
        return 1;
      }
      out.flush();
    }
    return 0;
  }

  /**
   * Spark's message (with the names and the position it gives), without the query plan an
   * analysis error appends.
   */
  public static String message(Exception error) {
    if (error instanceof AnalysisException analysis) {
      return analysis.getSimpleMessage().strip();
    }
    String message = error.getMessage() == null ? error.toString() : error.getMessage();
    if (error instanceof scala.MatchError) {
      // "<what was not matched> (of class ...)": a rule that met a table it does not know (an
      // UPDATE of a ledger table, whose table shows as the reason it is read-only).
      int ofClass = message.lastIndexOf(" (of class ");
      return (ofClass > 0 ? message.substring(0, ofClass) : message).strip();
    }
    int stack = message.indexOf("Driver stacktrace:");
    return (stack > 0 ? message.substring(0, stack) : message).strip();
  }

  /**
   * The Spark properties of every catalog the profiles name, plus the embedded catalog {@code
   * local} at the home unless a profile defines one of that name; {@code local} is the default
   * catalog. Iceberg's catalogs are {@link TablesOnlyCatalog}s, so a missing table is reported by
   * Spark with its name.
   */
  public static Map<String, String> catalogProperties(Home home, Optional<Path> config) throws ProfileException {
    Map<String, String> properties = new LinkedHashMap<>();
    boolean hasLocal = false;
    if (config.isPresent()) {
      for (TableProfile profile : ProfileRegistry.load(config.get(), home).profiles()) {
        properties.putAll(CatalogConf.sparkProperties(profile));
        // A fresh home (the ledger elsewhere, nothing run yet) has no folder for its SQLite catalog.
        CatalogConf.createSqliteFolder(profile.catalog());
        hasLocal |= profile.load().table().catalog().equals(Home.LOCAL_CATALOG);
      }
    }
    if (!hasLocal) {
      Catalog embedded = embeddedCatalog(home);
      CatalogConf.createSqliteFolder(embedded);
      properties.putAll(CatalogConf.sparkProperties(Home.LOCAL_CATALOG, embedded));
    }
    properties.put(DEFAULT_CATALOG_KEY, Home.LOCAL_CATALOG);
    properties.replaceAll((key, value) -> isCatalogClass(key) && value.equals(CatalogConf.SPARK_CATALOG)
        ? TablesOnlyCatalog.class.getName() : value);
    return properties;
  }

  /** {@code spark.sql.catalog.<name>}: the key of a catalog's class. */
  private static boolean isCatalogClass(String key) {
    return key.startsWith(CATALOG_PREFIX) && key.indexOf('.', CATALOG_PREFIX.length()) < 0;
  }

  /** The embedded catalog's settings: what a profile gets with the default {@code catalog.*} keys. */
  static Catalog embeddedCatalog(Home home) {
    return new Catalog(Catalog.CatalogType.JDBC, "jdbc:sqlite:" + home.catalogDb(), home.warehouse().toString(),
        Optional.empty(), Optional.empty(), Optional.empty(), false, Map.of());
  }

  public static SparkSession session(Map<String, String> catalogs) {
    SparkSession.Builder builder = SparkSession.builder()
        .appName("files2iceberg sql")
        .master(System.getProperty("spark.master", "local[*]"))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1");
    catalogs.forEach(builder::config);
    return builder.getOrCreate();
  }

  /** The command line. */
  record Options(Home home, Optional<Path> config, Optional<Path> ledgerTables, boolean json, boolean echo,
      int maxRows, List<String> statements) {

    static Options parse(String[] args) {
      Optional<Path> home = Optional.empty();
      Optional<Path> config = Optional.empty();
      Optional<Path> ledgerTables = Optional.empty();
      boolean json = false;
      boolean echo = false;
      int maxRows = DEFAULT_MAX_ROWS;
      List<String> statements = new ArrayList<>();
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        switch (arg) {
          case "--json" -> json = true;
          case "--echo" -> echo = true;
          case "--home", "--config", "--ledger-tables", "--max-rows" -> {
            if (i + 1 >= args.length) {
              throw new IllegalArgumentException(arg + " needs a value");
            }
            String value = args[++i];
            switch (arg) {
              case "--home" -> home = Optional.of(Path.of(value));
              case "--config" -> config = Optional.of(Path.of(value));
              case "--ledger-tables" -> ledgerTables = Optional.of(Path.of(value));
              default -> maxRows = maxRows(value);
            }
          }
          case "--" -> {
            statements.addAll(List.of(args).subList(i + 1, args.length));
            i = args.length;
          }
          default -> {
            if (arg.startsWith("--")) {
              throw new IllegalArgumentException("unknown option " + arg);
            }
            statements.add(arg);
          }
        }
      }
      if (statements.stream().allMatch(String::isBlank)) {
        throw new IllegalArgumentException("no SQL statement given");
      }
      return new Options(Home.resolve(home, System.getenv()), config, ledgerTables, json, echo, maxRows,
          statements.stream().filter(s -> !s.isBlank()).toList());
    }

    private static int maxRows(String text) {
      try {
        int value = Integer.parseInt(text.trim());
        if (value >= 0) {
          return value;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException("--max-rows \"" + text + "\" is not a whole number, 0 or more");
    }
  }
}
