package io.files2iceberg.batcher.inspect;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.output.RecordJson;
import io.files2iceberg.batcher.output.RecordText;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.manifest.AttemptResult;
import java.util.ArrayList;
import java.util.List;

/** The two forms of {@code inspect}: sections for people, JSON lines for scripts. */
public final class InspectFormat {
  private InspectFormat() {}

  public static String human(History history) {
    StringBuilder out = new StringBuilder();
    if (history instanceof History.OfPartition partition) {
      out.append("PARTITION ").append(RecordText.partition(partition.partition())).append('\n');
      partition.partition().prefix().ifPresent(prefix -> out.append("  folder ").append(prefix).append('\n'));
      files(out, "FILES", "", partition.files());
      batches(out, partition.batches());
    } else if (history instanceof History.OfBatch batch) {
      out.append("BATCH ").append(RecordText.batch(batch.batch())).append('\n');
      out.append("  events ").append(String.join(", ", batch.batch().eventIds())).append('\n');
      files(out, "FILES", ", claim order", batch.files());
      attempts(out, batch.batch().state(), batch.attempts());
    } else if (history instanceof History.OfFile file) {
      out.append("FILE ").append(file.uri()).append('\n');
      files(out, "GENERATIONS", ", oldest first", file.generations());
      batches(out, file.batches());
    }
    return out.toString();
  }

  /**
   * JSON lines: the subject's records ({@code partition}, {@code batch}, {@code file}, {@code
   * attempt}) in the human form's order, then {@code inspect_summary}, which names the subject and
   * counts the lines before it.
   */
  public static String json(History history) {
    List<ObjectNode> lines = new ArrayList<>();
    ObjectNode summary = JsonLines.record("inspect_summary");
    if (history instanceof History.OfPartition partition) {
      lines.add(RecordJson.partition(JsonLines.record("partition"), partition.partition()));
      files(lines, partition.files());
      batches(lines, partition.batches());
      subject(summary, "partition", partition.partition().table(), partition.partition().partition(), null, null)
          .put("files", partition.files().size()).put("batches", partition.batches().size()).put("attempts", 0);
    } else if (history instanceof History.OfBatch batch) {
      ObjectNode node = RecordJson.batch(JsonLines.record("batch"), batch.batch());
      RecordJson.strings(node.putArray("eventIds"), batch.batch().eventIds());
      lines.add(node);
      files(lines, batch.files());
      attempts(lines, batch.batch().batchId(), batch.attempts());
      subject(summary, "batch", batch.batch().table(), null, batch.batch().batchId(), null)
          .put("files", batch.files().size()).put("batches", 1).put("attempts", batch.attempts().size());
    } else if (history instanceof History.OfFile file) {
      files(lines, file.generations());
      batches(lines, file.batches());
      subject(summary, "file", null, null, null, file.uri())
          .put("files", file.generations().size()).put("batches", file.batches().size()).put("attempts", 0);
    }
    lines.add(summary);
    return JsonLines.lines(lines);
  }

  private static ObjectNode subject(ObjectNode summary, String subject, String table, String partition,
      String batchId, String uri) {
    summary.put("subject", subject);
    summary.put("table", table);
    summary.put("partition", partition);
    summary.put("batchId", batchId);
    return summary.put("uri", uri);
  }

  private static void files(StringBuilder out, String title, String order, List<FileRecord> files) {
    out.append(title).append(" (").append(files.size()).append(order).append(")\n");
    files.forEach(file -> out.append("  ").append(RecordText.file(file)).append('\n'));
  }

  private static void batches(StringBuilder out, List<BatchRecord> batches) {
    out.append("BATCHES (").append(batches.size()).append(", oldest first; pruned ones are gone)\n");
    batches.forEach(batch -> out.append("  ").append(RecordText.batch(batch)).append('\n'));
  }

  private static void attempts(StringBuilder out, BatchState state, List<History.Attempt> attempts) {
    out.append("ATTEMPTS (").append(attempts.size()).append(", oldest first)\n");
    for (History.Attempt attempt : attempts) {
      out.append("  attempt ").append(attempt.attempt()).append(": ");
      if (attempt.result().isPresent()) {
        AttemptResult result = attempt.result().get();
        out.append("exit ").append(result.exitCode()).append(' ').append(result.exit().name()).append(", ")
            .append(result.detail());
        result.report().ifPresent(report -> out.append(", ").append(report.metrics().rowsInserted())
            .append(" row(s) inserted, ").append(report.metrics().rowsUpdated()).append(" updated"));
        out.append(", ended ").append(result.endedAt());
      } else {
        // maintain deletes the files of COMMITTED batches once they are older than its retention.
        out.append(state == BatchState.COMMITTED
            ? "no result (the job died before writing it, or maintain deleted it once the batch was settled)"
            : "no result (still running, or the job died before writing it)");
      }
      out.append("\n    result ").append(attempt.resultLocation()).append('\n');
      out.append("    log ").append(attempt.log()).append('\n');
    }
  }

  private static void attempts(List<ObjectNode> lines, String batchId, List<History.Attempt> attempts) {
    for (History.Attempt attempt : attempts) {
      ObjectNode node = JsonLines.record("attempt");
      node.put("batchId", batchId);
      node.put("attempt", attempt.attempt());
      node.put("resultLocation", attempt.resultLocation());
      if (attempt.result().isPresent()) {
        node.set("result", JsonLines.parse(attempt.result().get().toJson()));
      } else {
        node.putNull("result");
      }
      node.put("log", attempt.log());
      lines.add(node);
    }
  }

  private static void files(List<ObjectNode> lines, List<FileRecord> files) {
    files.forEach(file -> lines.add(RecordJson.file(JsonLines.record("file"), file)));
  }

  private static void batches(List<ObjectNode> lines, List<BatchRecord> batches) {
    batches.forEach(batch -> lines.add(RecordJson.batch(JsonLines.record("batch"), batch)));
  }
}
