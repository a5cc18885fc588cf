package io.files2iceberg.sparkjob.load;

import java.time.Duration;

/**
 * Fact: the batch's rows are in the Iceberg table, in snapshot {@code snapshotId} ({@link
 * #NO_SNAPSHOT} when there were none to write and no table to write to).
 *
 * @param alreadyCommitted the snapshot was found in the table's ancestry; nothing was written now
 * @param rowsInserted rows new to the table (without a key: every row written)
 * @param rowsUpdated rows that replaced a stored row with the same key
 * @param rowsUnchanged rows whose key is stored with a newer precombine value, so not written (and
 *     deletes of keys the table does not hold)
 * @param rowsDeleted stored rows that a delete of their key removed ({@code load.cdc})
 * @param mergeTime the write, from the first row to the end of the Iceberg commit
 * @param commitTime the Iceberg commit alone (zero when it was not measured)
 */
public record IcebergCommitted(
    String table,
    long snapshotId,
    boolean alreadyCommitted,
    long rowsInserted,
    long rowsUpdated,
    long rowsUnchanged,
    long rowsDeleted,
    Duration mergeTime,
    Duration commitTime) {

  /**
   * The snapshot id of a batch that wrote nothing to a table that does not exist yet (every file
   * was left out): Iceberg's own "no snapshot", as {@code current-snapshot-id} is in table metadata.
   */
  public static final long NO_SNAPSHOT = -1L;

  static IcebergCommitted nothingWritten(String table) {
    return new IcebergCommitted(table, NO_SNAPSHOT, false, 0, 0, 0, 0, Duration.ZERO, Duration.ZERO);
  }

  static IcebergCommitted already(String table, long snapshotId) {
    return new IcebergCommitted(table, snapshotId, true, 0, 0, 0, 0, Duration.ZERO, Duration.ZERO);
  }
}
