package io.files2iceberg.sparkjob.transform;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;

import io.files2iceberg.core.profile.Load.Cdc;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.StructField;

/**
 * Which rows of a {@code load.cdc} batch delete their key: the transforms leave them out of the
 * expectations (a delete carries the key only), and the load turns them into the MERGE's deletes.
 */
public final class CdcDeletes {
  private CdcDeletes() {}

  /**
   * Whether a row is a delete: its op column's value (as a string) is one of the delete values,
   * or its delete flag is true. NULL is neither.
   *
   * @param rows rows by the table's column names (after renames and casts)
   * @throws BatchFailedException naming the key when the column is not among the rows' columns, or
   *     a delete flag is not boolean
   */
  public static Column isDelete(Dataset<Row> rows, Cdc cdc) {
    Optional<StructField> field = List.of(rows.schema().fields()).stream()
        .filter(f -> f.name().equals(cdc.column())).findFirst();
    if (field.isEmpty()) {
      throw new BatchFailedException(cdc.key() + ": column \"" + cdc.column() + "\" is not among the batch's columns "
          + List.of(rows.columns()).stream().filter(c -> !InternalColumns.isInternal(c)).toList()
          + " (after transform.rename-columns)");
    }
    Column value = column(cdc.column());
    Column delete = switch (cdc.style()) {
      case OP_COLUMN -> value.cast("string").isin(cdc.deleteValues().toArray());
      case DELETE_FLAG -> {
        if (!(field.get().dataType() instanceof BooleanType)) {
          throw new BatchFailedException(cdc.key() + ": column \"" + cdc.column() + "\" has type "
              + field.get().dataType().simpleString() + ", not boolean");
        }
        yield value;
      }
    };
    return functions.coalesce(delete, functions.lit(false));
  }
}
