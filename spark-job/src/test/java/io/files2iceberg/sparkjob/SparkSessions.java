package io.files2iceberg.sparkjob;

import io.files2iceberg.sparkjob.catalog.CatalogConf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * One SparkContext for the whole test JVM (starting one takes seconds), and a session of its own
 * per test class: sessions share the context but not their SQL conf, catalogs or temporary views.
 */
final class SparkSessions {
  private static SparkSession root;

  private SparkSessions() {}

  /** A new session with these catalog properties ({@code spark.sql.extensions} is the context's). */
  static synchronized SparkSession newSession(Map<String, String> catalogProperties) {
    if (root == null) {
      root = SparkSession.builder()
          .master("local[2]")
          .appName("files2iceberg-spark-job-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.warehouse.dir", tempDir("spark-warehouse").toString())
          .config(CatalogConf.EXTENSIONS_KEY, CatalogConf.ICEBERG_EXTENSIONS)
          .getOrCreate();
    }
    SparkSession session = root.newSession();
    catalogProperties.forEach((key, value) -> {
      if (!key.equals(CatalogConf.EXTENSIONS_KEY)) {
        session.conf().set(key, value);
      }
    });
    return session;
  }

  private static Path tempDir(String prefix) {
    try {
      Path dir = Files.createTempDirectory(prefix);
      dir.toFile().deleteOnExit();
      return dir;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
