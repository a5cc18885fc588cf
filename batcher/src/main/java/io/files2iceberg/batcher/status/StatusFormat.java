package io.files2iceberg.batcher.status;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.history.HistoryFormat;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.output.RecordText;
import io.files2iceberg.batcher.engine.TableStops;
import io.files2iceberg.batcher.status.StatusReport.TableView;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.TableChange;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The two forms of {@code bin/files2iceberg status}: a table for people and JSON for scripts.
 *
 * <pre>{@code
 * TABLE              PARTITIONS           FILES                     IN FLIGHT  LAST COMMIT                                    LAG
 * local.demo.clicks  ingested 3, ready 1  ingested 12, recorded 2   -          20261130T120000-1a2b3c4d snapshot 4242 (2m ago)  35s
 *
 * FAILED PARTITIONS
 *   local.demo.clicks 2026-11-28: failed after 3 attempts: files2iceberg: table ... rejected: ...
 * }</pre>
 */
public final class StatusFormat {
  /** Failed batches shown per table in the human form (JSON has all the ledger returns). */
  private static final int FAILED_BATCHES_SHOWN = 3;
  private static final String NONE = "-";

  private StatusFormat() {}

  /** The human form: one row per table, then the failures, each with its error. */
  public static String human(StatusReport report) {
    if (report.tables().isEmpty()) {
      return "No tables: the ledger is empty and no profiles were given.\n";
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"TABLE", "PARTITIONS", "FILES", "IN FLIGHT", "LAST COMMIT", "LAG"});
    for (TableView table : report.tables()) {
      rows.add(new String[] {
        table.table(),
        counts(table.status().partitionsByState()),
        counts(table.status().filesByState()),
        inFlight(table.status().inFlight(), report.generatedAt()),
        table.status().lastCommitted().map(b -> lastCommit(b, report.generatedAt())).orElse(NONE),
        table.lag().map(StatusFormat::duration).orElse(NONE)
      });
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(i == row.length - 1 ? row[i] : pad(row[i], widths[i] + 2));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    List<String> failedPartitions = new ArrayList<>();
    List<String> failedBatches = new ArrayList<>();
    List<String> stopped = new ArrayList<>();
    List<String> changing = new ArrayList<>();
    for (TableView table : report.tables()) {
      table.unfinishedChange().ifPresent(change -> changing.add("  " + table.table() + ": " + change.kind().code()
          + " " + change.changeId() + " (asked by " + change.actor() + " at " + change.createdAt() + ")\n    "
          + "run it again to finish it: " + (change.kind() == TableChange.ChangeKind.ROLLBACK
              ? "files2iceberg rollback --table " + table.table() + " --to-snapshot " + change.toSnapshot().orElseThrow()
              : "files2iceberg drop-partition --table " + table.table() + " --partition " + change.partitions().get(0))));
      for (TableStops.Stop stop : table.stoppedBy()) {
        stopped.add("  " + table.table() + ": " + stop.objectUri() + " (message " + stop.messageId() + "): "
            + stop.reason() + "\n    " + stop.remedy());
      }
      for (PartitionRecord partition : table.status().failedPartitions()) {
        failedPartitions.add("  " + table.table() + " " + partition.partition() + ": failed after "
            + partition.attempts() + " attempt(s): " + partition.lastError().orElse("no error recorded"));
      }
      table.status().failedBatches().stream().limit(FAILED_BATCHES_SHOWN).forEach(batch -> failedBatches.add(
          "  " + table.table() + " " + batch.batchId() + " (" + String.join(", ", batch.partitions()) + ", "
              + ago(batch.updatedAt(), report.generatedAt()) + "): " + batch.error().orElse("no error recorded")
              + RecordText.cause(batch)));
    }
    List<String> cleaning = report.tables().stream().filter(t -> t.cleanupPending() > 0)
        .map(t -> "  " + t.table() + ": " + t.cleanupPending() + " file(s) decided, their landed objects not removed"
            + " yet; the next maintain finishes them")
        .toList();
    if (!cleaning.isEmpty()) {
      out.append("\nLANDING CLEANUP UNFINISHED (load.after-ingest)\n");
      cleaning.forEach(line -> out.append(line).append('\n'));
    }
    if (!changing.isEmpty()) {
      out.append("\nUNFINISHED CHANGES (no batch of the table is claimed until the change is run again)\n");
      changing.forEach(line -> out.append(line).append('\n'));
    }
    if (!stopped.isEmpty()) {
      out.append("\nSTOPPED TABLES (no batch runs while a file that misses the pattern stands, strict-pattern)\n");
      stopped.forEach(line -> out.append(line).append('\n'));
    }
    if (!failedPartitions.isEmpty()) {
      out.append("\nFAILED PARTITIONS (retried only by an operator)\n");
      failedPartitions.forEach(line -> out.append(line).append('\n'));
    }
    if (!failedBatches.isEmpty()) {
      out.append("\nFAILED BATCHES (newest first)\n");
      failedBatches.forEach(line -> out.append(line).append('\n'));
    }
    for (TableView table : report.tables()) {
      table.fileLoads().ifPresent(loads -> out.append('\n')
          .append(HistoryFormat.human(table.table(), report.filesSince().orElseThrow(), loads)));
    }
    if (report.quarantinedMessages() > 0) {
      out.append("\n").append(report.quarantinedMessages())
          .append(" quarantined notification(s): messages that could never be recorded\n");
    }
    return out.toString();
  }

  /**
   * The JSON lines: a {@code table_status} per table, then {@code status_summary}; see
   * docs/reference/json-output.md for their shape.
   */
  public static String json(StatusReport report) {
    List<ObjectNode> lines = new ArrayList<>();
    for (TableView view : report.tables()) {
      ObjectNode table = JsonLines.record("table_status");
      lines.add(table);
      table.put("table", view.table());
      putOptional(table, "profile", view.profile());
      putOptional(table, "mode", view.mode().map(m -> m.code()));
      ObjectNode partitions = table.putObject("partitions");
      view.status().partitionsByState().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .forEach(e -> partitions.put(e.getKey().code(), e.getValue()));
      ObjectNode files = table.putObject("files");
      view.status().filesByState().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .forEach(e -> files.put(e.getKey().code(), e.getValue()));
      ArrayNode inFlight = table.putArray("inFlight");
      for (BatchRecord batch : view.status().inFlight()) {
        ObjectNode node = batch(inFlight.addObject(), batch);
        putOptional(node, "leaseUntil", batch.leaseUntil().map(Instant::toString));
      }
      if (view.status().lastCommitted().isPresent()) {
        BatchRecord batch = view.status().lastCommitted().get();
        ObjectNode node = batch(table.putObject("lastCommit"), batch);
        node.put("committedAt", batch.updatedAt().toString());
        if (batch.snapshotId().isPresent()) {
          node.put("snapshotId", batch.snapshotId().get());
        } else {
          node.putNull("snapshotId");
        }
        BatchMetrics metrics = batch.metrics().orElse(BatchMetrics.EMPTY);
        node.put("rowsInserted", metrics.rowsInserted());
        node.put("rowsUpdated", metrics.rowsUpdated());
        node.put("rowsDeleted", metrics.rowsDeleted());
        node.put("lagMillis", metrics.lagMillis());
      } else {
        table.putNull("lastCommit");
      }
      putOptional(table, "oldestReadyAt", view.status().oldestReadyAt().map(Instant::toString));
      if (view.lag().isPresent()) {
        table.put("lagSeconds", view.lag().get().toSeconds());
      } else {
        table.putNull("lagSeconds");
      }
      ArrayNode failedPartitions = table.putArray("failedPartitions");
      for (PartitionRecord partition : view.status().failedPartitions()) {
        ObjectNode node = failedPartitions.addObject();
        node.put("partition", partition.partition());
        node.put("attempts", partition.attempts());
        putOptional(node, "error", partition.lastError());
        node.put("updatedAt", partition.updatedAt().toString());
      }
      ArrayNode failedBatches = table.putArray("failedBatches");
      for (BatchRecord batch : view.status().failedBatches()) {
        ObjectNode node = batch(failedBatches.addObject(), batch);
        putOptional(node, "error", batch.error());
        putOptional(node, "errorClass", batch.cause().map(FailureCause::errorClass));
        putOptional(node, "errorFile", batch.cause().flatMap(FailureCause::file));
        node.put("updatedAt", batch.updatedAt().toString());
      }
      view.fileLoads().ifPresent(loads -> HistoryFormat.loads(table.putArray("fileLoads"), loads));
      if (view.unfinishedChange().isPresent()) {
        TableChange change = view.unfinishedChange().get();
        table.putObject("unfinishedChange").put("changeId", change.changeId()).put("kind", change.kind().code())
            .put("actor", change.actor()).put("createdAt", change.createdAt().toString());
      } else {
        table.putNull("unfinishedChange");
      }
      table.put("cleanupPending", view.cleanupPending());
      ArrayNode stoppedBy = table.putArray("stoppedBy");
      for (TableStops.Stop stop : view.stoppedBy()) {
        ObjectNode node = stoppedBy.addObject();
        node.put("messageId", stop.messageId());
        node.put("objectUri", stop.objectUri());
        node.put("reason", stop.reason());
      }
    }
    ObjectNode summary = JsonLines.record("status_summary");
    summary.put("generatedAt", report.generatedAt().toString());
    summary.put("tables", report.tables().size());
    summary.put("quarantinedMessages", report.quarantinedMessages());
    putOptional(summary, "filesSince", report.filesSince().map(Instant::toString));
    lines.add(summary);
    return JsonLines.lines(lines);
  }

  private static ObjectNode batch(ObjectNode node, BatchRecord batch) {
    node.put("batchId", batch.batchId());
    node.put("state", batch.state().code());
    node.put("attempts", batch.attempts());
    ArrayNode partitions = node.putArray("partitions");
    batch.partitions().forEach(partitions::add);
    node.put("files", batch.fileIds().size());
    return node;
  }

  private static void putOptional(ObjectNode node, String field, Optional<String> value) {
    if (value.isPresent()) {
      node.put(field, value.get());
    } else {
      node.putNull(field);
    }
  }

  private static <E extends Enum<E>> String counts(Map<E, Long> counts) {
    if (counts.isEmpty()) {
      return NONE;
    }
    return counts.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey().name().toLowerCase(java.util.Locale.ROOT) + " " + e.getValue())
        .collect(Collectors.joining(", "));
  }

  private static String inFlight(List<BatchRecord> batches, Instant now) {
    if (batches.isEmpty()) {
      return NONE;
    }
    if (batches.size() > 1) {
      return batches.size() + " batches";
    }
    BatchRecord batch = batches.get(0);
    boolean expired = batch.leaseUntil().map(until -> until.isBefore(now)).orElse(false);
    return batch.batchId() + " " + batch.state().code() + (batch.attempts() > 1 ? " #" + batch.attempts() : "")
        + (expired ? " (lease expired)" : "");
  }

  private static String lastCommit(BatchRecord batch, Instant now) {
    return batch.batchId() + batch.snapshotId().map(id -> " snapshot " + id).orElse("") + " ("
        + ago(batch.updatedAt(), now) + ")";
  }

  private static String ago(Instant then, Instant now) {
    Duration since = Duration.between(then, now);
    return (since.isNegative() ? "0s" : duration(since)) + " ago";
  }

  /** {@code 35s}, {@code 2m}, {@code 3h12m}, {@code 2d4h}. */
  static String duration(Duration duration) {
    long seconds = Math.max(0, duration.toSeconds());
    if (seconds < 60) {
      return seconds + "s";
    }
    if (seconds < 3600) {
      return seconds / 60 + "m";
    }
    if (seconds < 86400) {
      long minutes = seconds / 60 % 60;
      return seconds / 3600 + "h" + (minutes == 0 ? "" : minutes + "m");
    }
    long hours = seconds / 3600 % 24;
    return seconds / 86400 + "d" + (hours == 0 ? "" : hours + "h");
  }

  private static String pad(String text, int width) {
    return text.length() >= width ? text : text + " ".repeat(width - text.length());
  }
}
