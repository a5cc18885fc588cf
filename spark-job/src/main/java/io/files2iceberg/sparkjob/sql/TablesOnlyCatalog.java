package io.files2iceberg.sparkjob.sql;

import org.apache.iceberg.spark.SparkCatalog;
import org.apache.spark.sql.catalyst.analysis.NoSuchViewException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.View;

/**
 * Iceberg's {@link SparkCatalog} for {@code sql}, where a catalog without view support has no
 * views rather than failing the lookup: Iceberg's extensions look a name up as a view once no
 * table has it, and Iceberg's JDBC catalog (the embedded {@code local}) throws "initialized
 * without view support" there. That replaced Spark's own error, which names the missing table and
 * its position ({@code [TABLE_OR_VIEW_NOT_FOUND] The table or view `local`.`nope`.`missing` cannot
 * be found ... line 1 pos 14}); with no view found, Spark reports it.
 */
public final class TablesOnlyCatalog extends SparkCatalog {
  @Override
  public View loadView(Identifier ident) throws NoSuchViewException {
    try {
      return super.loadView(ident);
    } catch (UnsupportedOperationException e) {
      throw new NoSuchViewException(ident);
    }
  }
}
