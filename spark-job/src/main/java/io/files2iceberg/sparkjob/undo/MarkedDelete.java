package io.files2iceberg.sparkjob.undo;

import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.sparkjob.catalog.IcebergTables;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * A row-level {@code DELETE} in one commit whose snapshot summary carries the given properties.
 * The values come in as named parameters ({@code :name}), never as SQL text: a partition token or
 * a batch id is data.
 */
final class MarkedDelete {
  private MarkedDelete() {}

  /**
   * Deletes the rows of {@code table} where {@code condition} holds.
   *
   * @param condition over quoted column names and {@code :name} parameters only
   * @param values the parameters' values
   */
  static void run(SparkSession spark, String table, String condition, Map<String, Object> values,
      Map<String, String> summary) {
    String delete = "DELETE FROM " + quoteTable(table) + " WHERE " + condition;
    IcebergTables.writeMarked(summary, () -> spark.sql(delete, values).collectAsList());
  }
}
