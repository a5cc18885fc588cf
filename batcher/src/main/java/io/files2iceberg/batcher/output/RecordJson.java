package io.files2iceberg.batcher.output;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The ledger's records as JSON, one shape per record wherever an operator command prints them
 * ({@code --json} of status, history, retry, inspect and quarantine): field names are the records'
 * own, states their stable codes, times ISO-8601, absent values {@code null}; {@link JsonLines}
 * writes them, snapshot ids as strings.
 */
public final class RecordJson {
  private RecordJson() {}

  public static ObjectNode partition(ObjectNode node, PartitionRecord partition) {
    node.put("table", partition.table());
    node.put("partition", partition.partition());
    node.put("state", partition.state().code());
    node.put("markerSeen", partition.markerSeen());
    text(node, "prefix", partition.prefix());
    node.put("attempts", partition.attempts());
    text(node, "lastError", partition.lastError());
    text(node, "batchId", partition.batchId());
    time(node, "readyAt", partition.readyAt());
    node.put("updatedAt", partition.updatedAt().toString());
    return node;
  }

  public static ObjectNode file(ObjectNode node, FileRecord file) {
    node.put("fileId", file.fileId());
    node.put("table", file.table());
    node.put("partition", file.partition());
    node.put("uri", file.uri());
    node.put("generation", file.generation());
    node.put("size", file.size());
    node.put("state", file.state().code());
    node.put("eventId", file.eventId());
    node.put("eventTime", file.eventTime().toString());
    if (file.overwroteGeneration().isPresent()) {
      node.put("overwroteGeneration", file.overwroteGeneration().get());
    } else {
      node.putNull("overwroteGeneration");
    }
    text(node, "batchId", file.batchId());
    text(node, "quarantineReason", file.quarantineReason());
    node.put("recordedAt", file.recordedAt().toString());
    if (file.snapshotId().isPresent()) {
      node.put("snapshotId", file.snapshotId().get());
    } else {
      node.putNull("snapshotId");
    }
    rows(node, file.rows());
    return node;
  }

  /**
   * A file's counts: {@code rowsRead}, {@code rowsRejected}, {@code rowsRescued}, {@code
   * columnsIgnored}, and {@code expectationsFailed} (an object of expectation names to the rows
   * that violated them, {@code {}} when none did), each {@code null} when unknown (never 0 or
   * {@code {}} for unknown).
   */
  public static ObjectNode rows(ObjectNode node, Optional<FileRows> rows) {
    for (String field : List.of(LedgerSchema.ROWS_READ, LedgerSchema.ROWS_REJECTED, LedgerSchema.ROWS_RESCUED,
        LedgerSchema.COLUMNS_IGNORED)) {
      if (rows.isPresent()) {
        node.put(field, rows.get().toMap().get(field));
      } else {
        node.putNull(field);
      }
    }
    if (rows.isPresent()) {
      ObjectNode failed = node.putObject(LedgerSchema.EXPECTATIONS_FAILED);
      rows.get().expectationsFailed().forEach(failed::put);
    } else {
      node.putNull(LedgerSchema.EXPECTATIONS_FAILED);
    }
    return node;
  }

  public static ObjectNode batch(ObjectNode node, BatchRecord batch) {
    node.put("batchId", batch.batchId());
    node.put("table", batch.table());
    node.put("state", batch.state().code());
    node.put("attempts", batch.attempts());
    node.put("launches", batch.launches());
    node.put("outcomeUnknown", batch.outcomeUnknown());
    strings(node.putArray("partitions"), batch.partitions());
    node.put("files", batch.fileIds().size());
    if (batch.snapshotId().isPresent()) {
      node.put("snapshotId", batch.snapshotId().get());
    } else {
      node.putNull("snapshotId");
    }
    if (batch.metrics().isPresent()) {
      node.set("metrics", JsonLines.tree(batch.metrics().get()));
    } else {
      node.putNull("metrics");
    }
    text(node, "error", batch.error());
    text(node, "errorClass", batch.cause().map(FailureCause::errorClass));
    text(node, "errorFile", batch.cause().flatMap(FailureCause::file));
    time(node, "leaseUntil", batch.leaseUntil());
    node.put("createdAt", batch.createdAt().toString());
    node.put("updatedAt", batch.updatedAt().toString());
    return node;
  }

  /** A quarantined message without its raw payload (inspect it in the ledger when needed). */
  public static ObjectNode message(ObjectNode node, QuarantinedMessage message) {
    node.put("messageId", message.messageId());
    node.put("reason", message.reason());
    text(node, "objectUri", message.objectUri());
    node.put("receivedAt", message.receivedAt().toString());
    return node;
  }

  public static void strings(ArrayNode array, List<String> values) {
    values.forEach(array::add);
  }

  private static void text(ObjectNode node, String field, Optional<String> value) {
    if (value.isPresent()) {
      node.put(field, value.get());
    } else {
      node.putNull(field);
    }
  }

  private static void time(ObjectNode node, String field, Optional<Instant> value) {
    text(node, field, value.map(Instant::toString));
  }
}
