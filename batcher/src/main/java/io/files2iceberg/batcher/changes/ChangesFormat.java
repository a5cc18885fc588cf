package io.files2iceberg.batcher.changes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code changes}' output: a line per change, oldest first, then a summary line; or with {@code
 * --json} each change as the main wrote it (docs/reference/json/changes.schema.json) and a {@code
 * changes_summary} last.
 */
final class ChangesFormat {
  /** Partitions a line names at most; the JSON has the summary's whole list. */
  static final int PARTITIONS_SHOWN = 5;

  private ChangesFormat() {}

  /**
   * The changes for a person, such as {@code 2026-12-06T10:00:00Z  commit  batch b-1  snapshot 123
   * 3 partitions (2026-12-01, 2026-12-02, 2026-12-03)  +10 ~2 -0}.
   */
  static String human(String table, String start, ChangesResult result) {
    StringBuilder text = new StringBuilder();
    for (JsonNode change : result.changes()) {
      String at = change.path("committedAt").asText();
      switch (change.path("change").asText()) {
        case "commit" -> text.append(at).append("  commit  batch ").append(change.path("batchId").asText())
            .append("  snapshot ").append(change.path("snapshotId").asText()).append("  ")
            .append(partitions(change)).append("  ").append(rows(change)).append('\n');
        case "drop-partition" -> text.append(at).append("  drop-partition  change ")
            .append(change.path("changeId").asText()).append("  snapshot ").append(change.path("snapshotId").asText())
            .append("  ").append(partitions(change)).append("  -").append(count(change.path("deleted")))
            .append(ChangeOperators.describe(change)).append('\n');
        case "rollback" -> {
          text.append(at).append("  rollback  snapshot ").append(change.path("fromSnapshotId").asText())
              .append(" -> ").append(change.path("toSnapshotId").asText());
          List<String> undone = new ArrayList<>();
          change.path("undone").forEach(u -> undone.add((u.path("batchId").isTextual()
              ? "batch " + u.path("batchId").asText() : "change " + u.path("changeId").asText())
              + " (" + partitions(u) + ")"));
          text.append(undone.isEmpty() ? "  undid nothing files2iceberg wrote" : "  undid " + String.join(", ", undone))
              .append(ChangeOperators.describe(change)).append('\n');
        }
        default -> text.append(at).append("  ").append(change.path("change").asText()).append('\n');
      }
    }
    text.append(table).append(": ").append(result.changes().size()).append(" change(s) after ").append(start)
        .append("; current snapshot ").append(result.currentSnapshotId().orElse("none"));
    if (result.other() > 0) {
      text.append("; ").append(result.other()).append(" snapshot(s) not written by files2iceberg (maintenance, other"
          + " writers) or expired, left out");
    }
    return text.append('\n').toString();
  }

  /** The changes as the main wrote them, one a line, then the {@code changes_summary}. */
  static String json(String table, String start, ChangesResult result) {
    StringBuilder text = new StringBuilder();
    result.changes().forEach(change -> text.append(change).append('\n'));
    ObjectNode summary = JsonNodeFactory.instance.objectNode();
    summary.put("kind", "changes_summary");
    summary.put("table", table);
    summary.put("start", start);
    summary.put("changes", result.changes().size());
    summary.put("other", result.other());
    if (result.currentSnapshotId().isPresent()) {
      summary.put("currentSnapshotId", result.currentSnapshotId().get());
    } else {
      summary.putNull("currentSnapshotId");
    }
    return text.append(summary).append('\n').toString();
  }

  /** {@code 3 partitions (2026-12-01, 2026-12-02, 2026-12-03)}, at most {@link #PARTITIONS_SHOWN} named. */
  static String partitions(JsonNode change) {
    JsonNode count = change.path("partitionCount");
    if (!count.isNumber()) {
      return "partitions unknown";
    }
    List<String> named = new ArrayList<>();
    change.path("partitions").forEach(p -> named.add(p.asText()));
    int total = count.asInt();
    List<String> shown = named.subList(0, Math.min(named.size(), PARTITIONS_SHOWN));
    String list = String.join(", ", shown) + (total > shown.size() ? ", ... " + (total - shown.size()) + " more" : "");
    return total + (total == 1 ? " partition" : " partitions") + (shown.isEmpty() ? "" : " (" + list + ")");
  }

  private static String rows(JsonNode change) {
    return "+" + count(change.path("inserted")) + " ~" + count(change.path("updated")) + " -"
        + count(change.path("deleted"));
  }

  private static String count(JsonNode value) {
    return value.isNumber() ? value.asText() : "?";
  }
}
