package io.files2iceberg.sparkjob.undo;

import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.load.RejectedRowsLoad;
import io.files2iceberg.sparkjob.load.Tombstones;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls a table's {@code main} back to an ancestor of its current snapshot, and the tables the job
 * writes beside it with it ({@link RejectedRowsUndo}, {@link TombstonesUndo}).
 *
 * <p>Order: the target is resolved and every refusal decided (the table's and the side tables')
 * before anything changes; then the table is rolled back, guarded ({@link GuardedRollback}); then
 * the side tables. A run killed between the table and the side tables is run again with the same
 * {@code --expect-current}: the table is at the target already, the undone snapshots are still
 * known from the expected one, and the side tables are finished ({@code already-rolled-back}).
 */
final class TableRollback {
  private static final Logger LOG = LoggerFactory.getLogger(TableRollback.class);
  /** Ancestors named in a refusal, at most. */
  private static final int ANCESTORS_SUGGESTED = 10;

  private final SparkSession spark;

  TableRollback(SparkSession spark) {
    this.spark = spark;
  }

  RollbackOutcome run(RollbackRequest request) {
    String name = request.table();
    Table table = IcebergTables.find(spark, name)
        .orElseThrow(() -> new UndoRefusedException("table " + name + " does not exist: nothing to roll back"));
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      throw new UndoRefusedException("table " + name + " has no snapshot: nothing to roll back");
    }
    long target = resolve(table, request);
    Optional<Long> expected = request.expectCurrent();
    if (expected.isPresent() && current.snapshotId() == target && expected.get() != target) {
      return finishAfterRollback(table, request, expected.get(), target);
    }
    if (expected.isPresent() && current.snapshotId() != expected.get()) {
      throw new UndoRefusedException(appeared(table, current, expected.get(), request));
    }
    if (current.snapshotId() == target) {
      return outcome(RollbackOutcome.NOTHING_TO_UNDO, table, request, target, target, List.of(),
          SideUndo.none(RejectedRowsLoad.rejectedTable(name), "nothing undone"),
          SideUndo.none(Tombstones.tableOf(name), "nothing undone"));
    }
    if (!SnapshotUtil.isAncestorOf(table, current.snapshotId(), target)) {
      throw new UndoRefusedException("table " + name + ": " + request.target() + " is not an ancestor of the current"
          + " snapshot " + current.snapshotId() + " (it was rolled back before, or is on another branch), so rolling"
          + " back to it would not undo batches but switch to another history; the current snapshot's ancestors are "
          + ancestors(table, current.snapshotId()));
    }
    long from = current.snapshotId();
    List<UndoneSnapshot> undone = between(table, from, target);
    List<String> batchIds = batchIds(undone);
    SideUndo rejected = RejectedRowsUndo.plan(spark, name, batchIds);
    Optional<Table> tombstoneTable = TombstonesUndo.find(spark, name);
    SideUndo tombstones = TombstonesUndo.plan(tombstoneTable, name, batchIds);
    if (request.dryRun()) {
      return outcome(RollbackOutcome.PLANNED, table, request, from, target, undone, rejected, tombstones);
    }
    rollBack(table, request, from, target);
    LOG.info("Table {}: rolled back from snapshot {} to snapshot {}, undoing batches {}", name, from, target,
        batchIds);
    return outcome(RollbackOutcome.ROLLED_BACK, table, request, from, target, undone,
        RejectedRowsUndo.apply(spark, rejected, batchIds), TombstonesUndo.apply(tombstoneTable, tombstones));
  }

  /** The table is at the target already: the side tables may still hold the undone batches. */
  private RollbackOutcome finishAfterRollback(Table table, RollbackRequest request, long expected, long target) {
    String name = request.table();
    if (table.snapshot(expected) == null || !SnapshotUtil.isAncestorOf(table, expected, target)) {
      throw new UndoRefusedException("table " + name + " is at " + request.target() + " already, but --expect-current "
          + expected + " is " + (table.snapshot(expected) == null ? "no snapshot the table still has"
          : "no descendant of it") + ": cannot tell which batches were undone");
    }
    List<UndoneSnapshot> undone = between(table, expected, target);
    List<String> batchIds = batchIds(undone);
    SideUndo rejected = RejectedRowsUndo.plan(spark, name, batchIds);
    Optional<Table> tombstoneTable = TombstonesUndo.find(spark, name);
    SideUndo tombstones = TombstonesUndo.plan(tombstoneTable, name, batchIds);
    if (!request.dryRun()) {
      rejected = RejectedRowsUndo.apply(spark, rejected, batchIds);
      tombstones = TombstonesUndo.apply(tombstoneTable, tombstones);
    }
    LOG.info("Table {}: already rolled back from snapshot {} to snapshot {}", name, expected, target);
    return outcome(RollbackOutcome.ALREADY_ROLLED_BACK, table, request, expected, target, undone, rejected, tombstones);
  }

  /**
   * The guarded rollback; a commit that lands between the plan and the swap refuses it, naming the
   * snapshot that appeared (or, if it was this very rollback by another run, is taken as done).
   */
  private static void rollBack(Table table, RollbackRequest request, long from, long target) {
    boolean committed;
    try {
      committed = GuardedRollback.ifCurrentIs(table, from, target);
    } catch (CommitFailedException | CommitStateUnknownException e) {
      table.refresh();
      Snapshot now = table.currentSnapshot();
      if (now != null && now.snapshotId() == target) {
        return; // committed after all (an unknown commit state), or by a run beside this one
      }
      if (e instanceof CommitStateUnknownException) {
        throw e;
      }
      committed = false;
    }
    if (!committed) {
      Snapshot now = table.currentSnapshot();
      if (now != null && now.snapshotId() == target) {
        return;
      }
      throw new UndoRefusedException(appeared(table, now, from, request));
    }
  }

  /** The snapshot id the request names, or a refusal naming the tag or snapshot at fault. */
  private static long resolve(Table table, RollbackRequest request) {
    String name = request.table();
    if (request.toTag().isPresent()) {
      String tag = request.toTag().get();
      SnapshotRef ref = table.refs().get(tag);
      if (ref == null || !ref.isTag()) {
        List<String> known = table.refs().entrySet().stream()
            .filter(e -> e.getValue().isTag() && e.getKey().startsWith(ChangeSummary.TAG_PREFIX))
            .map(e -> e.getKey() + " (snapshot " + e.getValue().snapshotId() + ")")
            .sorted().toList();
        throw new UndoRefusedException("table " + name + " has no tag " + tag + (ref == null ? "" : " (it is a branch)")
            + "; its " + ChangeSummary.TAG_PREFIX + "* tags are " + (known.isEmpty() ? "none" : known));
      }
      if (table.snapshot(ref.snapshotId()) == null) {
        throw new UndoRefusedException("table " + name + ": tag " + tag + " names snapshot " + ref.snapshotId()
            + ", which the table no longer has");
      }
      return ref.snapshotId();
    }
    long id = request.toSnapshot().orElseThrow();
    if (table.snapshot(id) == null) {
      throw new UndoRefusedException("table " + name + " has no snapshot " + id + ": it was expired or never"
          + " existed; " + oldestKept(table));
    }
    return id;
  }

  private static String oldestKept(Table table) {
    Snapshot oldest = SnapshotUtil.oldestAncestor(table);
    if (oldest == null) {
      return "the table has no snapshot left";
    }
    return "the oldest snapshot the current one still descends from is " + oldest.snapshotId() + ", committed at "
        + Instant.ofEpochMilli(oldest.timestampMillis());
  }

  /** Why the table is not where the plan found it. */
  private static String appeared(Table table, Snapshot now, long expected, RollbackRequest request) {
    String name = request.table();
    if (now == null) {
      return "table " + name + " has no current snapshot any more (expected " + expected + "); plan the rollback again";
    }
    String what = describe(UndoneSnapshot.of(now));
    String since = SnapshotUtil.isAncestorOf(table, now.snapshotId(), expected)
        ? " was committed after the plan, on top of " + expected
        : " replaced it (the table was rolled back or replaced meanwhile)";
    return "table " + name + ": the current snapshot is " + now.snapshotId() + ", not " + expected
        + ", the one the rollback to " + request.target() + " was planned on: snapshot " + now.snapshotId() + " ("
        + what + ")" + since + "; plan the rollback again";
  }

  private static String describe(UndoneSnapshot snapshot) {
    if (snapshot.batchId().isPresent()) {
      return "batch " + snapshot.batchId().get();
    }
    if (snapshot.change().isPresent()) {
      return snapshot.change().get() + snapshot.changeId().map(id -> " " + id).orElse("");
    }
    return snapshot.operation() + ", not a files2iceberg commit";
  }

  /** The newest ancestors, each with what committed it: what the operator may roll back to instead. */
  private static String ancestors(Table table, long current) {
    List<String> named = new ArrayList<>();
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current, table::snapshot)) {
      if (named.size() == ANCESTORS_SUGGESTED) {
        named.add("...");
        break;
      }
      named.add(snapshot.snapshotId() + " (" + describe(UndoneSnapshot.of(snapshot)) + ")");
    }
    return String.join(", ", named);
  }

  /** The ancestors of {@code from} down to {@code target}, newest first, {@code target} excluded. */
  private static List<UndoneSnapshot> between(Table table, long from, long target) {
    List<UndoneSnapshot> undone = new ArrayList<>();
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(from, table::snapshot)) {
      if (snapshot.snapshotId() == target) {
        break;
      }
      undone.add(UndoneSnapshot.of(snapshot));
    }
    return undone;
  }

  private static List<String> batchIds(List<UndoneSnapshot> undone) {
    return undone.stream().flatMap(s -> s.batchId().stream()).distinct().toList();
  }

  private RollbackOutcome outcome(String kind, Table table, RollbackRequest request, long from, long target,
      List<UndoneSnapshot> undone, SideUndo rejected, SideUndo tombstones) {
    table.refresh();
    Snapshot at = table.snapshot(target);
    Schema now = table.schema();
    Integer schemaId = at.schemaId();
    Schema then = schemaId == null ? null : table.schemas().get(schemaId);
    boolean differs = then != null && then.schemaId() != now.schemaId();
    List<String> added = then == null ? List.of() : now.columns().stream()
        .filter(c -> then.findField(c.fieldId()) == null)
        .map(Types.NestedField::name)
        .toList();
    return new RollbackOutcome(kind, from, target, request.toTag(), table.currentSnapshot().snapshotId(), undone,
        differs, added, rejected, tombstones);
  }
}
