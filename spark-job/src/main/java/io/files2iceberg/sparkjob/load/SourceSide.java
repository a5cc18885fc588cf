package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;

import io.files2iceberg.core.profile.Load.MergeScope;
import io.files2iceberg.core.profile.Load;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;

/**
 * What the rows to write say about themselves, in one aggregate over them: how many there are
 * and, for a MERGE restricted to the batch's partitions, the values of the partition spec's
 * source columns, as the condition on the stored rows that the MERGE adds to its {@code ON}
 * clause.
 *
 * <p>The condition is on the source columns, not on partition values, so it holds for any
 * transform and across partition evolution: Iceberg prunes the files whose partitions (or column
 * bounds) cannot hold the values, and a MERGE neither reads nor rewrites them. It is exact when
 * the key holds the columns: a stored row with the key of a batch row has that row's values in
 * them.
 *
 * @param rows the rows to write
 * @param restriction the condition on the target ({@code t.}) that the MERGE's {@code ON} adds;
 *     empty when the MERGE matches the whole table
 */
record SourceSide(long rows, Optional<String> restriction) {
  /** Beyond this many distinct values a column restricts by its range. */
  static final int MAX_LISTED_VALUES = 1_000;

  /**
   * The source columns of the table's partition spec that a MERGE of this profile restricts its
   * target to: every one with {@code load.merge-scope = partitions}, every one when the key holds
   * them all with {@code auto}, none otherwise (or for an unpartitioned table, or a partition
   * source column nested in a struct).
   */
  static List<String> scopeColumns(Table table, Load load) {
    if (load.mergeScope() == MergeScope.TABLE || table.spec().isUnpartitioned()) {
      return List.of();
    }
    List<String> columns = new ArrayList<>();
    for (PartitionField field : table.spec().fields()) {
      if (field.transform().isVoid()) {
        continue;
      }
      String name = table.schema().findColumnName(field.sourceId());
      if (name == null || name.contains(".")) {
        return List.of();
      }
      if (!columns.contains(name)) {
        columns.add(name);
      }
    }
    if (load.mergeScope() == MergeScope.PARTITIONS) {
      return columns;
    }
    List<String> key = load.primaryKey().stream().map(k -> k.toLowerCase(Locale.ROOT)).toList();
    return columns.stream().allMatch(c -> key.contains(c.toLowerCase(Locale.ROOT))) ? columns : List.of();
  }

  /** Counts the rows and, for each scope column, collects its values (or their range). */
  static SourceSide of(Dataset<Row> rows, List<String> scopeColumns) {
    List<Column> aggregates = new ArrayList<>();
    aggregates.add(functions.count(functions.lit(1)));
    for (String name : scopeColumns) {
      Column value = column(name);
      aggregates.add(functions.approx_count_distinct(value));
      aggregates.add(functions.min(value));
      aggregates.add(functions.max(value));
      aggregates.add(functions.max(value.isNull()));
    }
    Row result = rows.agg(aggregates.get(0), aggregates.subList(1, aggregates.size()).toArray(Column[]::new)).first();
    long count = result.getLong(0);
    if (scopeColumns.isEmpty() || count == 0) {
      return new SourceSide(count, Optional.empty());
    }
    List<String> conditions = new ArrayList<>();
    for (int i = 0; i < scopeColumns.size(); i++) {
      String name = scopeColumns.get(i);
      DataType type = rows.schema().apply(name).dataType();
      int at = 1 + 4 * i;
      long distinct = result.getLong(at);
      boolean nulls = !result.isNullAt(at + 3) && result.getBoolean(at + 3);
      String target = "t." + quote(name);
      String condition;
      if (result.isNullAt(at + 1)) {
        condition = target + " IS NULL";
      } else {
        if (distinct <= MAX_LISTED_VALUES) {
          List<Row> values = rows.select(column(name)).where(column(name).isNotNull()).distinct()
              .limit(MAX_LISTED_VALUES + 1).collectAsList();
          if (values.size() <= MAX_LISTED_VALUES) {
            List<String> literals = values.stream().map(r -> sql(r.get(0), type)).sorted().toList();
            condition = target + " IN (" + String.join(", ", literals) + ")";
          } else {
            condition = between(target, result, at, type);
          }
        } else {
          condition = between(target, result, at, type);
        }
        if (nulls) {
          condition = "(" + condition + " OR " + target + " IS NULL)";
        }
      }
      conditions.add(condition);
    }
    return new SourceSide(count, Optional.of(String.join(" AND ", conditions)));
  }

  private static String between(String target, Row result, int at, DataType type) {
    return target + " BETWEEN " + sql(result.get(at + 1), type) + " AND " + sql(result.get(at + 2), type);
  }

  /** A value as a Spark SQL literal of its column's type. */
  private static String sql(Object value, DataType type) {
    return Literal.create(value, type).sql();
  }
}
