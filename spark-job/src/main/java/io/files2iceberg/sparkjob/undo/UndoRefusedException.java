package io.files2iceberg.sparkjob.undo;

/**
 * The change cannot be made as asked, and nothing was changed: an unknown tag or snapshot, a target
 * the current snapshot does not descend from, a commit after the plan, a table without the
 * partition column. The main exits 2; the message names the table and the snapshot, tag or
 * partition at fault, and what to do.
 */
final class UndoRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UndoRefusedException(String message) {
    super(message);
  }
}
