package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;
import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.core.profile.Load;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.load.IcebergLoad.WriteMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * What a write did to the table's rows. A MERGE deletes only the rows its deletes ({@code
 * load.cdc}) match and, with {@code load.snapshot-deletes}, the stored rows whose key the batch
 * lacks ({@link AbsentKeys}), so the rows it adds net of those it deletes (rewritten files' rows,
 * position deletes), plus those deleted rows, are its inserts.
 */
record WriteCounts(long inserted, long updated, long unchanged, long deleted) {
  private static final String TARGET_PREFIX = InternalColumns.PREFIX + "t_";
  private static final String MATCHED = InternalColumns.PREFIX + "matched";

  static WriteCounts inserted(long rows) {
    return new WriteCounts(rows, 0, 0, 0);
  }

  WriteCounts plusUnchanged(long rows) {
    return new WriteCounts(inserted, updated, unchanged + rows, deleted);
  }

  /**
   * From the snapshot's summary and the rows written: without a MERGE, every row written is an
   * insert; a MERGE's counts are what its summary says ({@link ChangeSummary#rows}: the row
   * properties written before the commit, {@link #mergeProperties}, read against Iceberg's own),
   * and the rest of its rows are unchanged; the stored rows whose key a snapshot lacks ({@code
   * absent}) are deleted but no row of the batch's.
   */
  static WriteCounts of(WriteMode mode, Map<String, String> summary, long rows, long absent) {
    if (mode != WriteMode.MERGE) {
      return inserted(number(summary, "added-records"));
    }
    ChangeSummary.RowCounts counts = ChangeSummary.rows(summary).orElseThrow(() -> new IllegalStateException(
        "the MERGE's snapshot summary has no " + ChangeSummary.ROWS_MERGED));
    return new WriteCounts(counts.inserted(), counts.updated(),
        rows - counts.inserted() - counts.updated() - (counts.deleted() - absent), counts.deleted());
  }

  /**
   * The row properties of a MERGE's summary, known before it commits: the rows it writes, the rows
   * it deletes (the split's, there is one whenever the rows carry deletes, plus the stored rows
   * whose key a snapshot lacks, {@code absent}), and with copy-on-write the split's updates: with
   * merge-on-read each update and each delete is one position delete, so the commit tells them;
   * with copy-on-write a rewritten file's copied rows are both added and deleted, so the matched
   * rows are split by {@code split} (a precombine field) or are all updates (none).
   */
  static Map<String, String> mergeProperties(boolean mergeOnRead, long rows, Optional<WriteCounts> split, long absent) {
    long deleted = split.map(WriteCounts::deleted).orElse(0L) + absent;
    Optional<Long> updated = mergeOnRead ? Optional.empty() : split.map(WriteCounts::updated);
    return ChangeSummary.mergeRows(rows, deleted, updated, mergeOnRead);
  }

  private static long number(Map<String, String> summary, String property) {
    String value = summary.get(property);
    return value == null ? 0 : Long.parseLong(value);
  }

  /** The row properties of a commit that is not a MERGE's, or writes no row. */
  Map<String, String> properties() {
    return ChangeSummary.rows(new ChangeSummary.RowCounts(inserted, updated, deleted));
  }

  long written() {
    return inserted + updated + deleted;
  }

  /**
   * Copy-on-write with a precombine field: what the MERGE will do with each row, from the
   * deduplicated rows and the stored keys and precombine values of its scope (the batch's
   * partitions when restricted, else the whole table), with the statement's own condition.
   */
  static WriteCounts matchedSplit(SparkSession spark, String table, Dataset<Row> source, Load load,
      Optional<String> restriction, boolean deletes) {
    List<String> keys = load.primaryKey();
    Optional<String> precombine = load.precombineField();
    List<String> needed = new ArrayList<>(keys);
    precombine.filter(p -> !needed.contains(p)).ifPresent(needed::add);
    if (deletes) {
      needed.add(RowsToWrite.DELETE);
    }
    Dataset<Row> incoming = source.select(needed.stream().map(c -> column(c)).toArray(Column[]::new));
    Dataset<Row> target = storedKeys(spark, table, keys, precombine, restriction)
        .withColumn(MATCHED, functions.lit(true));
    Column on = keysMatch(incoming, target, keys);
    Column newer = precombine.isEmpty() ? functions.lit(true)
        : functions.coalesce(target.col(TARGET_PREFIX + "pre").isNull()
            .or(incoming.col(quote(precombine.get())).geq(target.col(TARGET_PREFIX + "pre"))), functions.lit(false));
    Column delete = deletes ? incoming.col(quote(RowsToWrite.DELETE)) : functions.lit(false);
    Column matched = target.col(MATCHED).isNotNull();
    Row counts = incoming.join(target, on, "left")
        .agg(
            functions.sum(functions.when(matched.or(delete), 0).otherwise(1)),
            functions.sum(functions.when(matched.and(newer).and(functions.not(delete)), 1).otherwise(0)),
            functions.sum(functions.when(matched.and(newer), 0).otherwise(functions.when(delete, 1).otherwise(
                functions.when(matched, 1).otherwise(0)))),
            functions.sum(functions.when(matched.and(newer).and(delete), 1).otherwise(0)))
        .first();
    return new WriteCounts(longOrZero(counts, 0), longOrZero(counts, 1), longOrZero(counts, 2), longOrZero(counts, 3));
  }

  /**
   * The stored rows' keys (and precombine value), renamed apart from the batch's columns, within
   * the restriction ({@code t.}) when there is one.
   */
  static Dataset<Row> storedKeys(SparkSession spark, String table, List<String> keys, Optional<String> precombine,
      Optional<String> restriction) {
    List<Column> stored = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      stored.add(column(keys.get(i)).as(TARGET_PREFIX + i));
    }
    precombine.ifPresent(p -> stored.add(column(p).as(TARGET_PREFIX + "pre")));
    Dataset<Row> scope = spark.table(quoteTable(table)).as("t");
    if (restriction.isPresent()) {
      scope = scope.where(functions.expr(restriction.get()));
    }
    return scope.select(stored.toArray(Column[]::new));
  }

  /** The batch's key columns. */
  static Column[] keyColumns(List<String> keys) {
    return keys.stream().map(k -> column(k)).toArray(Column[]::new);
  }

  /** The MERGE's match on the key, between the batch's rows and {@link #storedKeys}. */
  static Column keysMatch(Dataset<Row> incoming, Dataset<Row> stored, List<String> keys) {
    Column on = null;
    for (int i = 0; i < keys.size(); i++) {
      Column equal = incoming.col(quote(keys.get(i))).equalTo(stored.col(TARGET_PREFIX + i));
      on = on == null ? equal : on.and(equal);
    }
    return on;
  }

  static long longOrZero(Row row, int i) {
    return row.isNullAt(i) ? 0 : row.getLong(i);
  }
}
