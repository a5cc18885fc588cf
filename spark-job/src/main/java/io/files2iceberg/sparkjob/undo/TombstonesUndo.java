package io.files2iceberg.sparkjob.undo;

import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.load.CommitMarker;
import io.files2iceberg.sparkjob.load.Tombstones;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;

/**
 * The tombstones the undone batches left in {@code <table>__deletes} ({@code load.cdc} with a
 * precombine field): the table is rolled back to the snapshot before the first undone batch's
 * commit there.
 *
 * <p>Why they cannot stay: a reload writes identical tombstones harmlessly (the tombstone MERGE
 * keeps the highest precombine value per key), but the files are not always loaded again as they
 * were, and meanwhile the rolled-back table holds the rows those deletes removed. A tombstone left
 * behind would make the job drop every later insert or update of its key with a lower precombine
 * value, although the table has the key's row again. Deleting the undone batches' rows by {@code
 * _batch_id} is not enough either: a tombstone row carries only the batch that wrote its highest
 * value, so an undone batch that raised an older tombstone would take the older one with it.
 *
 * <p>Rolling back is exact only when every tombstone commit since then is an undone batch's (or
 * carries no batch, as a maintenance rewrite): a commit of another batch there (one in flight,
 * whose table commit is still to come, or one that failed between its two commits) refuses the
 * rollback before the table changes. Run again after the rollback, it finds no undone batch in
 * the tombstones' ancestry and does nothing.
 */
final class TombstonesUndo {
  private TombstonesUndo() {}

  static SideUndo plan(Optional<Table> tombstones, String table, List<String> batchIds) {
    String name = Tombstones.tableOf(table);
    if (tombstones.isEmpty() || tombstones.get().currentSnapshot() == null) {
      return SideUndo.none(name, "no tombstone table");
    }
    Table deletes = tombstones.get();
    long current = deletes.currentSnapshot().snapshotId();
    List<Snapshot> newestFirst = new ArrayList<>();
    Snapshot oldestUndone = null;
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current, deletes::snapshot)) {
      newestFirst.add(snapshot);
      if (batchIds.contains(snapshot.summary().get(CommitMarker.BATCH_ID))) {
        oldestUndone = snapshot;
      }
    }
    if (oldestUndone == null) {
      return SideUndo.none(name, "no tombstone of the undone batches");
    }
    for (Snapshot snapshot : newestFirst) {
      if (snapshot == oldestUndone) {
        break;
      }
      String batchId = snapshot.summary().get(CommitMarker.BATCH_ID);
      if (batchId != null && !batchIds.contains(batchId)) {
        throw new UndoRefusedException("table " + table + ": its tombstone table " + name + " has snapshot "
            + snapshot.snapshotId() + " of batch " + batchId + ", which the rollback does not undo, after snapshot "
            + oldestUndone.snapshotId() + " of undone batch " + oldestUndone.summary().get(CommitMarker.BATCH_ID)
            + ": that batch is in flight or failed between its tombstones and its commit to " + table
            + "; settle it (or roll back past it), then roll back again");
      }
    }
    Long parent = oldestUndone.parentId();
    String why = "tombstones of the undone batches since snapshot " + oldestUndone.snapshotId();
    if (parent == null) {
      return new SideUndo(name, SideUndo.DELETE_ALL_ROWS, Optional.empty(), Optional.of(current), Optional.empty(),
          false, why + ", the table's first");
    }
    return new SideUndo(name, SideUndo.ROLL_BACK, Optional.empty(), Optional.of(current), Optional.of(parent), false,
        why);
  }

  /**
   * Applies the plan; a tombstone commit since the plan fails it (exit 1): run again, the plan is
   * made anew.
   */
  static SideUndo apply(Optional<Table> tombstones, SideUndo plan) {
    if (plan.isNone()) {
      return plan;
    }
    Table deletes = tombstones.orElseThrow();
    long from = plan.fromSnapshot().orElseThrow();
    if (plan.action().equals(SideUndo.DELETE_ALL_ROWS)) {
      deletes.newDelete().deleteFromRowFilter(Expressions.alwaysTrue()).set(ChangeSummary.CHANGE, UndoChanges.ROLLBACK)
          .commit();
      deletes.refresh();
      return plan.applied(Optional.of(deletes.currentSnapshot().snapshotId()));
    }
    long to = plan.toSnapshot().orElseThrow();
    if (!GuardedRollback.ifCurrentIs(deletes, from, to)) {
      throw new IllegalStateException("tombstone table " + plan.table() + " changed during the rollback: its current"
          + " snapshot is " + deletes.currentSnapshot().snapshotId() + ", not " + from + "; run the rollback again");
    }
    return plan.applied(Optional.of(to));
  }

  /** The tombstone table of {@code table}, if the job created one. */
  static Optional<Table> find(SparkSession spark, String table) {
    return IcebergTables.find(spark, Tombstones.tableOf(table));
  }
}
