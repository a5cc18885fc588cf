package io.files2iceberg.sparkjob.change;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.sparkjob.change.ChangeSummary.RowCounts;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One change files2iceberg made to a table, as the change feed lists it: a batch's commit, an
 * operator's dropped partition, or a rollback that undid some of them. Each is one JSON object
 * ({@code "kind": "change"}, its sort in {@code "change"}), as docs/reference/json/changes.schema.json
 * describes it: every field always present, {@code null} when unknown, snapshot ids as strings.
 */
public sealed interface Change {
  /** The snapshot that became the table's current one. */
  long snapshotId();

  /** When it became current. */
  Instant at();

  /** The object of the feed's line. */
  ObjectNode toJson(String table);

  /**
   * The partitions a snapshot's summary names ({@link ChangeSummary}).
   *
   * @param listed the tokens, sorted; empty when the summary predates them
   * @param count how many changed, listed or not; empty when the summary predates them
   * @param truncated the list holds only the first {@link ChangeSummary#PARTITIONS_LISTED}
   */
  record Partitions(Optional<List<String>> listed, OptionalInt count, boolean truncated) {
    static Partitions of(Map<String, String> summary) {
      String count = summary.get(ChangeSummary.PARTITIONS_COUNT);
      return new Partitions(ChangeSummary.listedPartitions(summary),
          count == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(count)),
          Boolean.parseBoolean(summary.get(ChangeSummary.PARTITIONS_TRUNCATED)));
    }

    void into(ObjectNode node) {
      if (listed.isPresent()) {
        ArrayNode array = node.putArray("partitions");
        listed.get().forEach(array::add);
      } else {
        node.putNull("partitions");
      }
      if (count.isPresent()) {
        node.put("partitionCount", count.getAsInt());
      } else {
        node.putNull("partitionCount");
      }
      node.put("partitionsTruncated", truncated);
    }
  }

  /** A batch's commit: {@code files2iceberg.batch-id} in the snapshot's summary. */
  record Commit(long snapshotId, Optional<Long> parentId, Instant at, String batchId, String operation,
      Partitions partitions, Optional<RowCounts> rows) implements Change {
    @Override
    public ObjectNode toJson(String table) {
      ObjectNode node = start("commit", table, this);
      putId(node, "parentSnapshotId", parentId);
      node.put("operation", operation);
      node.put("batchId", batchId);
      partitions.into(node);
      putCount(node, "inserted", rows.map(RowCounts::inserted));
      putCount(node, "updated", rows.map(RowCounts::updated));
      putCount(node, "deleted", rows.map(RowCounts::deleted));
      return node;
    }
  }

  /** An operator's dropped partition: {@code files2iceberg.change = drop-partition}. */
  record DropPartition(long snapshotId, Optional<Long> parentId, Instant at, String changeId, String operation,
      Partitions partitions, Optional<Long> deleted) implements Change {
    static final String KIND = "drop-partition";

    @Override
    public ObjectNode toJson(String table) {
      ObjectNode node = start(KIND, table, this);
      putId(node, "parentSnapshotId", parentId);
      node.put("operation", operation);
      node.put("changeId", changeId);
      partitions.into(node);
      putCount(node, "deleted", deleted);
      return node;
    }
  }

  /**
   * The current snapshot moved back to one of its ancestors ({@code rollback}, {@code
   * rollback_to_snapshot}): the changes between them are no longer in the table.
   *
   * @param from the snapshot that was current before
   * @param undone the files2iceberg changes between the two, newest first
   */
  record Rollback(long snapshotId, long from, Instant at, List<Undone> undone) implements Change {
    public Rollback {
      undone = List.copyOf(undone);
    }

    @Override
    public ObjectNode toJson(String table) {
      ObjectNode node = start("rollback", table, this);
      node.put("fromSnapshotId", Long.toString(from));
      node.put("toSnapshotId", Long.toString(snapshotId));
      ArrayNode array = node.putArray("undone");
      for (Undone change : undone) {
        ObjectNode item = array.addObject();
        item.put("snapshotId", Long.toString(change.snapshotId()));
        putText(item, "batchId", change.batchId());
        putText(item, "changeId", change.changeId());
        change.partitions().into(item);
      }
      return node;
    }
  }

  /** A files2iceberg change a rollback undid: a batch's commit ({@code batchId}) or an operator's ({@code changeId}). */
  record Undone(long snapshotId, Optional<String> batchId, Optional<String> changeId, Partitions partitions) {}

  private static ObjectNode start(String change, String table, Change of) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("kind", "change");
    node.put("change", change);
    node.put("table", table);
    node.put("snapshotId", Long.toString(of.snapshotId()));
    node.put("committedAt", of.at().toString());
    return node;
  }

  private static void putId(ObjectNode node, String field, Optional<Long> id) {
    putText(node, field, id.map(Object::toString));
  }

  private static void putText(ObjectNode node, String field, Optional<String> text) {
    if (text.isPresent()) {
      node.put(field, text.get());
    } else {
      node.putNull(field);
    }
  }

  private static void putCount(ObjectNode node, String field, Optional<Long> count) {
    if (count.isPresent()) {
      node.put(field, count.get());
    } else {
      node.putNull(field);
    }
  }
}
