package io.files2iceberg.sparkjob.undo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * How a rollback ended without being refused: the result line's fields after {@code table} and
 * {@code dryRun} ({@code {"files2iceberg-rollback":{...}}}).
 *
 * @param outcome {@code planned} (dry run), {@code rolled-back}, {@code already-rolled-back} (the
 *     table was at the target and {@code --expect-current} names the snapshot it was planned on:
 *     the re-run after a kill between the table's change and the ledger's) or {@code
 *     nothing-to-undo} (the target is the current snapshot)
 * @param fromSnapshot the snapshot the undo starts from: the current one, or {@code
 *     --expect-current} when already rolled back
 * @param targetSnapshot the snapshot rolled back to
 * @param targetTag the tag it was named by, if any
 * @param tableSnapshot the table's current snapshot when the run ended
 * @param undone the snapshots between them in the ancestry, <b>newest first</b>, the target
 *     excluded
 * @param columnsSinceTarget the current schema's columns the target's schema does not have
 * @param schemaDiffers whether the target snapshot was written with another schema than the current one
 * @param rejected what was done to {@code <table>__rejected}
 * @param tombstones what was done to {@code <table>__deletes}
 */
record RollbackOutcome(String outcome, long fromSnapshot, long targetSnapshot, Optional<String> targetTag,
    long tableSnapshot, List<UndoneSnapshot> undone, boolean schemaDiffers, List<String> columnsSinceTarget,
    SideUndo rejected, SideUndo tombstones) {

  static final String PLANNED = "planned";
  static final String ROLLED_BACK = "rolled-back";
  static final String ALREADY_ROLLED_BACK = "already-rolled-back";
  static final String NOTHING_TO_UNDO = "nothing-to-undo";

  /**
   * What a rollback does to the schema, for the operator: Iceberg keeps the table's current schema
   * when {@code main} moves back, so the rows come back as they were and the columns added since
   * stay, NULL in them; the batches loaded again fill them.
   */
  static final String SCHEMA_NOTE = "the table keeps its current schema: Iceberg moves main back, not the schema;"
      + " columns added since the target stay, NULL in the rows it brings back";

  RollbackOutcome {
    undone = List.copyOf(undone);
    columnsSinceTarget = List.copyOf(columnsSinceTarget);
  }

  /** The undone batches' ids, newest first, each once. */
  List<String> batchIds() {
    Set<String> ids = new LinkedHashSet<>();
    undone.forEach(snapshot -> snapshot.batchId().ifPresent(ids::add));
    return new ArrayList<>(ids);
  }

  void describe(ObjectNode body) {
    body.put(UndoMainRun.OUTCOME, outcome);
    body.put("alreadyRolledBack", outcome.equals(ALREADY_ROLLED_BACK));
    body.put("fromSnapshot", fromSnapshot);
    body.put("targetSnapshot", targetSnapshot);
    body.put("targetTag", targetTag.orElse(null));
    body.put("tableSnapshot", tableSnapshot);
    body.put("order", "newest-first");
    ArrayNode snapshots = body.putArray("undone");
    undone.forEach(snapshot -> snapshot.describe(snapshots.addObject()));
    ArrayNode batches = body.putArray("batchIds");
    batchIds().forEach(batches::add);
    body.put("schemaDiffers", schemaDiffers);
    ArrayNode columns = body.putArray("columnsSinceTarget");
    columnsSinceTarget.forEach(columns::add);
    body.put("schemaNote", schemaDiffers ? SCHEMA_NOTE : null);
    rejected.describe(body.putObject("rejected"));
    tombstones.describe(body.putObject("tombstones"));
  }
}
