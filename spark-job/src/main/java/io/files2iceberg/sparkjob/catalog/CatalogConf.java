package io.files2iceberg.sparkjob.catalog;

import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Spark properties that make a profile's Iceberg catalog available to the job, in one place:
 * the "Catalogs" table of docs/spark-job.md lists exactly what this class produces.
 *
 * <p>The catalog is named by the first part of {@code load.iceberg.table} and is always Iceberg's
 * {@code SparkCatalog}; {@code catalog.type} picks the implementation behind it:
 *
 * <ul>
 *   <li>{@code jdbc}: {@code uri} (the embedded default is SQLite, {@code jdbc:sqlite:<home>/catalog.db})
 *       and {@code warehouse};
 *   <li>{@code hadoop}: {@code warehouse} only;
 *   <li>{@code rest} (BigLake): {@code uri}, {@code warehouse}, {@code header.x-goog-user-project},
 *       {@code rest.auth.type}, {@code io-impl} and, with vended credentials,
 *       {@code header.X-Iceberg-Access-Delegation=vended-credentials}.
 * </ul>
 *
 * <p>Every catalog also reports its commits to {@link CommitDurations}, which is how the job
 * measures the Iceberg commit. {@code catalog.properties} are added last, as they are, and win.
 */
public final class CatalogConf {
  public static final String EXTENSIONS_KEY = "spark.sql.extensions";
  public static final String ICEBERG_EXTENSIONS =
      "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions";
  public static final String SPARK_CATALOG = "org.apache.iceberg.spark.SparkCatalog";
  public static final String VENDED_CREDENTIALS_HEADER = "header.X-Iceberg-Access-Delegation";
  public static final String USER_PROJECT_HEADER = "header.x-goog-user-project";
  public static final String SESSION_TIME_ZONE_KEY = "spark.sql.session.timeZone";
  /**
   * The job's session time zone unless {@code job.spark-properties} sets {@value #SESSION_TIME_ZONE_KEY}:
   * never the machine's, so that the same file loads the same instants on any host. It is the
   * deployment's, not a table's: a warm driver runs the tables of many profiles on one context.
   */
  public static final String DEFAULT_SESSION_TIME_ZONE = "UTC";
  private static final String SQLITE_PREFIX = "jdbc:sqlite:";
  /** How long a connection to a SQLite catalog waits for another's lock (SQLite's busy_timeout). */
  static final String SQLITE_BUSY_TIMEOUT_MILLIS = "30000";

  private CatalogConf() {}

  /** The catalog's properties: {@code spark.sql.extensions} and {@code spark.sql.catalog.<name>[.*]}. */
  public static Map<String, String> sparkProperties(TableProfile profile) {
    return sparkProperties(profile.load().table().catalog(), profile.catalog());
  }

  /**
   * The properties of the catalog {@code name} with these settings, as {@link
   * #sparkProperties(TableProfile)} makes them for a profile's catalog; {@code sql} uses it for the
   * embedded catalog when no profile names it.
   */
  public static Map<String, String> sparkProperties(String name, Catalog catalog) {
    String prefix = "spark.sql.catalog." + name;
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(EXTENSIONS_KEY, ICEBERG_EXTENSIONS);
    properties.put(prefix, SPARK_CATALOG);
    properties.put(prefix + ".type", catalog.type().code());
    switch (catalog.type()) {
      case JDBC -> {
        properties.put(prefix + ".uri", catalog.uri());
        properties.put(prefix + ".warehouse", catalog.warehouse());
        if (catalog.uri().startsWith(SQLITE_PREFIX)) {
          // A second JVM writing the same file (a job beside a sql session, an orphaned job beside
          // its relaunch) waits for its lock instead of failing after the driver's 3 s.
          properties.put(prefix + ".jdbc.busy_timeout", SQLITE_BUSY_TIMEOUT_MILLIS);
        }
      }
      case HADOOP -> properties.put(prefix + ".warehouse", catalog.warehouse());
      case REST -> {
        properties.put(prefix + ".uri", catalog.uri());
        properties.put(prefix + ".warehouse", catalog.warehouse());
        catalog.userProject().ifPresent(project -> properties.put(prefix + "." + USER_PROJECT_HEADER, project));
        catalog.authType().ifPresent(auth -> properties.put(prefix + ".rest.auth.type", auth));
        if (catalog.vendedCredentials()) {
          properties.put(prefix + "." + VENDED_CREDENTIALS_HEADER, "vended-credentials");
        }
      }
    }
    catalog.ioImpl().ifPresent(io -> properties.put(prefix + ".io-impl", io));
    properties.put(prefix + ".metrics-reporter-impl", CommitDurations.class.getName());
    catalog.properties().forEach((key, value) -> properties.put(prefix + "." + key, value));
    return Collections.unmodifiableMap(properties);
  }

  /**
   * Everything the job's session is built with: the catalog's properties, with a {@code GCSFileIO}
   * pointed where the job's GCS connector reads ({@link StorageSettings#fileIoProperties}, unless
   * {@code catalog.properties} set those keys), the session time zone {@value
   * #DEFAULT_SESSION_TIME_ZONE}, then {@code job.spark-properties} as they are (they win), except that a {@code spark.sql.extensions} of the profile keeps Iceberg's extensions in
   * the list.
   */
  public static Map<String, String> sessionProperties(TableProfile profile, JobSettings job) {
    Map<String, String> properties = new LinkedHashMap<>(sparkProperties(profile));
    String prefix = "spark.sql.catalog." + profile.load().table().catalog() + ".";
    StorageSettings.ofConnector(key -> job.sparkProperties().get("spark.hadoop." + key)).fileIoProperties()
        .forEach((key, value) -> properties.putIfAbsent(prefix + key, value));
    properties.put(SESSION_TIME_ZONE_KEY, DEFAULT_SESSION_TIME_ZONE);
    job.sparkProperties().forEach((key, value) -> {
      if (key.equals(EXTENSIONS_KEY)) {
        properties.put(key, withIcebergExtensions(value));
      } else {
        properties.put(key, value);
      }
    });
    return Collections.unmodifiableMap(properties);
  }

  /**
   * What a Spark context that runs the jobs of many profiles (a warm driver's) is started with:
   * Iceberg's extensions and the session time zone {@value #DEFAULT_SESSION_TIME_ZONE}, then {@code
   * job.spark-properties} as {@link #sessionProperties} adds them;
   * each profile's catalog is set in a session of its own.
   */
  public static Map<String, String> contextProperties(Map<String, String> sparkProperties) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(EXTENSIONS_KEY, ICEBERG_EXTENSIONS);
    properties.put(SESSION_TIME_ZONE_KEY, DEFAULT_SESSION_TIME_ZONE);
    sparkProperties.forEach((key, value) ->
        properties.put(key, key.equals(EXTENSIONS_KEY) ? withIcebergExtensions(value) : value));
    return Collections.unmodifiableMap(properties);
  }

  /**
   * Creates the folder of a JDBC catalog on a local SQLite file ({@code jdbc:sqlite:<path>}, the
   * embedded default under the home), which SQLite does not create. With the SQLite ledger the
   * home exists already; with {@code ledger.type = firestore} nothing else may have created it.
   * Only what may create the catalog calls it (the job, {@code sql} on the embedded home), so that
   * {@code maintain} on a catalog that is not there fails instead of finding an empty one.
   *
   * @throws UncheckedIOException naming the folder when it cannot be created
   */
  public static void createSqliteFolder(Catalog catalog) {
    if (catalog.type() != Catalog.CatalogType.JDBC || !catalog.uri().startsWith(SQLITE_PREFIX)) {
      return;
    }
    String file = catalog.uri().substring(SQLITE_PREFIX.length());
    int query = file.indexOf('?');
    file = query >= 0 ? file.substring(0, query) : file;
    if (file.isBlank() || file.startsWith(":") || file.startsWith("file:")) {
      return;
    }
    Path folder = Path.of(file).toAbsolutePath().getParent();
    try {
      Files.createDirectories(folder);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the folder " + folder + " of the catalog " + catalog.uri(), e);
    }
  }

  private static String withIcebergExtensions(String extensions) {
    for (String extension : extensions.split(",")) {
      if (extension.trim().equals(ICEBERG_EXTENSIONS)) {
        return extensions;
      }
    }
    return extensions.isBlank() ? ICEBERG_EXTENSIONS : ICEBERG_EXTENSIONS + "," + extensions;
  }
}
