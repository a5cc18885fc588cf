package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;

import io.files2iceberg.sparkjob.extract.InternalColumns;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;

/**
 * With {@code load.snapshot-deletes}: the keys whose every row of the snapshot was a bad record or
 * was rejected or dropped by a check of {@code quality.expectations}. They are in the snapshot, so their stored rows must
 * stay: they join the MERGE's source as rows marked {@link #KEEP}, which match their stored row
 * (so {@code WHEN NOT MATCHED BY SOURCE} leaves it) and that no clause of the MERGE acts on, and
 * {@link AbsentKeys} counts them as present.
 */
final class HeldBackKeys {
  /** Whether a row of the MERGE's source only keeps its key's stored row. */
  static final String KEEP = InternalColumns.PREFIX + "keep";
  private static final String PRESENT = InternalColumns.PREFIX + "present_";

  private HeldBackKeys() {}

  /**
   * The rows to write with {@link #KEEP} false, and a row with {@link #KEEP} true for each key of
   * {@code heldBack} that they lack: the key in the rows' type, every other column NULL.
   *
   * @param rows the rows to write, one per key
   * @param heldBack the bad records and the rows the expectations rejected or dropped, by the batch's
   *     column names
   */
  static Dataset<Row> withKept(Dataset<Row> rows, Dataset<Row> heldBack, List<String> keys) {
    List<Column> present = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      present.add(column(keys.get(i)).as(PRESENT + i));
    }
    Dataset<Row> written = rows.select(present.toArray(Column[]::new));
    // A bad record whose key did not cast has no key to keep.
    Column keyed = functions.lit(true);
    for (String key : keys) {
      keyed = keyed.and(column(key).isNotNull());
    }
    Dataset<Row> held = heldBack.filter(keyed).select(keys.stream().map(k -> column(k)).toArray(Column[]::new))
        .distinct();
    Column on = null;
    for (int i = 0; i < keys.size(); i++) {
      Column equal = held.col(quote(keys.get(i))).equalTo(written.col(PRESENT + i));
      on = on == null ? equal : on.and(equal);
    }
    Dataset<Row> missing = held.join(written, on, "left_anti");
    List<Column> select = new ArrayList<>();
    for (StructField field : rows.schema().fields()) {
      Column value = keys.contains(field.name()) ? column(field.name()).cast(field.dataType())
          : functions.lit(null).cast(field.dataType());
      select.add(value.as(field.name()));
    }
    select.add(functions.lit(true).as(KEEP));
    return rows.withColumn(KEEP, functions.lit(false)).unionByName(missing.select(select.toArray(Column[]::new)));
  }
}
