package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;

import io.files2iceberg.core.profile.Load;
import io.files2iceberg.core.profile.Load.Cdc;
import io.files2iceberg.sparkjob.extract.GenerationCheck;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SafeWidening;
import io.files2iceberg.sparkjob.load.IcebergLoad.WriteMode;
import io.files2iceberg.sparkjob.transform.TransformedBatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rows a batch writes, fixed before its first commit: with a primary key one row per key, with
 * {@code load.cdc} and a precombine field without the rows older than a tombstone of their key, in
 * the table's columns.
 *
 * @param source the rows to write: the table's columns, then {@link InternalColumns#ABSENT} and
 *     {@link #DELETE} when asked for
 * @param side how many they are, and the MERGE's restriction to the batch's partitions
 * @param olderThanTombstones the rows a tombstone left out (unchanged)
 */
record RowsToWrite(Dataset<Row> source, SourceSide side, long olderThanTombstones) {
  /** With {@code load.cdc}: whether the row deletes its key. */
  static final String DELETE = InternalColumns.PREFIX + "delete";
  /** The load stage's logger: these lines are the stage's. */
  private static final Logger LOG = LoggerFactory.getLogger(IcebergLoad.class);
  private static final String RANK = InternalColumns.PREFIX + "rank";

  /**
   * Chooses the rows and checks the manifest's generations once they are fixed (cached,
   * materialized), before the batch's first commit; with tombstones that commit is theirs, made
   * here.
   *
   * @param rows the batch's rows, with {@link #DELETE} when {@code cdc} is present
   * @param target the table's schema, whose columns the rows are written with
   * @param keepMissing whether the rows keep {@link InternalColumns#ABSENT}, for a MERGE update
   *     that keeps a stored value where the row's file has no column
   * @param marker the batch's snapshot summary properties, which the tombstones' commit carries
   */
  static RowsToWrite choose(TransformedBatch input, Dataset<Row> rows, Table table, StructType target,
      WriteMode mode, Optional<Cdc> cdc, boolean keepMissing, GenerationCheck generations,
      Map<String, String> marker) {
    LoadBatch batch = input.batch();
    SparkSession spark = batch.spark();
    String name = batch.table();
    Load load = batch.profile().load();
    Dataset<Row> source;
    SourceSide side;
    long olderThanTombstones = 0;  // rows dropped by a tombstone: unchanged
    // With tombstones the batch's first commit is theirs, before the table's.
    boolean tombstones = cdc.isPresent() && load.precombineField().isPresent();
    if (load.primaryKey().isEmpty()) {
      // The transform's cache fixed the rows and counted them; no key means no window, and every
      // row is written.
      source = alignTo(input.rows(), target, false, false);
      side = new SourceSide(input.rowsToLoad(), Optional.empty());
    } else if (tombstones) {
      // The tombstones are committed first: they must hold before any row they guard against can
      // reach the table.
      source = batch.scope().materialize(alignTo(oneRowPerKey(rows, load), target, keepMissing, true));
      // One pass computes and keeps the rows, and counts them and their deletes.
      Row counted = source.agg(functions.count(functions.lit(1)),
          functions.sum(functions.when(column(DELETE), 1).otherwise(0))).first();
      long chosen = counted.getLong(0);
      // Ordering: the generations are checked after the rows are computed and kept (above) and
      // before the batch's first commit, the tombstones' (the table's creation and schema
      // changes carry no rows): no commit, of tombstones or of rows, is made from a generation
      // that moved. What follows reads the kept rows only, so this one check covers the table's
      // commit too.
      generations.requireUnchanged(batch, input.extracted().filesRead());
      Tombstones.record(batch, source, load, DELETE, WriteCounts.longOrZero(counted, 1), marker);
      List<String> scope = SourceSide.scopeColumns(table, load);
      Dataset<Row> kept = Tombstones.withoutOlderThanTombstones(spark, name, source, load, DELETE);
      if (kept == source) {
        // No tombstone to leave a row out: the rows to write are the chosen ones, counted above.
        side = scope.isEmpty() ? new SourceSide(chosen, Optional.empty()) : SourceSide.of(source, scope);
      } else {
        source = batch.scope().materialize(kept);
        side = SourceSide.of(source, scope);
      }
      olderThanTombstones = chosen - side.rows();
      if (olderThanTombstones > 0) {
        LOG.info("Table {} batch {}: {} row(s) left out: their key was deleted with a newer precombine value",
            name, batch.batchId(), olderThanTombstones);
      }
    } else {
      source = batch.scope().materialize(alignTo(oneRowPerKey(rows, load), target, keepMissing,
          cdc.isPresent()));
      side = SourceSide.of(source, mode == WriteMode.MERGE ? SourceSide.scopeColumns(table, load) : List.of());
    }
    side.restriction().ifPresent(on -> LOG.info("Table {} batch {}: the MERGE reads only the batch's partitions: {}",
        name, batch.batchId(), on));
    if (!tombstones) {
      // The rows are fixed now (cached, materialized): they are the manifest's generations only if
      // no object moved since it was opened. Checked before the batch's one commit.
      generations.requireUnchanged(batch, input.extracted().filesRead());
    }
    return new RowsToWrite(source, side, olderThanTombstones);
  }

  /**
   * One row per key: the highest precombine value (NULL lowest), then the highest generation, then
   * the last file of the manifest, then the last row of its file.
   */
  private static Dataset<Row> oneRowPerKey(Dataset<Row> rows, Load load) {
    List<Column> order = new ArrayList<>();
    load.precombineField().ifPresent(field -> order.add(column(field).desc_nulls_last()));
    order.add(column(InternalColumns.GENERATION).desc());
    order.add(column(InternalColumns.ORDER).desc());
    order.add(column(InternalColumns.ROW).desc());
    WindowSpec window = Window.partitionBy(load.primaryKey().stream().map(k -> column(k)).toArray(Column[]::new))
        .orderBy(order.toArray(Column[]::new));
    return rows.withColumn(RANK, functions.row_number().over(window))
        .filter(column(RANK).equalTo(1))
        .drop(RANK);
  }

  /**
   * The table's columns, in its order: the batch's values (widened as needed), else NULL; then,
   * with {@code withAbsent}, {@link InternalColumns#ABSENT}.
   */
  private static Dataset<Row> alignTo(Dataset<Row> rows, StructType target, boolean withAbsent, boolean withDelete) {
    Map<String, DataType> types = new LinkedHashMap<>();
    for (StructField field : rows.schema().fields()) {
      types.put(field.name(), field.dataType());
    }
    List<Column> select = new ArrayList<>();
    for (StructField field : target.fields()) {
      DataType type = types.get(field.name());
      Column value;
      if (type == null) {
        value = functions.lit(null).cast(field.dataType());
      } else if (SafeWidening.sameType(type, field.dataType())) {
        value = column(field.name());
      } else {
        value = column(field.name()).cast(field.dataType());
      }
      select.add(value.as(field.name()));
    }
    if (withAbsent) {
      select.add(column(InternalColumns.ABSENT));
    }
    if (withDelete) {
      select.add(column(DELETE));
    }
    return rows.select(select.toArray(Column[]::new));
  }
}
