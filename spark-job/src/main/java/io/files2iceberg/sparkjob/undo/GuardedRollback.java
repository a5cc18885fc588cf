package io.files2iceberg.sparkjob.undo;

import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * Moves a table's {@code main} branch back to an ancestor, only if it still is at the snapshot the
 * rollback was planned on.
 *
 * <p>Why not {@code table.manageSnapshots().rollbackTo(S).commit()}: on a conflict, Iceberg
 * refreshes and applies it again, and a batch committed meanwhile on top of the planned snapshot
 * still has {@code S} among its ancestors, so the retry would undo that batch too, silently.
 * Checking the current snapshot before the call does not close that window either. Here the new
 * metadata is built from the refreshed metadata, in which the current snapshot is the expected one,
 * and committed once with {@code TableOperations.commit(base, updated)}: a compare-and-swap on
 * {@code base} (the JDBC and Hadoop catalogs swap the metadata location only if it is still
 * {@code base}'s; the REST catalog sends the requirement that {@code main} is still at the
 * expected snapshot). So the guarantee: the branch is set to the target only on top of exactly the
 * metadata in which it was at the expected snapshot; any commit in between fails this one with
 * {@link CommitFailedException}, and nothing is retried. The result is what {@code rollbackTo}
 * commits: {@code main} at the target, a new snapshot-log entry, no new snapshot.
 */
final class GuardedRollback {
  private GuardedRollback() {}

  /**
   * Sets {@code main} of {@code table} (named {@code name}) to {@code target} if it is at {@code
   * expected}.
   *
   * @return whether the rollback was committed; {@code false} when {@code main} was not at {@code
   *     expected} (nothing was changed, the table is refreshed to say where it is)
   * @throws CommitFailedException when the table changed between the refresh and the commit
   */
  static boolean ifCurrentIs(Table table, long expected, long target) {
    TableOperations ops = ((HasTableOperations) table).operations();
    TableMetadata base = ops.refresh();
    Snapshot now = base.currentSnapshot();
    if (now == null || now.snapshotId() != expected) {
      table.refresh();
      return false;
    }
    TableMetadata updated = TableMetadata.buildFrom(base).setBranchSnapshot(target, SnapshotRef.MAIN_BRANCH).build();
    ops.commit(base, updated);
    table.refresh();
    return true;
  }
}
