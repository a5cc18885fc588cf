package io.files2iceberg.sparkjob.undo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/**
 * What a rollback does to a table the job writes beside the rolled-back one ({@code
 * <table>__rejected}, {@code <table>__deletes}), so that loading the undone batches' files again
 * writes their rows there once.
 *
 * @param action {@code none} (no such table, or nothing of the undone batches in it), {@code
 *     delete-rows} (the rows carrying an undone batch's id), {@code roll-back} (to {@code
 *     toSnapshot}, the snapshot before the first undone batch's commit there) or {@code
 *     delete-all-rows} (that commit was the table's first)
 * @param rows the rows deleted (or to delete, on a dry run), when the action deletes rows
 * @param fromSnapshot the table's current snapshot when it was planned
 * @param toSnapshot the snapshot a roll-back goes to; after a delete, the delete's commit
 * @param applied whether the action was taken (false on a dry run and for {@code none})
 * @param why what the table holds of the undone batches, in words
 */
record SideUndo(String table, String action, Optional<Long> rows, Optional<Long> fromSnapshot,
    Optional<Long> toSnapshot, boolean applied, String why) {

  static final String NONE = "none";
  static final String DELETE_ROWS = "delete-rows";
  static final String ROLL_BACK = "roll-back";
  static final String DELETE_ALL_ROWS = "delete-all-rows";

  static SideUndo none(String table, String why) {
    return new SideUndo(table, NONE, Optional.empty(), Optional.empty(), Optional.empty(), false, why);
  }

  SideUndo applied(Optional<Long> snapshot) {
    return new SideUndo(table, action, rows, fromSnapshot, snapshot, true, why);
  }

  boolean isNone() {
    return action.equals(NONE);
  }

  void describe(ObjectNode node) {
    node.put("table", table);
    node.put("action", action);
    node.put("rows", rows.orElse(null));
    node.put("fromSnapshot", fromSnapshot.orElse(null));
    node.put("toSnapshot", toSnapshot.orElse(null));
    node.put("applied", applied);
    node.put("why", why);
  }
}
