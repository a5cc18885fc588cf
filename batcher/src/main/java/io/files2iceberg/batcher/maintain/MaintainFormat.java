package io.files2iceberg.batcher.maintain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/** {@code maintain}'s output: one block per table, or JSON with {@code --json}. */
public final class MaintainFormat {
  private static final ObjectMapper JSON = new ObjectMapper();

  private MaintainFormat() {}

  /**
   * What one table's run did, as lines for a person; a skipped table is one line, {@code
   * local.demo.x: skipped, not created yet (no batch has loaded it)}.
   */
  public static String human(MaintainResult result) {
    if (result.skipped().isPresent()) {
      MaintainResult.Skipped skipped = result.skipped().get();
      return result.table() + ": skipped, " + skipped.reason() + " (" + skipped.detail() + ")\n";
    }
    var body = result.body();
    boolean dry = result.isDryRun();
    StringBuilder text = new StringBuilder();
    text.append(result.table()).append(dry ? " (dry run: nothing changed)" : "").append('\n');
    var kept = body.path("protected");
    text.append("  protected ").append(kept.size()).append(" snapshot(s)")
        .append(kept.isEmpty() ? "" : ", with every newer one").append('\n');
    kept.forEach(p -> text.append("    snapshot ").append(p.path("snapshotId").asLong()).append(" of batch ")
        .append(p.path("batchId").asText()).append(" (").append(p.path("committedAt").asText()).append("): ")
        .append(p.path("reason").asText()).append('\n'));
    body.path("notInTable").forEach(b -> text.append("    batch ").append(b.asText())
        .append(": not in the table, nothing to protect\n"));
    var compaction = body.path("compaction");
    if (compaction.isObject()) {
      if (dry) {
        text.append("  would compact ").append(compaction.path("rewrittenFiles").asLong()).append(" small file(s), ")
            .append(compaction.path("rewrittenBytes").asLong()).append(" bytes\n");
      } else {
        text.append("  compacted ").append(compaction.path("rewrittenFiles").asLong()).append(" file(s) into ")
            .append(compaction.path("addedFiles").asLong()).append(" (").append(compaction.path("rewrittenBytes")
                .asLong()).append(" bytes)")
            .append(compaction.path("snapshotId").isNull() ? "" : ", snapshot "
                + compaction.path("snapshotId").asLong()).append('\n');
      }
    }
    var expired = body.path("expiredSnapshots");
    text.append(dry ? "  would expire " : "  expired ").append(expired.size())
        .append(" snapshot(s) older than ").append(body.path("olderThan").asText())
        .append(" (retention cutoff ").append(body.path("retentionCutoff").asText()).append(", retain last ")
        .append(body.path("retainLast").asInt()).append(")");
    if (!expired.isEmpty()) {
      text.append(": ");
      for (int i = 0; i < expired.size(); i++) {
        text.append(i == 0 ? "" : ", ").append(expired.get(i).asLong());
      }
    }
    text.append('\n');
    text.append("  snapshots: ").append(body.path("snapshotsBefore").asInt()).append(dry ? " now, " : " before, ")
        .append(body.path("snapshotsAfter").asInt()).append(" after");
    if (!dry) {
      text.append("; ").append(body.path("deletedFiles").asLong()).append(" file(s) deleted");
    }
    return text.append('\n').toString();
  }

  /**
   * {@code {"tables":[...], "skipped":[{"table","reason","detail"}], "refused":[{"table","batchId","message"}],
   * "failed":[{"table","message"}]}}: each element of {@code tables} is the result of a maintained
   * table as the main printed it; the tables the main skipped are in {@code skipped}.
   */
  public static String json(List<MaintainResult> results, List<MaintenanceGuard.Refused> refused,
      Map<String, String> failed) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode tables = root.putArray("tables");
    ArrayNode skipped = root.putArray("skipped");
    for (MaintainResult result : results) {
      result.skipped().ifPresentOrElse(
          s -> skipped.addObject().put("table", result.table()).put("reason", s.reason()).put("detail", s.detail()),
          () -> tables.add(result.body()));
    }
    ArrayNode refusals = root.putArray("refused");
    for (MaintenanceGuard.Refused r : refused) {
      refusals.addObject().put("table", r.table()).put("batchId", r.batchId())
          .put("message", r.message());
    }
    ArrayNode failures = root.putArray("failed");
    failed.forEach((table, message) -> failures.addObject().put("table", table).put("message", message));
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot render the maintenance result", e);
    }
  }
}
