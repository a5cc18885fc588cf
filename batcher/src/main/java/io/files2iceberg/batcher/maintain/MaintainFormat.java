package io.files2iceberg.batcher.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.JsonLines;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code maintain}'s output: one block per table, or JSON lines with {@code --json}. */
public final class MaintainFormat {
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
    rewrite(text, dry, body.path("compaction"), "compact", "small file(s)", "compacted", "file(s)");
    var sort = body.path("sort");
    if (sort.has("skipped")) {
      text.append("  sort skipped: ").append(sort.path("skipped").asText()).append('\n');
    } else {
      rewrite(text, dry, sort, "sort", "file(s) by " + sort.path("order").asText() + " (" + sort.path("from").asText()
          + ")", "sorted by " + sort.path("order").asText() + " (" + sort.path("from").asText() + "):", "file(s)");
    }
    rewrite(text, dry, body.path("positionDeletes"), "rewrite", "position delete file(s)", "rewrote",
        "position delete file(s)");
    rewrite(text, dry, body.path("manifests"), "rewrite", "manifest(s)", "rewrote", "manifest(s)");
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
    text.append('\n');
    var orphans = body.path("orphanFiles");
    if (orphans.isObject()) {
      long removed = orphans.path("removedFiles").asLong();
      text.append(dry ? "  would remove " : "  removed ").append(removed).append(" orphan file(s) older than ")
          .append(orphans.path("olderThan").asText()).append('\n');
      if (dry) {
        orphans.path("files").forEach(f -> text.append("    ").append(f.asText()).append('\n'));
        if (removed > orphans.path("files").size()) {
          text.append("    ... and ").append(removed - orphans.path("files").size()).append(" more\n");
        }
      }
    }
    return text.toString();
  }

  /**
   * One rewrite action's line, when it ran: {@code compacted 4 file(s) into 1 (1234 bytes),
   * snapshot 42}, or on a dry run {@code would compact 4 small file(s), 1234 bytes}.
   */
  private static void rewrite(StringBuilder text, boolean dry, JsonNode action, String would, String what,
      String done, String files) {
    if (!action.isObject()) {
      return;
    }
    if (dry) {
      text.append("  would ").append(would).append(' ').append(action.path("rewrittenFiles").asLong()).append(' ')
          .append(what).append(", ").append(action.path("rewrittenBytes").asLong()).append(" bytes\n");
    } else {
      text.append("  ").append(done).append(' ').append(action.path("rewrittenFiles").asLong()).append(' ')
          .append(files).append(" into ").append(action.path("addedFiles").asLong()).append(" (")
          .append(action.path("rewrittenBytes").asLong()).append(" bytes)")
          .append(action.path("snapshotId").isNull() ? "" : ", snapshot " + action.path("snapshotId").asLong())
          .append('\n');
    }
  }

  /**
   * The batch files pruned of one table, one line: {@code local.demo.clicks: deleted 12 batch
   * file(s) of batches settled before 2026-11-23T16:13:22Z} ({@code would delete} on a dry run),
   * with how many could not be deleted (each is named on stderr).
   */
  public static String human(BatchFilePruning.Pruned pruned) {
    return pruned.table() + ": " + (pruned.dryRun() ? "would delete " : "deleted ") + pruned.deleted()
        + " batch file(s) of batches settled before " + pruned.settledBefore()
        + (pruned.failed().isEmpty() ? "" : "; " + pruned.failed().size() + " failure(s), see the errors above") + "\n";
  }

  /**
   * JSON lines: a {@code maintained} line per maintained table (its result as the main printed it,
   * snapshot ids as strings), a {@code maintain_skipped}, {@code maintain_refused} or {@code
   * maintain_failed} line per table left alone, a {@code maintain_batch_files} line per table (its
   * batch files deleted, or on a dry run to delete, and those that could not be), then {@code
   * maintain_summary} with the counts.
   */
  public static String json(List<MaintainResult> results, List<MaintenanceGuard.Refused> refused,
      Map<String, String> failed, List<BatchFilePruning.Pruned> pruned) {
    List<ObjectNode> lines = new ArrayList<>();
    int maintained = 0;
    int skipped = 0;
    for (MaintainResult result : results) {
      if (result.skipped().isPresent()) {
        MaintainResult.Skipped s = result.skipped().get();
        lines.add(JsonLines.record("maintain_skipped").put("table", result.table()).put("reason", s.reason())
            .put("detail", s.detail()));
        skipped++;
      } else {
        ObjectNode node = JsonLines.record("maintained");
        if (result.body() instanceof ObjectNode body) {
          node.setAll(body);
        }
        lines.add(node);
        maintained++;
      }
    }
    for (MaintenanceGuard.Refused r : refused) {
      lines.add(JsonLines.record("maintain_refused").put("table", r.table()).put("batchId", r.batchId())
          .put("message", r.message()));
    }
    failed.forEach((table, message) -> lines.add(JsonLines.record("maintain_failed").put("table", table)
        .put("message", message)));
    int filesDeleted = 0;
    int filesFailed = 0;
    for (BatchFilePruning.Pruned files : pruned) {
      ObjectNode line = JsonLines.record("maintain_batch_files").put("table", files.table())
          .put("dryRun", files.dryRun()).put("settledBefore", files.settledBefore().toString())
          .put("deleted", files.deleted());
      var notDeleted = line.putArray("failed");
      files.failed().forEach((file, message) -> notDeleted.addObject().put("file", file).put("message", message));
      lines.add(line);
      filesDeleted += files.deleted();
      filesFailed += files.failed().size();
    }
    lines.add(JsonLines.record("maintain_summary").put("maintained", maintained).put("skipped", skipped)
        .put("refused", refused.size()).put("failed", failed.size()).put("batchFilesDeleted", filesDeleted)
        .put("batchFilesFailed", filesFailed));
    return JsonLines.lines(lines);
  }
}
