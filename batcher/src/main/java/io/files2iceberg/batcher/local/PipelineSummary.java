package io.files2iceberg.batcher.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.local.LocalPipeline.CommittedBatch;
import io.files2iceberg.batcher.output.Counted;
import io.files2iceberg.batcher.output.EventJson;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.engine.BatchEvent.BatchReattached;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.engine.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.manifest.BatchLoadReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@link LocalPipeline} prints: each batch event as a line for people, what a scan of the
 * landing folder posted, and the summary of what the pipeline committed, as lines or JSON events.
 */
final class PipelineSummary {
  private final PipelineOutput output;

  PipelineSummary(PipelineOutput output) {
    this.output = output;
  }

  /** The event as a line for people. */
  static String line(BatchEvent event) {
    if (event instanceof BatchClaimed claimed) {
      return "batch " + claimed.batchId() + " claimed: " + Counted.of(claimed.files(), "file", "files")
          + " in " + partitions(claimed.partitions()) + " (" + claimed.table() + ", mode "
          + claimed.mode().code() + ")";
    } else if (event instanceof BatchLaunched launched) {
      return "batch " + launched.batchId() + " launched: " + launched.jobId()
          + (launched.attempt() > 1 ? " (attempt " + launched.attempt() + ")" : "");
    } else if (event instanceof BatchRecovered recovered) {
      return "batch " + recovered.batchId() + " recovered after its lease expired; launching attempt "
          + recovered.attempt();
    } else if (event instanceof BatchReattached reattached) {
      return "batch " + reattached.batchId() + " recovered after its lease expired; its attempt "
          + reattached.attempt() + " (" + reattached.jobId() + ") still runs, waiting for it";
    } else if (event instanceof PartitionsSuperseded superseded) {
      return "partitions " + partitions(superseded.partitions()) + " superseded by batch " + superseded.batchId()
          + " (mode last loads only the newest)";
    } else if (event instanceof BatchCommitted done) {
      BatchLoadReport report = done.report();
      if (report.alreadyCommitted()) {
        return "batch " + done.batchId() + " committed: already in snapshot " + report.snapshotId()
            + " (ledger finalized)";
      }
      return "batch " + done.batchId() + " committed: snapshot " + report.snapshotId() + ", "
          + Counted.of(report.metrics().rowsInserted(), "row", "rows") + " inserted, " + report.metrics().rowsUpdated()
          + " updated";
    } else if (event instanceof BatchFailed batchFailed) {
      return "batch " + batchFailed.batchId() + " failed: " + batchFailed.error() + " ("
          + batchFailed.after().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
    }
    return event.describe();
  }

  /**
   * Prints what this pipeline committed: one row per batch (table, batch id, partitions, files,
   * rows inserted and updated, snapshot) and a total, then each table's state in the ledger; or,
   * when nothing was committed, that every table is unchanged.
   */
  void print(Duration elapsed, Collection<TableStatus> statuses, List<CommittedBatch> batches) {
    if (output.isJson()) {
      printEvents(elapsed, statuses, batches);
      return;
    }
    if (batches.isEmpty()) {
      for (TableStatus status : statuses) {
        say("nothing new; table " + status.table() + " unchanged ("
            + status.lastCommitted().flatMap(BatchRecord::snapshotId).map(id -> "snapshot " + id).orElse("no snapshot yet")
            + ", " + ingested(status) + ")");
      }
      return;
    }
    say("done in " + elapsed.toSeconds() + "s: " + Counted.of(batches.size(), "batch", "batches")
        + " committed");
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"table", "batch", "partitions", "files", "inserted", "updated", "snapshot"});
    long files = 0;
    long inserted = 0;
    long updated = 0;
    Set<String> partitions = new TreeSet<>();
    for (CommittedBatch batch : batches) {
      BatchLoadReport report = batch.report();
      rows.add(new String[] {batch.table(), batch.batchId(), partitions(batch.partitions()),
          Integer.toString(batch.files()), Long.toString(report.metrics().rowsInserted()),
          Long.toString(report.metrics().rowsUpdated()), Long.toString(report.snapshotId())});
      files += batch.files();
      inserted += report.metrics().rowsInserted();
      updated += report.metrics().rowsUpdated();
      batch.partitions().forEach(p -> partitions.add(batch.table() + "|" + p));
    }
    rows.add(new String[] {"total", "", Counted.of(partitions.size(), "partition", "partitions"),
        Long.toString(files), Long.toString(inserted), Long.toString(updated), ""});
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < row.length; i++) {
        boolean number = i == 3 || i == 4 || i == 5;
        String padding = " ".repeat(widths[i] - row[i].length());
        line.append(number ? padding + row[i] : row[i] + (i < row.length - 1 ? padding : "")).append("  ");
      }
      output.text(line.toString().stripTrailing());
    }
    for (TableStatus status : statuses) {
      say("table " + status.table() + ": " + ingested(status)
          + status.lastCommitted().flatMap(BatchRecord::snapshotId).map(id -> ", current snapshot " + id).orElse(""));
    }
  }

  /**
   * The summary as events: a {@code table} event per table with its partitions and files by state
   * and its current snapshot, then {@code summary} (batches committed, their partitions, files and
   * rows; all zero when nothing was new).
   */
  private void printEvents(Duration elapsed, Collection<TableStatus> statuses, List<CommittedBatch> batches) {
    Set<String> partitions = new TreeSet<>();
    batches.forEach(batch -> batch.partitions().forEach(p -> partitions.add(batch.table() + "|" + p)));
    ObjectNode summary = EventJson.event("summary").put("elapsedMillis", elapsed.toMillis())
        .put("batchesCommitted", batches.size()).put("partitions", partitions.size())
        .put("files", batches.stream().mapToLong(CommittedBatch::files).sum())
        .put("rowsInserted", batches.stream().mapToLong(b -> b.report().metrics().rowsInserted()).sum())
        .put("rowsUpdated", batches.stream().mapToLong(b -> b.report().metrics().rowsUpdated()).sum())
        .put("rowsDeleted", batches.stream().mapToLong(b -> b.report().metrics().rowsDeleted()).sum());
    for (TableStatus status : statuses) {
      ObjectNode table = EventJson.event("table").put("table", status.table());
      Optional<Long> snapshot = status.lastCommitted().flatMap(BatchRecord::snapshotId);
      if (snapshot.isPresent()) {
        table.put("snapshotId", snapshot.get());
      } else {
        table.putNull("snapshotId");
      }
      ObjectNode byState = table.putObject("partitions");
      status.partitionsByState().forEach((state, count) -> byState.put(state.code(), count));
      ObjectNode files = table.putObject("files");
      status.filesByState().forEach((state, count) -> files.put(state.code(), count));
      output.event(() -> table);
    }
    // The summary comes last, as in every --json output.
    output.event(() -> summary);
  }

  /** {@code posted}: what one scan of the landing folder posted, by the listener's outcome. */
  static ObjectNode posted(LandingNotifier.ScanResult scan) {
    ObjectNode node = EventJson.event("posted").put("posted", scan.posted()).put("markers", scan.markers());
    ObjectNode outcomes = node.putObject("outcomes");
    for (LandingNotifier.Outcome outcome : LandingNotifier.Outcome.values()) {
      if (scan.count(outcome) > 0) {
        outcomes.put(outcome.code(), scan.count(outcome));
      }
    }
    return node.put("pending", scan.pending());
  }

  /** {@code 3 partitions ingested (10 files)}, plus any partitions in other states. */
  private static String ingested(TableStatus status) {
    long partitions = status.partitionsByState().getOrDefault(PartitionState.INGESTED, 0L);
    long files = status.filesByState().getOrDefault(FileState.INGESTED, 0L);
    StringBuilder text = new StringBuilder()
        .append(Counted.of(partitions, "partition", "partitions")).append(" ingested (")
        .append(Counted.of(files, "file", "files")).append(')');
    status.partitionsByState().forEach((state, count) -> {
      if (state != PartitionState.INGESTED && count > 0) {
        text.append(", ").append(count).append(' ').append(state.code());
      }
    });
    return text.toString();
  }

  /** Up to three partitions, then how many more. */
  static String partitions(List<String> partitions) {
    if (partitions.isEmpty()) {
      return "no partition";
    }
    if (partitions.size() <= 3) {
      return String.join(", ", partitions);
    }
    return String.join(", ", partitions.subList(0, 3)) + " and " + (partitions.size() - 3) + " more";
  }

  /** A line for people (none with {@code --json}). */
  private void say(String line) {
    output.say(line);
  }
}
