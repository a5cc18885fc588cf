package io.files2iceberg.batcher.history;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.output.RecordJson;
import io.files2iceberg.batcher.output.RecordText;
import io.files2iceberg.core.ledger.FileRows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The two forms of a load history: columns for people, JSON lines for scripts. A count the
 * ledger does not know prints as {@value #UNKNOWN} (JSON {@code null}), never as 0; a value that
 * does not apply (no snapshot for a failed load) as {@code -}.
 */
public final class HistoryFormat {
  static final String UNKNOWN = "unknown";
  private static final String NONE = "-";
  private static final List<String> HEADER =
      List.of("TIME", "STATE", "BATCH", "SNAPSHOT", "ROWS READ", "REJECTED", "RESCUED", "COLS IGNORED", "GENERATION",
          "URI");

  private HistoryFormat() {}

  /**
   * One line per load under a header, then the detail lines: why a file was not loaded, and
   * which expectations a loaded file's rows violated ({@code expectations failed: amount_positive
   * 3, email_set 1}).
   */
  public static String human(String table, Instant since, List<FileLoad> loads) {
    StringBuilder out = new StringBuilder();
    out.append("HISTORY ").append(table).append(" since ").append(since).append(" (").append(loads.size())
        .append(" file load(s), newest first)\n");
    List<List<String>> rows = new ArrayList<>();
    rows.add(HEADER);
    for (FileLoad load : loads) {
      Optional<FileRows> counts = load.rows();
      rows.add(List.of(load.time().toString(), load.outcome().code(), load.batchId().orElse(NONE),
          load.snapshotId().map(String::valueOf).orElse(NONE),
          counts.map(r -> String.valueOf(r.read())).orElse(UNKNOWN),
          counts.map(r -> String.valueOf(r.rejected())).orElse(UNKNOWN),
          counts.map(r -> String.valueOf(r.rescued())).orElse(UNKNOWN),
          counts.map(r -> String.valueOf(r.ignoredColumns())).orElse(UNKNOWN),
          String.valueOf(load.generation()), load.uri()));
    }
    int[] widths = new int[HEADER.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(i == row.size() - 1 ? row.get(i) : String.format("%-" + widths[i] + "s  ", row.get(i)));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    for (FileLoad load : loads) {
      load.detail().ifPresent(detail -> detailLine(out, load, detail));
      load.rows().map(RecordText::expectationsFailed).filter(text -> !text.isEmpty())
          .ifPresent(text -> detailLine(out, load, text));
    }
    return out.toString();
  }

  private static void detailLine(StringBuilder out, FileLoad load, String detail) {
    out.append("  ").append(load.outcome().code()).append(' ').append(load.uri()).append(" generation ")
        .append(load.generation()).append(": ").append(detail).append('\n');
  }

  /**
   * A {@code file_load} line per load, newest first, then {@code history_summary}: {@code
   * {"kind":"history_summary","table":..,"since":..,"fileLoads":N}}.
   */
  public static String json(String table, Instant since, List<FileLoad> loads) {
    List<ObjectNode> lines = new ArrayList<>();
    for (FileLoad load : loads) {
      lines.add(load(JsonLines.record("file_load").put("table", table), load));
    }
    lines.add(JsonLines.record("history_summary").put("table", table).put("since", since.toString())
        .put("fileLoads", loads.size()));
    return JsonLines.lines(lines);
  }

  /** Each load as an object of {@code status}'s {@code fileLoads} array. */
  public static void loads(ArrayNode array, List<FileLoad> loads) {
    loads.forEach(load -> load(array.addObject(), load));
  }

  private static ObjectNode load(ObjectNode node, FileLoad load) {
    node.put("time", load.time().toString());
    node.put("uri", load.uri());
    node.put("generation", load.generation());
    node.put("fileId", load.fileId());
    node.put("partition", load.partition());
    node.put("state", load.outcome().code());
    putOrNull(node, "batchId", load.batchId().orElse(null));
    if (load.snapshotId().isPresent()) {
      node.put("snapshotId", load.snapshotId().get());
    } else {
      node.putNull("snapshotId");
    }
    RecordJson.rows(node, load.rows());
    putOrNull(node, "detail", load.detail().orElse(null));
    return node;
  }

  private static void putOrNull(ObjectNode node, String field, String value) {
    if (value == null) {
      node.putNull(field);
    } else {
      node.put(field, value);
    }
  }
}
