package io.files2iceberg.batcher.retry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.output.RecordJson;
import io.files2iceberg.batcher.output.RecordText;
import io.files2iceberg.core.ledger.PartitionRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The two forms of {@code retry}'s report: the recorded errors of what is revived and re-queued,
 * then what was (nothing in a dry run).
 *
 * <pre>
 * 1 batch(es) to revive:
 *   batch 20261130T120000-1a2b3c4d: its outcome is unknown; relaunched under its own id by the next ...
 *     20261130T120000-1a2b3c4d FAILED, table local.demo.clicks, ..., error: gave up after 3 attempt(s); ...
 *     local.demo.clicks 2026-11-28: FAILED, attempts 1, marker seen, ..., last error: ...
 * Revived 1 batch(es): PLANNED again with attempts reset and the lease expired.
 * 1 partition(s) to re-queue (batch 20261130T120000-5e6f7a8b):
 *   local.demo.clicks 2026-11-29: FAILED, attempts 1, marker seen, ..., last error: ...
 *     failed in batch 20261130T120000-5e6f7a8b FAILED, ..., error: ...
 * Re-queued 1 partition(s): READY with attempts reset; the next batch run loads them.
 * </pre>
 */
public final class RetryFormat {
  /** Why a batch is revived rather than re-queued. */
  static final String REVIVED_BECAUSE = "its outcome is unknown; relaunched under its own id by the next batcher"
      + " run, which finds it in the table if it committed";

  private RetryFormat() {}

  public static String human(RetryPlan plan, RetryPlan.Applied applied, boolean dryRun) {
    if (plan.isEmpty()) {
      return "Nothing to retry: " + plan.batchId().map(id -> "no partition of batch " + id + " is FAILED or READY")
          .orElse("no FAILED partition") + ".\n";
    }
    StringBuilder out = new StringBuilder();
    if (!plan.revivals().isEmpty()) {
      out.append(plan.revivals().size()).append(" batch(es) to revive:\n");
      for (RetryPlan.Revival revival : plan.revivals()) {
        out.append("  batch ").append(revival.batch().batchId()).append(": ").append(REVIVED_BECAUSE).append('\n');
        out.append("    ").append(RecordText.batch(revival.batch())).append('\n');
        revival.partitions().forEach(partition -> out.append("    ").append(RecordText.partition(partition)).append('\n'));
      }
      if (!dryRun) {
        out.append("Revived ").append(applied.revived().size())
            .append(" batch(es): PLANNED again with attempts reset and the lease expired.\n");
      }
    }
    if (!plan.targets().isEmpty()) {
      out.append(plan.targets().size()).append(" partition(s) to re-queue")
          .append(plan.batchId().map(id -> " (batch " + id + ")").orElse("")).append(":\n");
      for (RetryPlan.Target target : plan.targets()) {
        out.append("  ").append(RecordText.partition(target.partition())).append('\n');
        // The batch's error is usually the partition's last error: printed once.
        target.batch().ifPresent(batch -> out.append("    last batch ")
            .append(RecordText.batch(batch, !batch.error().equals(target.partition().lastError()))).append('\n'));
      }
      if (!dryRun) {
        out.append("Re-queued ").append(applied.requeued().size())
            .append(" partition(s): READY with attempts reset; the next batch run loads them.\n");
      }
    }
    if (dryRun) {
      out.append(plan.revivals().isEmpty() ? "Dry run: nothing re-queued.\n" : "Dry run: nothing revived or re-queued.\n");
    }
    return out.toString();
  }

  /**
   * JSON lines: a {@code revival} per batch to revive ({@code reason}, {@code batch}, {@code
   * partitionRecords}), a {@code requeue} per partition to re-queue (the partition's fields and its
   * {@code lastBatch}), then what was done, a {@code revived} batch or {@code requeued} partition a
   * line as it is now (none in a dry run), then {@code retry_summary} with the counts.
   */
  public static String json(RetryPlan plan, RetryPlan.Applied applied, boolean dryRun) {
    List<ObjectNode> lines = new ArrayList<>();
    for (RetryPlan.Revival revival : plan.revivals()) {
      ObjectNode node = JsonLines.record("revival");
      node.put("reason", REVIVED_BECAUSE);
      RecordJson.batch(node.putObject("batch"), revival.batch());
      ArrayNode partitions = node.putArray("partitionRecords");
      revival.partitions().forEach(partition -> RecordJson.partition(partitions.addObject(), partition));
      lines.add(node);
    }
    for (RetryPlan.Target target : plan.targets()) {
      ObjectNode node = RecordJson.partition(JsonLines.record("requeue"), target.partition());
      if (target.batch().isPresent()) {
        RecordJson.batch(node.putObject("lastBatch"), target.batch().get());
      } else {
        node.putNull("lastBatch");
      }
      lines.add(node);
    }
    applied.revived().forEach(batch -> lines.add(RecordJson.batch(JsonLines.record("revived"), batch)));
    for (PartitionRecord partition : applied.requeued()) {
      lines.add(RecordJson.partition(JsonLines.record("requeued"), partition));
    }
    ObjectNode summary = JsonLines.record("retry_summary");
    summary.put("dryRun", dryRun);
    summary.put("batchId", plan.batchId().orElse(null));
    summary.put("toRevive", plan.revivals().size());
    summary.put("toRequeue", plan.targets().size());
    summary.put("revived", applied.revived().size());
    summary.put("requeued", applied.requeued().size());
    lines.add(summary);
    return JsonLines.lines(lines);
  }
}
