package io.files2iceberg.sparkjob.catalog;

import io.files2iceberg.core.logging.Causes;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;
import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;

/** Iceberg tables through the session's catalogs: look up, create, write with the batch marker. */
public final class IcebergTables {
  private IcebergTables() {}

  /**
   * The table, refreshed, or empty when the catalog has neither it nor its namespace (Spark
   * reports a missing table as its own exception; Iceberg's escape from catalogs that tell a
   * missing namespace apart, such as REST, and from ones Spark does not wrap).
   *
   * @throws IllegalStateException naming the catalog when it cannot be started (a catalog Spark
   *     cannot start would otherwise be taken for a namespace of the session catalog, hiding why)
   * @throws IllegalArgumentException when {@code name} is not a table name
   */
  public static Optional<Table> find(SparkSession spark, String name) {
    String catalog = name.substring(0, name.indexOf('.'));
    try {
      spark.sessionState().catalogManager().catalog(catalog);
    } catch (Exception e) { // Spark's CatalogNotFoundException is a checked SparkException, thrown undeclared
      if (e instanceof org.apache.spark.sql.connector.catalog.CatalogNotFoundException) {
        throw new BatchFailedException("load.iceberg.table " + name + ": catalog " + catalog
            + " is not configured: " + rootCause(e), e);
      }
      throw new IllegalStateException("Cannot reach catalog " + catalog + ": " + rootCause(e), e);
    }
    try {
      Table table = Spark3Util.loadIcebergTable(spark, name);
      table.refresh();
      return Optional.of(table);
    } catch (NoSuchTableException
        | org.apache.iceberg.exceptions.NoSuchTableException
        | org.apache.iceberg.exceptions.NoSuchNamespaceException e) {
      return Optional.empty();
    } catch (org.apache.spark.sql.catalyst.parser.ParseException e) {
      throw new IllegalArgumentException("Table " + name + " is not a valid table name: " + e.getMessage(), e);
    } catch (Exception e) {
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("Cannot load table " + name + ": " + e.getMessage(), e);
    }
  }

  public static Table load(SparkSession spark, String name) {
    return find(spark, name).orElseThrow(() -> new IllegalStateException("Table " + name + " does not exist"));
  }

  /**
   * Creates the table (and its namespace) unless it exists: format version 2, the columns in
   * order, the partition spec as the profile writes it ({@code dt}, {@code days(ts)}, {@code
   * bucket(16, id)}), then the given properties (which may override the format version).
   */
  public static Table create(SparkSession spark, String name, List<SourceColumn> columns, List<String> partitionBy,
      Map<String, String> properties) {
    String namespace = name.substring(0, name.lastIndexOf('.'));
    ignoringAlreadyExists(() -> spark.sql("CREATE NAMESPACE IF NOT EXISTS " + quoteTable(namespace)));
    List<String> definitions = new ArrayList<>();
    for (SourceColumn column : columns) {
      definitions.add(quote(column.name()) + " " + column.type().sql());
    }
    Map<String, String> tableProperties = new LinkedHashMap<>();
    tableProperties.put("format-version", "2");
    tableProperties.putAll(properties);
    List<String> props = new ArrayList<>();
    tableProperties.forEach((key, value) -> props.add(sqlString(key) + " = " + sqlString(value)));
    String ddl = "CREATE TABLE IF NOT EXISTS " + quoteTable(name) + " (" + String.join(", ", definitions) + ") USING iceberg"
        + (partitionBy.isEmpty() ? "" : " PARTITIONED BY (" + String.join(", ", partitionBy) + ")")
        + " TBLPROPERTIES (" + String.join(", ", props) + ")";
    ignoringAlreadyExists(() -> spark.sql(ddl));
    return load(spark, name);
  }

  /**
   * Runs an {@code IF NOT EXISTS} statement that may still fail with "already exists": two first
   * jobs of one catalog create its namespace (or table) at the same time, and the loser's catalog
   * reports the race instead of doing nothing.
   */
  private static void ignoringAlreadyExists(Runnable statement) {
    try {
      statement.run();
    } catch (Exception e) {
      if (e instanceof org.apache.iceberg.exceptions.AlreadyExistsException
          || e instanceof org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException
          || e instanceof org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException) {
        return; // created meanwhile by another job: what IF NOT EXISTS asked for
      }
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static String rootCause(Throwable e) {
    return Causes.chain(e);
  }


  /** Runs the write with the properties in the summary of every snapshot it commits. */
  public static void writeMarked(Map<String, String> summary, Callable<?> write) {
    CommitMetadata.withCommitProperties(summary, write, RuntimeException.class);
  }

  private static String sqlString(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
