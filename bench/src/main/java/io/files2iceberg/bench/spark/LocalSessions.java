package io.files2iceberg.bench.spark;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The session of a bench main, written out as a user would for the embedded catalog: Iceberg's
 * extensions and catalog {@code local}, JDBC on SQLite under the home, {@code local[2]}.
 */
final class LocalSessions {
  private LocalSessions() {}

  static SparkSession open(Path home, String appName) {
    return SparkSession.builder()
        .appName(appName)
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.local.type", "jdbc")
        .config("spark.sql.catalog.local.uri", "jdbc:sqlite:" + home.resolve("catalog.db"))
        .config("spark.sql.catalog.local.warehouse", home.resolve("warehouse").toString())
        .getOrCreate();
  }

  /** The value after {@code --name} in the arguments. */
  static String arg(String[] args, String name) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    throw new IllegalArgumentException("missing " + name);
  }
}
