package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.literal;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;
import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.core.profile.Load;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.load.IcebergLoad.WriteMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * The one write of a batch's rows, by its {@link WriteMode}: a {@code MERGE INTO} on the key, an
 * append, or an overwrite of the batch's partitions or of the whole table. The caller wraps it in
 * the commit properties that mark the snapshot with the batch ({@link CommitMarker}).
 */
final class BatchWrite {
  private BatchWrite() {}

  /**
   * Writes the rows as the mode says; a MERGE reads them from a temporary view of the batch.
   *
   * @param keepMissing with {@code load.missing-columns = keep}, the batch's columns
   * @param restriction the MERGE's condition on the stored rows ({@link SourceSide})
   * @param deletes whether the rows carry {@link RowsToWrite#DELETE}
   * @param absentKeys with {@code load.snapshot-deletes}, when the MERGE deletes the stored rows whose
   *     key the batch lacks: the condition ({@code t.}) that bounds those deletes, empty for the whole table
   */
  static void write(LoadBatch batch, WriteMode mode, Dataset<Row> source, Load load,
      Optional<Set<String>> keepMissing, Optional<String> restriction, boolean deletes,
      Optional<Optional<String>> absentKeys) throws Exception {
    String name = batch.table();
    switch (mode) {
      case MERGE -> {
        String view = MergeSql.view("batch", batch.batchId());
        batch.scope().view(view, source);
        List<String> tableColumns = List.of(source.columns()).stream().filter(c -> !InternalColumns.isInternal(c))
            .toList();
        boolean keeps = List.of(source.columns()).contains(HeldBackKeys.KEEP);
        String merge = keepMissing.isPresent()
            ? mergeKeepingMissing(name, view, load, restriction, tableColumns, keepMissing.get(), deletes, keeps)
            : mergeStatement(name, view, load, restriction, tableColumns, deletes, keeps);
        batch.spark().sql(merge + absentKeys.map(scope -> " WHEN NOT MATCHED BY SOURCE"
            + scope.map(s -> " AND " + s).orElse("") + " THEN DELETE").orElse(""));
      }
      case APPEND -> source.writeTo(name).append();
      case OVERWRITE_PARTITIONS -> source.writeTo(name).overwritePartitions();
      case OVERWRITE_TABLE -> source.writeTo(name).overwrite(functions.lit(true));
    }
  }

  /** {@code load.missing-columns = null}: an update replaces the whole row. */
  private static String mergeStatement(String table, String view, Load load, Optional<String> restriction,
      List<String> tableColumns, boolean deletes, boolean keeps) {
    List<String> set = tableColumns.stream().map(c -> "t." + quote(c) + " = s." + quote(c)).toList();
    return mergeInto(table, view, load, restriction, deletes, keeps, "UPDATE SET " + String.join(", ", set),
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
  private static String mergeKeepingMissing(String table, String view, Load load, Optional<String> restriction,
      List<String> tableColumns, Set<String> batchColumns, boolean deletes, boolean keeps) {
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
    return mergeInto(table, view, load, restriction, deletes, keeps, "UPDATE SET " + String.join(", ", set),
        insert(tableColumns));
  }

  /**
   * The statement: the key, the batch's partitions when the MERGE is restricted to them ({@link
   * SourceSide}), and the precombine condition on the matched actions. With deletes, a matched
   * delete that is not older than the stored row deletes it (the first matched clause wins), and a
   * delete without a stored row inserts nothing. With {@code keeps} ({@link HeldBackKeys}), a row
   * marked {@link HeldBackKeys#KEEP} matches its stored row and no clause acts on it.
   */
  private static String mergeInto(String table, String view, Load load, Optional<String> restriction,
      boolean deletes, boolean keeps, String update, String insert) {
    String on = MergeSql.keysMatch(load.primaryKey()) + restriction.map(r -> " AND " + r).orElse("");
    String matched = load.precombineField()
        .map(field -> " AND (t." + quote(field) + " IS NULL OR s." + quote(field) + " >= t." + quote(field) + ")")
        .orElse("");
    if (keeps) {
      // A row that only keeps its key's stored row matches it, and no clause acts on it.
      matched += " AND NOT s." + quote(HeldBackKeys.KEEP);
    }
    String delete = "s." + quote(RowsToWrite.DELETE);
    List<String> insertWhen = new ArrayList<>();
    if (deletes) {
      insertWhen.add("NOT " + delete);
    }
    if (keeps) {
      insertWhen.add("NOT s." + quote(HeldBackKeys.KEEP));
    }
    return "MERGE INTO " + quoteTable(table) + " AS t USING " + quote(view) + " AS s ON " + on
        + (deletes ? " WHEN MATCHED" + matched + " AND " + delete + " THEN DELETE" : "")
        + " WHEN MATCHED" + matched + " THEN " + update
        + " WHEN NOT MATCHED" + (insertWhen.isEmpty() ? "" : " AND " + String.join(" AND ", insertWhen))
        + " THEN " + insert;
  }
}
