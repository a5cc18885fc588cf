package io.files2iceberg.semantics;

import io.files2iceberg.sparkjob.catalog.CatalogConf;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * One SparkContext for the test JVM (starting one takes seconds), local[2] with the UI off and two
 * shuffle partitions, and a session of its own per test class, whose catalog properties name that
 * class's home.
 */
final class Sessions {
  private static SparkSession root;

  private Sessions() {}

  static synchronized SparkSession newSession(Map<String, String> catalogProperties) {
    if (root == null) {
      root = SparkSession.builder()
          .master("local[2]")
          .appName("files2iceberg-semantics")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config(CatalogConf.EXTENSIONS_KEY, CatalogConf.ICEBERG_EXTENSIONS)
          .getOrCreate();
    }
    SparkSession session = root.newSession();
    catalogProperties.forEach((key, value) -> {
      // The catalog's properties; the profile's other Spark properties are the context's already.
      if (key.startsWith("spark.sql.catalog.")) {
        session.conf().set(key, value);
      }
    });
    return session;
  }
}
