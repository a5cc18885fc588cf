package io.files2iceberg.sparkjob.change;

import io.files2iceberg.sparkjob.change.Change.Commit;
import io.files2iceberg.sparkjob.change.Change.DropPartition;
import io.files2iceberg.sparkjob.change.Change.Partitions;
import io.files2iceberg.sparkjob.change.Change.Rollback;
import io.files2iceberg.sparkjob.change.Change.Undone;
import io.files2iceberg.sparkjob.load.CommitMarker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The changes files2iceberg made to a table after a point, read from the table alone (its snapshot
 * log and the summaries of {@link ChangeSummary}), so it answers after the ledger has pruned the
 * batches.
 *
 * <p>The snapshot log ({@link Table#history()}) has an entry each time the current snapshot
 * changed. An entry whose snapshot is a descendant of the one before it committed the snapshots in
 * between (one, almost always); one whose snapshot is an ancestor of the one before is a rollback,
 * which undid the snapshots in between. A snapshot files2iceberg did not write (a maintenance
 * rewrite, a user's own SQL), or one expired since, is not listed but counted in {@link
 * Feed#other()}, so that nothing is left out silently.
 */
public final class ChangeFeed {
  private ChangeFeed() {}

  /**
   * The changes, oldest first.
   *
   * @param other the snapshots after the start that files2iceberg did not write, or that are expired
   * @param current the table's current snapshot, empty for a table without one
   */
  public record Feed(List<Change> changes, int other, Optional<Long> current) {
    public Feed {
      changes = List.copyOf(changes);
    }
  }

  /** The start is not in the table: an unknown snapshot, or one whose log entries were expired. */
  public static final class UnknownStartException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UnknownStartException(String message) {
      super(message);
    }
  }

  /**
   * Lists the changes of {@code table} after {@code start}.
   *
   * @param name the table's name, for the messages
   * @throws UnknownStartException when {@code start} is a snapshot that is neither in the table's
   *     snapshot log nor among its snapshots
   */
  public static Feed read(Table table, String name, FeedStart start) {
    List<HistoryEntry> log = table.history();
    int first;
    Optional<Long> previous;
    if (start instanceof FeedStart.AfterSnapshot after) {
      int at = lastIndexOf(log, after.snapshotId());
      if (at >= 0) {
        first = at + 1;
      } else {
        Snapshot known = table.snapshot(after.snapshotId());
        if (known == null) {
          throw new UnknownStartException("table " + name + ": snapshot " + after.snapshotId() + " is unknown or"
              + " expired: it is neither in the table's snapshot log nor among its snapshots; start from a snapshot"
              + " the feed listed, or with --since TIME");
        }
        // Still in the table, but no longer in its log (the log keeps entries after the last expired snapshot).
        first = firstAfter(log, known.timestampMillis());
      }
      previous = Optional.of(after.snapshotId());
    } else {
      first = firstAfter(log, ((FeedStart.AfterTime) start).instant().toEpochMilli());
      previous = first > 0 ? Optional.of(log.get(first - 1).snapshotId()) : Optional.empty();
    }
    List<Change> changes = new ArrayList<>();
    int other = 0;
    for (HistoryEntry entry : log.subList(first, log.size())) {
      Snapshot snapshot = table.snapshot(entry.snapshotId());
      Instant at = Instant.ofEpochMilli(entry.timestampMillis());
      if (snapshot == null) {
        other++;
      } else if (previous.isPresent() && isAncestor(table, snapshot.snapshotId(), previous.get())) {
        changes.add(new Rollback(snapshot.snapshotId(), previous.get(), at,
            undone(table, previous.get(), snapshot.snapshotId())));
      } else {
        // The snapshots this entry committed: from the one after the previous, up to the entry's own.
        for (Snapshot committed : between(table, snapshot, previous)) {
          Optional<Change> change = of(committed, committed.snapshotId() == snapshot.snapshotId()
              ? at : Instant.ofEpochMilli(committed.timestampMillis()));
          if (change.isPresent()) {
            changes.add(change.get());
          } else {
            other++;
          }
        }
      }
      previous = Optional.of(snapshot == null ? entry.snapshotId() : snapshot.snapshotId());
    }
    return new Feed(changes, other, Optional.ofNullable(table.currentSnapshot()).map(Snapshot::snapshotId));
  }

  /** The change a snapshot files2iceberg wrote, from its summary; empty for anyone else's. */
  static Optional<Change> of(Snapshot snapshot, Instant at) {
    Map<String, String> summary = snapshot.summary();
    Optional<Long> parent = Optional.ofNullable(snapshot.parentId());
    String operation = String.valueOf(snapshot.operation());
    if (DropPartition.KIND.equals(summary.get(ChangeSummary.CHANGE))) {
      return Optional.of(new DropPartition(snapshot.snapshotId(), parent, at,
          summary.getOrDefault(ChangeSummary.CHANGE_ID, ""), operation, Partitions.of(summary),
          ChangeSummary.rows(summary).map(ChangeSummary.RowCounts::deleted)));
    }
    String batchId = summary.get(CommitMarker.BATCH_ID);
    if (batchId != null && !summary.containsKey(ChangeSummary.CHANGE)) {
      return Optional.of(new Commit(snapshot.snapshotId(), parent, at, batchId, operation, Partitions.of(summary),
          ChangeSummary.rows(summary)));
    }
    return Optional.empty();
  }

  private static int lastIndexOf(List<HistoryEntry> log, long snapshotId) {
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i).snapshotId() == snapshotId) {
        return i;
      }
    }
    return -1;
  }

  private static int firstAfter(List<HistoryEntry> log, long millis) {
    int i = 0;
    while (i < log.size() && log.get(i).timestampMillis() <= millis) {
      i++;
    }
    return i;
  }

  /** Whether {@code ancestor} is a strict ancestor of {@code of}, through the snapshots the table still has. */
  private static boolean isAncestor(Table table, long ancestor, long of) {
    Snapshot walk = table.snapshot(of);
    while (walk != null && walk.parentId() != null) {
      if (walk.parentId() == ancestor) {
        return true;
      }
      walk = table.snapshot(walk.parentId());
    }
    return false;
  }

  /** The files2iceberg changes from {@code from} back to {@code to} (excluded), newest first. */
  private static List<Undone> undone(Table table, long from, long to) {
    List<Undone> undone = new ArrayList<>();
    Snapshot walk = table.snapshot(from);
    while (walk != null && walk.snapshotId() != to) {
      Map<String, String> summary = walk.summary();
      Optional<String> change = Optional.ofNullable(summary.get(ChangeSummary.CHANGE_ID));
      Optional<String> batch = change.isPresent() ? Optional.empty()
          : Optional.ofNullable(summary.get(CommitMarker.BATCH_ID));
      if (batch.isPresent() || change.isPresent()) {
        undone.add(new Undone(walk.snapshotId(), batch, change, Partitions.of(summary)));
      }
      walk = walk.parentId() == null ? null : table.snapshot(walk.parentId());
    }
    return undone;
  }

  /**
   * The snapshots an entry made current, oldest first: its own, and those between it and the
   * previous entry's when that one is its ancestor (several snapshots committed at once).
   */
  private static List<Snapshot> between(Table table, Snapshot snapshot, Optional<Long> previous) {
    List<Snapshot> newestFirst = new ArrayList<>();
    newestFirst.add(snapshot);
    if (previous.isPresent() && isAncestor(table, previous.get(), snapshot.snapshotId())) {
      Snapshot walk = table.snapshot(snapshot.parentId());
      while (walk != null && walk.snapshotId() != previous.get()) {
        newestFirst.add(walk);
        walk = walk.parentId() == null ? null : table.snapshot(walk.parentId());
      }
    }
    Collections.reverse(newestFirst);
    return newestFirst;
  }
}
