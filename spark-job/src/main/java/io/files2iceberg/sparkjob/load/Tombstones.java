package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;
import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.core.profile.Load;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deletes a table with {@code load.cdc} and a precombine field remembers after their rows are
 * gone: {@code <table>__deletes}, one row per deleted key with the highest precombine value any
 * delete of it carried, the batch that wrote that value and when.
 *
 * <p>Why: once a delete removed the stored row, nothing in the table says how new the delete
 * was, so a late insert or update with an older precombine value would bring the key back. The
 * job's MERGE therefore drops every incoming insert or update whose key has a tombstone with a
 * strictly higher precombine value ({@link #withoutOlderThanTombstones}). At an equal value the
 * later batch wins, as it does between two updates (the MERGE updates a stored row when the
 * incoming value is {@code >=} the stored one): a delete followed by an insert of the same
 * precombine value in a later batch leaves the row in the table.
 *
 * <p>Ordering: the tombstones are committed ({@link #record}) before the table's own commit. A
 * crash between the two leaves tombstones for deletes the table has not applied yet; the batch is
 * then loaded again, and the tombstone MERGE is idempotent (it keeps the highest value per key, an
 * equal value changes nothing, and a tombstone commit carrying the batch id is not repeated), and
 * the batch's inserts and updates are for other keys than its deletes (one row per key), so the
 * replay writes what the first attempt would have.
 */
public final class Tombstones {
  /** The tombstone table's column with the batch that wrote the row's precombine value. */
  static final String BATCH_ID = "_batch_id";
  /** The tombstone table's column with the start of that batch's job. */
  static final String DELETED_AT = "_deleted_at";

  private static final Logger LOG = LoggerFactory.getLogger(Tombstones.class);
  private static final String STORED_PREFIX = "_f2i_tomb_";

  private Tombstones() {}

  /** The tombstone table of a table. */
  public static String tableOf(String table) {
    return table + "__deletes";
  }

  /**
   * MERGEs the batch's deletes into the tombstone table (creating it on first use), in a commit
   * that carries the batch's marker; nothing when the batch has no delete or the commit is there
   * already.
   *
   * @param rows the batch's rows, one per key, with the key, the precombine field and {@code
   *     deleteColumn}
   * @param count how many of the rows are deletes (the caller counted them with the rows)
   */
  static void record(LoadBatch batch, Dataset<Row> rows, Load load, String deleteColumn, long count,
      Map<String, String> marker) {
    if (count == 0) {
      return;
    }
    SparkSession spark = batch.spark();
    String name = tableOf(batch.table());
    Dataset<Row> deletes = rows.where(column(deleteColumn));
    List<String> columns = columns(load);
    StructType schema = rows.schema();
    List<SourceColumn> definitions = new ArrayList<>();
    for (String c : columns) {
      definitions.add(new SourceColumn(c, schema.apply(c).dataType(), "load.primary-key"));
    }
    definitions.add(new SourceColumn(BATCH_ID, DataTypes.StringType, "tombstone"));
    definitions.add(new SourceColumn(DELETED_AT, DataTypes.TimestampType, "tombstone"));
    Table table = IcebergTables.find(spark, name)
        .orElseGet(() -> IcebergTables.create(spark, name, definitions, List.of(), Map.of()));
    // The table's key or precombine type may have widened since the tombstones were created.
    if (!TableSchemaSync.sync(table, definitions, Load.SchemaEvolution.ADD_NEW_COLUMNS).isEmpty()) {
      spark.sql("REFRESH TABLE " + quoteTable(name));
      table.refresh();
    }
    if (CommitMarker.find(table, batch.batchId()).isPresent()) {
      LOG.info("Table {} batch {}: its {} delete(s) are in {} already", batch.table(), batch.batchId(), count, name);
      return;
    }
    List<Column> select = new ArrayList<>();
    columns.forEach(c -> select.add(column(c)));
    select.add(functions.lit(batch.batchId()).as(BATCH_ID));
    select.add(functions.lit(Timestamp.from(batch.startedAt())).as(DELETED_AT));
    String view = MergeSql.view("deletes", batch.batchId());
    batch.scope().view(view, deletes.select(select.toArray(Column[]::new)));
    String pre = quote(load.precombineField().orElseThrow());
    String merge = "MERGE INTO " + quoteTable(name) + " AS t USING " + quote(view) + " AS s ON "
        + MergeSql.keysMatch(load.primaryKey())
        + " WHEN MATCHED AND s." + pre + " IS NOT NULL AND (t." + pre + " IS NULL OR s." + pre + " > t." + pre + ")"
        + " THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *";
    IcebergTables.writeMarked(marker, () -> spark.sql(merge));
    LOG.info("Table {} batch {}: {} delete(s) recorded in {}", batch.table(), batch.batchId(), count, name);
  }

  /**
   * The rows without the inserts and updates that a remembered delete is newer than: a tombstone
   * of their key with a precombine value strictly higher than theirs (a row without a value is
   * older than any tombstone with one). Deletes pass: the MERGE's own precombine condition decides
   * them.
   *
   * @return {@code rows} itself when the table has no tombstone yet
   */
  static Dataset<Row> withoutOlderThanTombstones(SparkSession spark, String table, Dataset<Row> rows, Load load,
      String deleteColumn) {
    Optional<Table> tombstones = IcebergTables.find(spark, tableOf(table));
    if (tombstones.isEmpty() || tombstones.get().currentSnapshot() == null) {
      return rows;
    }
    List<String> keys = load.primaryKey();
    String precombine = load.precombineField().orElseThrow();
    List<Column> stored = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      stored.add(column(keys.get(i)).as(STORED_PREFIX + i));
    }
    stored.add(column(precombine).as(STORED_PREFIX + "pre"));
    Dataset<Row> remembered = spark.table(quoteTable(tableOf(table))).select(stored.toArray(Column[]::new));
    Column on = null;
    for (int i = 0; i < keys.size(); i++) {
      Column equal = rows.col(quote(keys.get(i))).equalTo(remembered.col(STORED_PREFIX + i));
      on = on == null ? equal : on.and(equal);
    }
    Column tombstone = remembered.col(STORED_PREFIX + "pre");
    Column incoming = rows.col(quote(precombine));
    Column older = functions.not(rows.col(quote(deleteColumn)))
        .and(tombstone.isNotNull())
        .and(incoming.isNull().or(incoming.lt(tombstone)));
    Column[] own = List.of(rows.columns()).stream().map(c -> rows.col(quote(c))).toArray(Column[]::new);
    return rows.join(remembered, on, "left").where(functions.not(functions.coalesce(older, functions.lit(false))))
        .select(own);
  }

  /** The key columns, then the precombine field unless it is one of them. */
  private static List<String> columns(Load load) {
    List<String> columns = new ArrayList<>(load.primaryKey());
    String precombine = load.precombineField().orElseThrow();
    if (!columns.contains(precombine)) {
      columns.add(precombine);
    }
    return columns;
  }
}
