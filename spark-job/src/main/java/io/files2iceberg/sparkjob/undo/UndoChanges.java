package io.files2iceberg.sparkjob.undo;

/**
 * The values of {@code files2iceberg.change} ({@link io.files2iceberg.sparkjob.change.ChangeSummary#CHANGE})
 * that undo's own commits carry.
 */
final class UndoChanges {
  /** A partition's rows deleted by {@code drop-partition}. */
  static final String DROP_PARTITION = "drop-partition";
  /** A commit to a table beside the rolled-back one ({@code __rejected}, {@code __deletes}) that undoes batches there. */
  static final String ROLLBACK = "rollback";

  private UndoChanges() {}
}
