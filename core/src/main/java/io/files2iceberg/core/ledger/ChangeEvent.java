package io.files2iceberg.core.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One change of a table to publish (the ledger's outbox): written in the same transaction that
 * makes the change in the ledger (a batch COMMITTED, an operator's change APPLIED), deleted when a
 * sink acknowledged it ({@link Ledger#acknowledgeEvents}). Publishing is therefore at least once;
 * consumers deduplicate by {@code eventId}.
 *
 * <p>The payload is the change feed's entry for the change ({@code files2iceberg changes}) plus
 * {@code eventId}, as far as the ledger knows it: {@code docs/reference/json/change-events.schema.json}.
 *
 * @param eventId the batch id of a commit, the change id of a rollback or a drop
 * @param change {@code commit}, {@code rollback} or {@code drop-partition}
 * @param payload the event, as JSON text
 */
public record ChangeEvent(String eventId, String table, String change, String payload, Instant createdAt) {


  private static final ObjectMapper JSON = new ObjectMapper();

  public ChangeEvent {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(change, "change");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** The event of a batch just COMMITTED (its snapshot, partitions and row counts). */
  public static ChangeEvent committed(BatchRecord batch) {
    Map<String, Object> event = head(batch.batchId(), "commit", batch.table(), batch.snapshotId(), batch.updatedAt());
    event.put("parentSnapshotId", null);
    event.put("operation", null);
    event.put("batchId", batch.batchId());
    event.putAll(partitions(batch.partitions()));
    Optional<BatchMetrics> metrics = batch.metrics();
    event.put("inserted", metrics.map(BatchMetrics::rowsInserted).orElse(null));
    event.put("updated", metrics.map(BatchMetrics::rowsUpdated).orElse(null));
    event.put("deleted", metrics.map(BatchMetrics::rowsDeleted).orElse(null));
    return of(batch.batchId(), batch.table(), "commit", event, batch.updatedAt());
  }

  /**
   * The event of an operator's change just APPLIED. A rollback lists what it undid: each batch with
   * its snapshot and partitions when the ledger still holds it ({@code undoneBatches}), each
   * undone drop by its id and partitions ({@code undoneDrops}).
   */
  public static ChangeEvent applied(TableChange change, List<BatchRecord> undoneBatches, List<TableChange> undoneDrops) {
    String kind = change.kind().code();
    Instant at = change.updatedAt();
    Map<String, Object> event;
    if (change.kind() == TableChange.ChangeKind.ROLLBACK) {
      event = head(change.changeId(), kind, change.table(), change.toSnapshot(), at);
      event.put("fromSnapshotId", id(change.fromSnapshot()));
      event.put("toSnapshotId", id(change.toSnapshot()));
      List<Map<String, Object>> undone = new ArrayList<>();
      for (String batchId : change.batchIds()) {
        Optional<BatchRecord> batch = undoneBatches.stream().filter(b -> b.batchId().equals(batchId)).findFirst();
        undone.add(undone(batch.flatMap(BatchRecord::snapshotId), batchId, null,
            batch.map(BatchRecord::partitions)));
      }
      for (TableChange drop : undoneDrops) {
        undone.add(undone(Optional.empty(), null, drop.changeId(), Optional.of(drop.partitions())));
      }
      event.put("undone", undone);
    } else {
      event = head(change.changeId(), kind, change.table(), Optional.empty(), at);
      event.put("parentSnapshotId", id(change.fromSnapshot()));
      event.put("operation", null);
      event.put("changeId", change.changeId());
      event.putAll(partitions(change.partitions()));
      event.put("deleted", null);
    }
    return of(change.changeId(), change.table(), kind, event, at);
  }

  private static Map<String, Object> head(String eventId, String change, String table, Optional<Long> snapshotId,
      Instant at) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("kind", "change");
    event.put("change", change);
    event.put("eventId", eventId);
    event.put("table", table);
    event.put("snapshotId", id(snapshotId));
    event.put("committedAt", at.toString());
    return event;
  }

  private static Map<String, Object> undone(Optional<Long> snapshotId, String batchId, String changeId,
      Optional<List<String>> partitions) {
    Map<String, Object> undone = new LinkedHashMap<>();
    undone.put("snapshotId", id(snapshotId));
    undone.put("batchId", batchId);
    undone.put("changeId", changeId);
    if (partitions.isPresent()) {
      undone.putAll(partitions(partitions.get()));
    } else {
      undone.put("partitions", null);
      undone.put("partitionCount", null);
      undone.put("partitionsTruncated", false);
    }
    return undone;
  }

  /** The partitions as the feed lists them ({@link ChangedPartitions}): the list, their count and whether it was cut. */
  private static Map<String, Object> partitions(List<String> tokens) {
    ChangedPartitions changed = ChangedPartitions.of(tokens);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("partitions", changed.listed());
    fields.put("partitionCount", changed.count());
    fields.put("partitionsTruncated", changed.truncated());
    return fields;
  }

  private static String id(Optional<Long> id) {
    return id.map(String::valueOf).orElse(null);
  }

  private static ChangeEvent of(String eventId, String table, String change, Map<String, Object> event, Instant at) {
    try {
      return new ChangeEvent(eventId, table, change, JSON.writeValueAsString(event), at);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write change event " + eventId + " as JSON", e);
    }
  }
}
