package io.files2iceberg.batcher.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.plan.BatchRunner;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.PartitionRecord;
import java.util.List;

/**
 * The two forms of {@code retry}'s report: the recorded errors of what is re-queued, then what was
 * re-queued (nothing in a dry run).
 *
 * <pre>
 * 1 partition(s) to re-queue (batch 20261130T120000-1a2b3c4d):
 *   local.demo.clicks 2026-11-28: FAILED, attempts 1, marker seen, ..., last error: ...
 *     failed in batch 20261130T120000-1a2b3c4d FAILED, ..., error: ...
 * Re-queued 1 partition(s): READY with attempts reset; the next batch run loads them.
 * </pre>
 */
public final class RetryFormat {
  private RetryFormat() {}

  public static String human(RetryPlan plan, List<PartitionRecord> requeued, boolean dryRun) {
    if (plan.isEmpty()) {
      return "Nothing to retry: " + plan.batchId().map(id -> "no partition of batch " + id + " is FAILED or READY")
          .orElse("no FAILED partition") + ".\n";
    }
    StringBuilder out = new StringBuilder();
    out.append(plan.targets().size()).append(" partition(s) to re-queue")
        .append(plan.batchId().map(id -> " (batch " + id + ")").orElse("")).append(":\n");
    for (RetryPlan.Target target : plan.targets()) {
      out.append("  ").append(RecordText.partition(target.partition())).append('\n');
      // The batch's error is usually the partition's last error: printed once.
      target.batch().ifPresent(batch -> out.append("    last batch ")
          .append(RecordText.batch(batch, !batch.error().equals(target.partition().lastError()))).append('\n'));
      if (target.batch().filter(RetryFormat::mayBeInTable).isPresent()) {
        out.append("    warning: batch ").append(target.batch().get().batchId()).append(" may be in the table already"
            + " (its outcome is unknown): a new batch loads its files again, which a table with a primary key"
            + " or Overwrite absorbs but an Append table without a key does not; look for its id in the table's"
            + " snapshots (files2iceberg.batch-id) first\n");
      }
    }
    if (dryRun) {
      out.append("Dry run: nothing re-queued.\n");
    } else {
      out.append("Re-queued ").append(requeued.size())
          .append(" partition(s): READY with attempts reset; the next batch run loads them.\n");
    }
    return out.toString();
  }

  /** The batch gave up without knowing whether its job committed. */
  static boolean mayBeInTable(BatchRecord batch) {
    return batch.error().filter(error -> error.contains(BatchRunner.MAY_HOLD_BATCH)).isPresent();
  }

  public static String json(RetryPlan plan, List<PartitionRecord> requeued, boolean dryRun) {
    ObjectNode root = RecordJson.object();
    root.put("dryRun", dryRun);
    if (plan.batchId().isPresent()) {
      root.put("batchId", plan.batchId().get());
    } else {
      root.putNull("batchId");
    }
    ArrayNode targets = root.putArray("toRequeue");
    for (RetryPlan.Target target : plan.targets()) {
      ObjectNode node = RecordJson.partition(targets.addObject(), target.partition());
      node.put("lastBatchMayBeInTable", target.batch().filter(RetryFormat::mayBeInTable).isPresent());
      if (target.batch().isPresent()) {
        RecordJson.batch(node.putObject("lastBatch"), target.batch().get());
      } else {
        node.putNull("lastBatch");
      }
    }
    ArrayNode done = root.putArray("requeued");
    requeued.forEach(partition -> RecordJson.partition(done.addObject(), partition));
    return RecordJson.write(root);
  }
}
