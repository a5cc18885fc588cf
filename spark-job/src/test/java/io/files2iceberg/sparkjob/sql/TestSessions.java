package io.files2iceberg.sparkjob.sql;

import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * Sessions for the demo and sql tests, on the one SparkContext of the test JVM: built with the
 * settings the job's tests use (local[2], Iceberg's extensions), so whichever test class creates
 * the context first, the others can use it. Catalogs are per session.
 */
public final class TestSessions {
  private TestSessions() {}

  /** A new session with these catalog properties ({@code spark.sql.extensions} is the context's). */
  public static synchronized SparkSession newSession(Map<String, String> catalogProperties) {
    SparkSession root = SparkSession.builder()
        .master("local[2]")
        .appName("files2iceberg-spark-job-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.warehouse.dir", tempDir())
        .config(CatalogConf.EXTENSIONS_KEY, CatalogConf.ICEBERG_EXTENSIONS)
        .getOrCreate();
    SparkSession session = root.newSession();
    session.conf().set("spark.sql.session.timeZone", "UTC");
    catalogProperties.forEach((key, value) -> {
      if (!key.equals(CatalogConf.EXTENSIONS_KEY)) {
        session.conf().set(key, value);
      }
    });
    return session;
  }

  /** A session whose catalog {@code local} is the home's embedded one (JDBC on SQLite), made active. */
  public static SparkSession embedded(Home home) {
    Catalog embedded = new Catalog(Catalog.CatalogType.JDBC, "jdbc:sqlite:" + home.catalogDb(),
        home.warehouse().toString(), Optional.empty(), Optional.empty(), Optional.empty(), false, Map.of());
    SparkSession session = newSession(CatalogConf.sparkProperties("local", embedded));
    SparkSession.setActiveSession(session);
    return session;
  }

  private static String tempDir() {
    try {
      return Files.createTempDirectory("spark-warehouse").toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
