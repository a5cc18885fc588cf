package io.files2iceberg.sparkjob.undo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/**
 * How a partition's drop ended without being refused: the result line's fields after {@code table}
 * and {@code dryRun} ({@code {"files2iceberg-drop-partition":{...}}}).
 *
 * @param outcome {@code planned} (dry run: the rows are counted, nothing is deleted), {@code
 *     dropped} (one commit; with 0 rows it still commits, so that the change is in the ancestry) or
 *     {@code already-applied} (a snapshot of the current ancestry carries the change id)
 * @param column the table column holding the partition
 * @param rowsDeleted the partition's rows deleted (dropped), counted (planned), or as the earlier
 *     commit's summary says (already applied)
 * @param snapshotId the commit carrying the change: the new one, or the one found; empty when planned
 */
record DropPartitionOutcome(String outcome, String partition, String changeId, String column, long rowsDeleted,
    Optional<Long> snapshotId) {

  static final String PLANNED = "planned";
  static final String DROPPED = "dropped";
  static final String ALREADY_APPLIED = "already-applied";

  void describe(ObjectNode body) {
    body.put(UndoMainRun.OUTCOME, outcome);
    body.put("alreadyApplied", outcome.equals(ALREADY_APPLIED));
    body.put("partition", partition);
    body.put("changeId", changeId);
    body.put("column", column);
    body.put("rowsDeleted", rowsDeleted);
    body.put("snapshotId", snapshotId.orElse(null));
  }
}
