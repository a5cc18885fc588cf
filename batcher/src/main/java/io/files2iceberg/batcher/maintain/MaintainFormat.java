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
   * The landing cleanup of one table: {@code local.demo.clicks: landing cleanup (delete, loaded
   * before 2026-10-24T16:13:22Z): 12 deleted, 0 archived, 1 already gone, 0 finished from an
   * earlier run}, on a dry run what would be done and the first files; with how many failed.
   */
  public static String human(LandingCleanup.Cleaned cleaned) {
    StringBuilder text = new StringBuilder();
    text.append(cleaned.table()).append(": landing cleanup (").append(cleaned.action()).append(", loaded before ")
        .append(cleaned.ingestedBefore()).append(")");
    if (cleaned.dryRun()) {
      text.append(": would ").append(cleaned.action()).append(' ')
          .append(cleaned.deleted() + cleaned.archived()).append(" file(s)");
      if (cleaned.finished() > 0) {
        text.append(", and finish ").append(cleaned.finished()).append(" begun by an earlier run");
      }
    } else {
      text.append(": ").append(cleaned.deleted()).append(" deleted, ").append(cleaned.archived())
          .append(" archived, ").append(cleaned.alreadyGone()).append(" already gone, ").append(cleaned.finished())
          .append(" finished from an earlier run");
    }
    if (!cleaned.failed().isEmpty()) {
      text.append("; ").append(cleaned.failed().size()).append(" failure(s), see the errors above");
    }
    text.append('\n');
    cleaned.files().forEach(file -> text.append("    ").append(file).append('\n'));
    int more = cleaned.deleted() + cleaned.archived() - cleaned.files().size();
    if (cleaned.dryRun() && more > 0) {
      text.append("    ... and ").append(more).append(" more\n");
    }
    return text.toString();
  }

  /** Without landing cleanup. */
  public static String json(List<MaintainResult> results, List<MaintenanceGuard.Refused> refused,
      Map<String, String> failed, List<BatchFilePruning.Pruned> pruned) {
    return json(results, refused, failed, pruned, List.of());
  }

  /**
   * JSON lines: a {@code maintained} line per maintained table (its result as the main printed it,
   * snapshot ids as strings), a {@code maintain_skipped}, {@code maintain_refused} or {@code
   * maintain_failed} line per table left alone, a {@code maintain_batch_files} line per table (its
   * batch files deleted, or on a dry run to delete, and those that could not be), a {@code
   * maintain_landing_cleanup} line per table whose landing is cleaned, then {@code
   * maintain_summary} with the counts.
   */
  public static String json(List<MaintainResult> results, List<MaintenanceGuard.Refused> refused,
      Map<String, String> failed, List<BatchFilePruning.Pruned> pruned, List<LandingCleanup.Cleaned> cleaned) {
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
    for (LandingCleanup.Cleaned landing : cleaned) {
      ObjectNode line = JsonLines.record("maintain_landing_cleanup").put("table", landing.table())
          .put("action", landing.action()).put("dryRun", landing.dryRun())
          .put("ingestedBefore", landing.ingestedBefore().toString()).put("deleted", landing.deleted())
          .put("archived", landing.archived()).put("alreadyGone", landing.alreadyGone())
          .put("finished", landing.finished());
      var named = line.putArray("files");
      landing.files().forEach(named::add);
      var notCleaned = line.putArray("failed");
      landing.failed().forEach((object, message) -> notCleaned.addObject().put("object", object)
          .put("message", message));
      lines.add(line);
    }
    lines.add(JsonLines.record("maintain_summary").put("maintained", maintained).put("skipped", skipped)
        .put("refused", refused.size()).put("failed", failed.size()).put("batchFilesDeleted", filesDeleted)
        .put("batchFilesFailed", filesFailed));
    return JsonLines.lines(lines);
  }
}
