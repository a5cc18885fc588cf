package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.literal;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;
import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Load;
import io.files2iceberg.core.profile.Load.Cdc;
import io.files2iceberg.core.profile.Load.MissingColumns;
import io.files2iceberg.core.profile.Load.SaveMode;
import io.files2iceberg.sparkjob.catalog.CommitDurations;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.extract.GenerationCheck;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SafeWidening;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.Loaded;
import io.files2iceberg.sparkjob.stage.Sink;
import io.files2iceberg.sparkjob.transform.TransformedBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the batch's rows into the Iceberg table, exactly once.
 *
 * <p>The order of the steps is the protocol:
 *
 * <ol>
 *   <li>If the current snapshot's ancestry carries this batch id, nothing is written: the rows
 *       are there already ({@link IcebergCommitted#alreadyCommitted()}).
 *   <li>The table is created on first use (format version 2, {@code load.partition-by}, {@code
 *       load.iceberg.table-properties}), else its schema is brought up to the batch's columns
 *       ({@link TableSchemaSync}). Both are metadata commits without rows.
 *   <li>With a primary key, one row per key is kept: the highest {@code precombine-field}, then
 *       the highest object generation, then the last file in the manifest, then the last row in
 *       the file.
 *   <li>One write, whose snapshot summary carries {@value CommitMarker#BATCH_ID} and {@value
 *       CommitMarker#EVENT_DIGEST}:
 *       <ul>
 *         <li>key, mode incremental: {@code MERGE INTO} on the key; a stored row is updated only
 *             when the incoming precombine value is {@code >=} the stored one (or the stored one is
 *             NULL), so replaying old data never overwrites newer rows. When the key holds the
 *             partition spec's source columns ({@code load.merge-scope}), the {@code ON} clause
 *             also restricts the stored rows to the batch's values of them ({@link SourceSide}),
 *             so files of other partitions are neither read nor rewritten. {@code load.write-mode}
 *             sets the table's {@code write.merge.mode} first ({@link WriteModeProperties}).
 *             With {@code load.cdc}, a chosen row that is a delete deletes the stored row under
 *             the same precombine condition and inserts nothing; with a precombine field the
 *             deletes are first committed to the tombstone table ({@link Tombstones}), and rows
 *             older than a tombstone of their key are left out;
 *         <li>key, mode last or full: the whole table is replaced by the batch's rows;
 *         <li>no key: {@code Append}, or {@code Overwrite} of the batch's partitions (incremental;
 *             dynamic partition overwrite) or of the whole table (last, full).
 *       </ul>
 *       Rows are written with the table's columns: a column the row's file lacks is NULL on
 *       insert; on a MERGE update it keeps the stored value ({@code load.missing-columns =
 *       keep}, the default) or becomes NULL ({@code null}: the update replaces the whole row).
 *   <li>A batch with no rows to write commits an empty snapshot carrying the marker, and deletes
 *       nothing, whatever the mode.
 * </ol>
 *
 * <p>The counts come from the write itself: the rows written are counted on the source side,
 * once, and the commit's snapshot summary says what the table gained. A MERGE deletes only the
 * rows its {@code load.cdc} deletes match, counted by the join below, so its inserts are the
 * records it added net of those it deleted (a rewritten file's copies, position deletes) plus
 * those deleted rows; with merge-on-read its updates are its position deletes less its deletes; with
 * copy-on-write they are the other matched rows, all of them without a precombine field, else
 * those not older than the stored row, from one join of the rows against the stored keys of the
 * MERGE's own scope (a copy-on-write commit cannot tell an updated row from a copied one, and
 * Spark 3.5's {@code MergeRowsExec} reports no row counts); the same join splits matched deletes
 * from updates in both write modes. Unchanged rows are the rest.
 */
public final class IcebergLoad implements Sink<TransformedBatch, IcebergCommitted> {
  /** The snapshot summary property that names the batch a snapshot loaded. */
  public static final String BATCH_ID_PROPERTY = CommitMarker.BATCH_ID;
  /** The snapshot summary property with a short digest of the batch's event ids. */
  public static final String EVENT_DIGEST_PROPERTY = CommitMarker.EVENT_DIGEST;

  private static final Logger LOG = LoggerFactory.getLogger(IcebergLoad.class);
  private static final String RANK = InternalColumns.PREFIX + "rank";
  private static final String TARGET_PREFIX = InternalColumns.PREFIX + "t_";
  private static final String MATCHED = InternalColumns.PREFIX + "matched";
  /** With {@code load.cdc}: whether the row deletes its key. */
  private static final String DELETE = InternalColumns.PREFIX + "delete";

  private final GenerationCheck generations;

  /**
   * @param generations checked once, when the rows are materialized and before the batch's first
   *     commit (with {@code load.cdc} and a precombine field, the tombstones'): a file whose
   *     generation moved during the read fails the batch (transient) instead of committing rows
   *     that may be another generation's
   */
  public IcebergLoad(GenerationCheck generations) {
    this.generations = Objects.requireNonNull(generations, "generations");
  }

  /**
   * Whether a batch of this profile and mode replaces its partitions, so that it must write their
   * whole live content: without a key and {@code save-mode = Overwrite} (incremental), or mode
   * {@code last}, whose batch replaces the whole table with its one partition. (Mode {@code full}
   * lists every file itself.)
   */
  public static boolean overwritesPartitions(Load load, IngestionType mode) {
    return WriteMode.of(load, mode) == WriteMode.OVERWRITE_PARTITIONS || mode.readsWholePartitions();
  }

  /** The snapshot of the table's current ancestry that carries the batch id, if any. */
  public Optional<Long> committedSnapshot(SparkSession spark, String table, String batchId) {
    return IcebergTables.find(spark, table).flatMap(t -> CommitMarker.find(t, batchId)).map(Snapshot::snapshotId);
  }

  @Override
  public IcebergCommitted write(TransformedBatch input, Loaded earlier) {
    LoadBatch batch = input.batch();
    SparkSession spark = batch.spark();
    String name = batch.table();
    Load load = batch.profile().load();

    Optional<Table> existing = IcebergTables.find(spark, name);
    if (existing.isPresent()) {
      Optional<Snapshot> done = CommitMarker.find(existing.get(), batch.batchId());
      if (done.isPresent()) {
        LOG.info("Table {} batch {}: already committed in snapshot {}; nothing written",
            name, batch.batchId(), done.get().snapshotId());
        return IcebergCommitted.already(name, done.get().snapshotId());
      }
    }
    Map<String, String> marker = CommitMarker.properties(batch.manifest());
    if (input.extracted().filesRead().isEmpty() && existing.isEmpty() && input.extracted().quarantined().isEmpty()) {
      // Every file was left out (its generation gone, or an ignored rewrite) before the table's
      // first rows: there are no columns to create it with, and nothing to write.
      LOG.info("Table {} batch {}: no file of the batch is left to read and the table does not exist yet; nothing"
          + " written", name, batch.batchId());
      return IcebergCommitted.nothingWritten(name);
    }
    if (input.extracted().filesRead().isEmpty()) {
      // Every file was quarantined or left out: the batch is done once the table says so, with no rows.
      Table table = existing.orElseThrow(() -> new BatchFailedException("no file of the batch could be read, so there"
          + " are no columns to create table " + name + " with; quarantined: "
          + input.extracted().quarantined().stream().map(q -> q.uri()).toList()));
      return commitMarkerOnly(batch, table, marker, WriteMode.of(load, batch.manifest().mode()), Counts.inserted(0));
    }
    WriteMode mode = WriteMode.of(load, batch.manifest().mode());
    // The profile allows load.cdc only with a MERGE; the column that marks a delete is not a table column.
    Optional<Cdc> cdc = load.cdc().filter(c -> mode == WriteMode.MERGE);
    List<SourceColumn> columns = cdc.isEmpty() ? input.columns()
        : input.columns().stream().filter(c -> !c.name().equals(cdc.get().column())).toList();
    // Checked before the table is created: a batch that cannot say which rows are deletes commits nothing.
    Dataset<Row> rows = cdc.isEmpty() ? input.rows() : input.rows().withColumn(DELETE, isDelete(input.rows(), cdc.get()));
    Table table = existing.orElseGet(() -> {
      Table created = IcebergTables.create(spark, name, columns, load.partitionBy(), load.tableProperties());
      LOG.info("Table {} batch {}: created, partitioned by {}", name, batch.batchId(), load.partitionBy());
      return created;
    });
    // Also after creating: another writer may have created the table first, with other columns.
    List<String> changes = TableSchemaSync.sync(table, columns, load.schemaEvolution());
    if (!changes.isEmpty()) {
      LOG.info("Table {} batch {}: schema changed: {}", name, batch.batchId(), changes);
      spark.sql("REFRESH TABLE " + quoteTable(name));
      table.refresh();
    }
    if (mode == WriteMode.OVERWRITE_PARTITIONS && table.spec().isUnpartitioned()) {
      throw new BatchFailedException("load.save-mode = Overwrite replaces the batch's partitions, but table " + name
          + " is not partitioned; it would replace the whole table");
    }

    if (mode == WriteMode.MERGE) {
      WriteModeProperties.apply(table, load.writeMode()).ifPresent(change -> {
        LOG.info("Table {} batch {}: {}", name, batch.batchId(), change);
        table.refresh();
      });
    }

    StructType target = SparkSchemaUtil.convert(table.schema());
    // Only a MERGE update has a stored value to keep; every other write has no row to keep it in.
    Optional<Set<String>> keepMissing = mode == WriteMode.MERGE && load.missingColumns() == MissingColumns.KEEP
        ? Optional.of(input.columns().stream().map(SourceColumn::name).collect(Collectors.toSet()))
        : Optional.empty();
    Dataset<Row> source;
    SourceSide side;
    long olderThanTombstones = 0;  // rows dropped by a tombstone: unchanged
    // With tombstones the batch's first commit is theirs, before the table's.
    boolean tombstones = cdc.isPresent() && load.precombineField().isPresent();
    if (load.primaryKey().isEmpty()) {
      // The transform's cache fixed the rows and counted them; no key means no window, and every
      // row is written.
      source = alignTo(input.rows(), target, false, false);
      side = new SourceSide(input.rowsRead() - input.rowsFiltered() - input.rowsRejected(), Optional.empty());
    } else if (tombstones) {
      // The tombstones are committed first: they must hold before any row they guard against can
      // reach the table.
      source = batch.scope().materialize(alignTo(oneRowPerKey(rows, load), target, keepMissing.isPresent(), true));
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
      Tombstones.record(batch, source, load, DELETE, longOrZero(counted, 1), marker);
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
      source = batch.scope().materialize(alignTo(oneRowPerKey(rows, load), target, keepMissing.isPresent(),
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

    if (side.rows() == 0) {
      return commitMarkerOnly(batch, table, marker, mode, new Counts(0, 0, olderThanTombstones, 0));
    }
    // Copy-on-write keeps no trace of a matched row that lost to a newer stored one, so with a
    // precombine field the split of matched rows is computed before the MERGE, on its own scope;
    // so it is with deletes, which neither write mode's summary tells from updates.
    Optional<Counts> split = mode == WriteMode.MERGE
        && (cdc.isPresent() || load.precombineField().isPresent() && !isMergeOnRead(table))
        ? Optional.of(matchedSplit(spark, name, source, load, side.restriction(), cdc.isPresent()))
        : Optional.empty();
    if (split.isPresent() && split.get().written() == 0) {
      return commitMarkerOnly(batch, table, marker, mode, split.get().plusUnchanged(olderThanTombstones));
    }
    long start = System.nanoTime();
    Dataset<Row> rowsToWrite = source;
    IcebergTables.writeMarked(marker, () -> {
      write(batch, mode, rowsToWrite, load, keepMissing, side.restriction(), cdc.isPresent());
      return null;
    });
    Duration mergeTime = Duration.ofNanos(System.nanoTime() - start);
    table.refresh();
    Optional<Snapshot> written = CommitMarker.find(table, batch.batchId());
    if (written.isEmpty() && mode == WriteMode.MERGE) {
      // A merge-on-read MERGE whose every row lost to a newer stored one writes no file, and
      // Iceberg commits nothing for it.
      return commitMarkerOnly(batch, table, marker, mode, new Counts(0, 0, side.rows() + olderThanTombstones, 0));
    }
    Counts counts = written.map(s -> Counts.of(mode, isMergeOnRead(table), s.summary(), side.rows(), split))
        .orElseGet(() -> Counts.inserted(side.rows())).plusUnchanged(olderThanTombstones);
    return committed(batch, table, mode, counts, mergeTime);
  }

  private static boolean isMergeOnRead(Table table) {
    return "merge-on-read".equals(table.properties().get("write.merge.mode"));
  }

  /** No rows to write (all filtered, rejected, unchanged or unreadable): a snapshot with the marker only. */
  private static IcebergCommitted commitMarkerOnly(LoadBatch batch, Table table, Map<String, String> marker,
      WriteMode mode, Counts counts) {
    LOG.info("Table {} batch {}: no rows to write; committing the batch marker only", batch.table(), batch.batchId());
    long start = System.nanoTime();
    AppendFiles append = table.newAppend();
    marker.forEach(append::set);
    append.commit();
    return committed(batch, table, mode, counts, Duration.ofNanos(System.nanoTime() - start));
  }

  private static IcebergCommitted committed(LoadBatch batch, Table table, WriteMode mode, Counts counts,
      Duration mergeTime) {
    table.refresh();
    Snapshot snapshot = CommitMarker.find(table, batch.batchId()).orElseThrow(() -> new IllegalStateException(
        "The write to " + batch.table() + " committed no snapshot with batch id " + batch.batchId()));
    Duration commitTime = CommitDurations.of(snapshot.snapshotId()).orElse(Duration.ZERO);
    LOG.info("Table {} batch {}: committed snapshot {} ({}): {} inserted, {} updated, {} deleted, {} unchanged",
        batch.table(), batch.batchId(), snapshot.snapshotId(), mode, counts.inserted(), counts.updated(),
        counts.deleted(), counts.unchanged());
    return new IcebergCommitted(batch.table(), snapshot.snapshotId(), false, counts.inserted(), counts.updated(),
        counts.unchanged(), counts.deleted(), mergeTime, commitTime);
  }

  private static void write(LoadBatch batch, WriteMode mode, Dataset<Row> source, Load load,
      Optional<Set<String>> keepMissing, Optional<String> restriction, boolean deletes) throws Exception {
    String name = batch.table();
    switch (mode) {
      case MERGE -> {
        String view = MergeSql.view("batch", batch.batchId());
        batch.scope().view(view, source);
        List<String> tableColumns = List.of(source.columns()).stream().filter(c -> !InternalColumns.isInternal(c))
            .toList();
        batch.spark().sql(keepMissing.isPresent()
            ? mergeKeepingMissing(name, view, load, restriction, tableColumns, keepMissing.get(), deletes)
            : mergeStatement(name, view, load, restriction, tableColumns, deletes));
      }
      case APPEND -> source.writeTo(name).append();
      case OVERWRITE_PARTITIONS -> source.writeTo(name).overwritePartitions();
      case OVERWRITE_TABLE -> source.writeTo(name).overwrite(functions.lit(true));
    }
  }

  /** {@code load.missing-columns = null}: an update replaces the whole row. */
  static String mergeStatement(String table, String view, Load load, Optional<String> restriction,
      List<String> tableColumns, boolean deletes) {
    List<String> set = tableColumns.stream().map(c -> "t." + quote(c) + " = s." + quote(c)).toList();
    return mergeInto(table, view, load, restriction, deletes, "UPDATE SET " + String.join(", ", set),
        insert(tableColumns));
  }

  private static String insert(List<String> tableColumns) {
    String insert = tableColumns.stream().map(c -> quote(c)).collect(Collectors.joining(", "));
    String values = tableColumns.stream().map(c -> "s." + quote(c)).collect(Collectors.joining(", "));
    return "INSERT (" + insert + ") VALUES (" + values + ")";
  }

  /**
   * {@code load.missing-columns = keep}: an update assigns a column the batch has only when the
   * row's file has it ({@link InternalColumns#ABSENT}), and leaves the columns no file of the
   * batch has alone; an insert writes every column (the aligned NULL where the file has none).
   */
  static String mergeKeepingMissing(String table, String view, Load load, Optional<String> restriction,
      List<String> tableColumns, Set<String> batchColumns, boolean deletes) {
    List<String> set = new ArrayList<>();
    for (String key : load.primaryKey()) {
      set.add("t." + quote(key) + " = s." + quote(key));
    }
    for (String column : tableColumns) {
      if (batchColumns.contains(column) && !load.primaryKey().contains(column)) {
        set.add("t." + quote(column) + " = CASE WHEN array_contains(s." + quote(InternalColumns.ABSENT) + ", "
            + literal(column) + ") THEN t." + quote(column) + " ELSE s." + quote(column) + " END");
      }
    }
    return mergeInto(table, view, load, restriction, deletes, "UPDATE SET " + String.join(", ", set),
        insert(tableColumns));
  }

  /**
   * The statement: the key, the batch's partitions when the MERGE is restricted to them ({@link
   * SourceSide}), and the precombine condition on the matched actions. With deletes, a matched
   * delete that is not older than the stored row deletes it (the first matched clause wins), and a
   * delete without a stored row inserts nothing.
   */
  private static String mergeInto(String table, String view, Load load, Optional<String> restriction,
      boolean deletes, String update, String insert) {
    String on = MergeSql.keysMatch(load.primaryKey()) + restriction.map(r -> " AND " + r).orElse("");
    String matched = load.precombineField()
        .map(field -> " AND (t." + quote(field) + " IS NULL OR s." + quote(field) + " >= t." + quote(field) + ")")
        .orElse("");
    String delete = "s." + quote(DELETE);
    return "MERGE INTO " + quoteTable(table) + " AS t USING " + quote(view) + " AS s ON " + on
        + (deletes ? " WHEN MATCHED" + matched + " AND " + delete + " THEN DELETE" : "")
        + " WHEN MATCHED" + matched + " THEN " + update
        + " WHEN NOT MATCHED" + (deletes ? " AND NOT " + delete : "") + " THEN " + insert;
  }

  /**
   * Whether a row is a delete: its op column's value (as a string) is one of the delete values,
   * or its delete flag is true. NULL is neither.
   */
  private static Column isDelete(Dataset<Row> rows, Cdc cdc) {
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

  /**
   * Copy-on-write with a precombine field: what the MERGE will do with each row, from the
   * deduplicated rows and the stored keys and precombine values of its scope (the batch's
   * partitions when restricted, else the whole table), with the statement's own condition.
   */
  private static Counts matchedSplit(SparkSession spark, String table, Dataset<Row> source, Load load,
      Optional<String> restriction, boolean deletes) {
    List<String> keys = load.primaryKey();
    Optional<String> precombine = load.precombineField();
    List<String> needed = new ArrayList<>(keys);
    precombine.filter(p -> !needed.contains(p)).ifPresent(needed::add);
    if (deletes) {
      needed.add(DELETE);
    }
    Dataset<Row> incoming = source.select(needed.stream().map(c -> column(c)).toArray(Column[]::new));
    List<Column> stored = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      stored.add(column(keys.get(i)).as(TARGET_PREFIX + i));
    }
    precombine.ifPresent(p -> stored.add(column(p).as(TARGET_PREFIX + "pre")));
    stored.add(functions.lit(true).as(MATCHED));
    Dataset<Row> scope = spark.table(quoteTable(table)).as("t");
    if (restriction.isPresent()) {
      scope = scope.where(functions.expr(restriction.get()));
    }
    Dataset<Row> target = scope.select(stored.toArray(Column[]::new));
    Column on = null;
    for (int i = 0; i < keys.size(); i++) {
      Column equal = incoming.col(quote(keys.get(i))).equalTo(target.col(TARGET_PREFIX + i));
      on = on == null ? equal : on.and(equal);
    }
    Column newer = precombine.isEmpty() ? functions.lit(true)
        : functions.coalesce(target.col(TARGET_PREFIX + "pre").isNull()
            .or(incoming.col(quote(precombine.get())).geq(target.col(TARGET_PREFIX + "pre"))), functions.lit(false));
    Column delete = deletes ? incoming.col(quote(DELETE)) : functions.lit(false);
    Column matched = target.col(MATCHED).isNotNull();
    Row counts = incoming.join(target, on, "left")
        .agg(
            functions.sum(functions.when(matched.or(delete), 0).otherwise(1)),
            functions.sum(functions.when(matched.and(newer).and(functions.not(delete)), 1).otherwise(0)),
            functions.sum(functions.when(matched.and(newer), 0).otherwise(functions.when(delete, 1).otherwise(
                functions.when(matched, 1).otherwise(0)))),
            functions.sum(functions.when(matched.and(newer).and(delete), 1).otherwise(0)))
        .first();
    return new Counts(longOrZero(counts, 0), longOrZero(counts, 1), longOrZero(counts, 2), longOrZero(counts, 3));
  }

  private static long longOrZero(Row row, int i) {
    return row.isNullAt(i) ? 0 : row.getLong(i);
  }

  /** How the rows are written, from the key, the ingestion mode and the save mode. */
  enum WriteMode {
    MERGE,
    APPEND,
    OVERWRITE_PARTITIONS,
    OVERWRITE_TABLE;

    static WriteMode of(Load load, IngestionType mode) {
      boolean whole = mode.replacesTable();
      if (!load.primaryKey().isEmpty()) {
        return whole ? OVERWRITE_TABLE : MERGE;
      }
      if (whole) {
        return OVERWRITE_TABLE;
      }
      return load.saveMode() == SaveMode.OVERWRITE ? OVERWRITE_PARTITIONS : APPEND;
    }
  }

  /**
   * What a write did to the table's rows. A MERGE deletes only the rows its deletes ({@code
   * load.cdc}) match, so the rows it adds net of those it deletes (rewritten files' rows, position
   * deletes), plus those deleted rows, are its inserts.
   */
  private record Counts(long inserted, long updated, long unchanged, long deleted) {
    static Counts inserted(long rows) {
      return new Counts(rows, 0, 0, 0);
    }

    Counts plusUnchanged(long rows) {
      return new Counts(inserted, updated, unchanged + rows, deleted);
    }

    /**
     * From the snapshot's summary and the rows written: with merge-on-read each update and each
     * delete is one position delete; with copy-on-write a rewritten file's copied rows are both
     * added and deleted, so the matched rows are split by {@code split} (a precombine field) or
     * are all updates (none: every matched row is updated). The deleted rows are the split's
     * (there is one whenever the rows carry deletes).
     */
    static Counts of(WriteMode mode, boolean mergeOnRead, Map<String, String> summary, long rows,
        Optional<Counts> split) {
      long added = number(summary, "added-records");
      if (mode != WriteMode.MERGE) {
        return inserted(added);
      }
      long positionDeletes = number(summary, "added-position-deletes") - number(summary, "removed-position-deletes");
      long deleted = split.map(Counts::deleted).orElse(0L);
      long inserted = added - number(summary, "deleted-records") - positionDeletes + deleted;
      long updated = mergeOnRead ? positionDeletes - deleted : split.map(Counts::updated).orElse(rows - inserted);
      return new Counts(inserted, updated, rows - inserted - updated - deleted, deleted);
    }

    private static long number(Map<String, String> summary, String property) {
      String value = summary.get(property);
      return value == null ? 0 : Long.parseLong(value);
    }

    long written() {
      return inserted + updated + deleted;
    }
  }
}
