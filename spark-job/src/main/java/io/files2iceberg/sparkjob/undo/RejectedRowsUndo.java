package io.files2iceberg.sparkjob.undo;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;
import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.load.RejectedRowsLoad;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * The rows the undone batches wrote to {@code <table>__rejected}: every row there carries its
 * batch's id ({@code batch_id}), so they are deleted by it, in one commit. A batch that loads the
 * same files again writes them again under its own id; left in place, they would be there twice.
 *
 * <p>Deleting by id rather than rolling the table back leaves the rows of any other batch alone,
 * including one that appended its rejects and has not committed its own table yet. Deleting is
 * idempotent: run again, it finds nothing to delete.
 */
final class RejectedRowsUndo {
  /** The rejected rows' column naming their batch (written by the job's transform). */
  static final String BATCH_ID_COLUMN = "batch_id";

  private RejectedRowsUndo() {}

  static SideUndo plan(SparkSession spark, String table, List<String> batchIds) {
    String name = RejectedRowsLoad.rejectedTable(table);
    Optional<Table> rejected = IcebergTables.find(spark, name);
    if (rejected.isEmpty() || rejected.get().currentSnapshot() == null) {
      return SideUndo.none(name, "no rejected-rows table");
    }
    if (rejected.get().schema().findField(BATCH_ID_COLUMN) == null) {
      throw new UndoRefusedException("table " + table + ": its rejected-rows table " + name + " has no "
          + BATCH_ID_COLUMN + " column, so the rows of the undone batches " + batchIds + " cannot be told apart;"
          + " the rollback would leave them to be rejected again");
    }
    long rows = batchIds.isEmpty() ? 0 : spark.table(quoteTable(name))
        .where(column(BATCH_ID_COLUMN).isin(batchIds.toArray())).count();
    if (rows == 0) {
      return SideUndo.none(name, "no rejected row of the undone batches");
    }
    return new SideUndo(name, SideUndo.DELETE_ROWS, Optional.of(rows),
        Optional.of(rejected.get().currentSnapshot().snapshotId()), Optional.empty(), false,
        rows + " rejected row(s) of the undone batches");
  }

  static SideUndo apply(SparkSession spark, SideUndo plan, List<String> batchIds) {
    if (plan.isNone()) {
      return plan;
    }
    List<String> parameters = new ArrayList<>();
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < batchIds.size(); i++) {
      parameters.add(":batch" + i);
      values.put("batch" + i, batchIds.get(i));
    }
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put(ChangeSummary.CHANGE, UndoChanges.ROLLBACK);
    summary.put(ChangeSummary.ROWS_DELETED, Long.toString(plan.rows().orElse(0L)));
    MarkedDelete.run(spark, plan.table(), quote(BATCH_ID_COLUMN) + " IN (" + String.join(", ", parameters) + ")",
        values, summary);
    Table table = IcebergTables.load(spark, plan.table());
    return plan.applied(Optional.of(table.currentSnapshot().snapshotId()));
  }
}
