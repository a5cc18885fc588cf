package io.files2iceberg.batcher.inspect;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.RecordJson;
import io.files2iceberg.batcher.output.RecordText;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.manifest.AttemptResult;
import java.util.List;

/** The two forms of {@code inspect}: sections for people, one JSON object for scripts. */
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
      attempts(out, batch.attempts());
    } else if (history instanceof History.OfFile file) {
      out.append("FILE ").append(file.uri()).append('\n');
      files(out, "GENERATIONS", ", oldest first", file.generations());
      batches(out, file.batches());
    }
    return out.toString();
  }

  public static String json(History history) {
    ObjectNode root = RecordJson.object();
    if (history instanceof History.OfPartition partition) {
      RecordJson.partition(root.putObject("partition"), partition.partition());
      files(root.putArray("files"), partition.files());
      batches(root.putArray("batches"), partition.batches());
    } else if (history instanceof History.OfBatch batch) {
      ObjectNode node = RecordJson.batch(root.putObject("batch"), batch.batch());
      RecordJson.strings(node.putArray("eventIds"), batch.batch().eventIds());
      files(root.putArray("files"), batch.files());
      attempts(root.putArray("attempts"), batch.attempts());
    } else if (history instanceof History.OfFile file) {
      root.put("uri", file.uri());
      files(root.putArray("generations"), file.generations());
      batches(root.putArray("batches"), file.batches());
    }
    return RecordJson.write(root);
  }

  private static void files(StringBuilder out, String title, String order, List<FileRecord> files) {
    out.append(title).append(" (").append(files.size()).append(order).append(")\n");
    files.forEach(file -> out.append("  ").append(RecordText.file(file)).append('\n'));
  }

  private static void batches(StringBuilder out, List<BatchRecord> batches) {
    out.append("BATCHES (").append(batches.size()).append(", oldest first; pruned ones are gone)\n");
    batches.forEach(batch -> out.append("  ").append(RecordText.batch(batch)).append('\n'));
  }

  private static void attempts(StringBuilder out, List<History.Attempt> attempts) {
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
        out.append("no result (still running, or the job died before writing it)");
      }
      out.append("\n    result ").append(attempt.resultLocation()).append('\n');
      out.append("    log ").append(attempt.log()).append('\n');
    }
  }

  private static void attempts(ArrayNode array, List<History.Attempt> attempts) {
    for (History.Attempt attempt : attempts) {
      ObjectNode node = array.addObject();
      node.put("attempt", attempt.attempt());
      node.put("resultLocation", attempt.resultLocation());
      if (attempt.result().isPresent()) {
        node.set("result", RecordJson.parse(attempt.result().get().toJson()));
      } else {
        node.putNull("result");
      }
      node.put("log", attempt.log());
    }
  }

  private static void files(ArrayNode array, List<FileRecord> files) {
    files.forEach(file -> RecordJson.file(array.addObject(), file));
  }

  private static void batches(ArrayNode array, List<BatchRecord> batches) {
    batches.forEach(batch -> RecordJson.batch(array.addObject(), batch));
  }
}
