package io.files2iceberg.batcher.output;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.engine.BatchEvent.BatchReattached;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.engine.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.core.manifest.BatchLoadReport;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@code batch run-once}, {@code local} and {@code demo} print with {@code --json}: one JSON
 * object per line per event ({@link JsonLines}), its kind first in {@code event}, the other fields
 * named as the operator commands' JSON names them ({@code table}, {@code batchId}, {@code
 * partitions}, {@code files}, {@code snapshotId}, {@code rowsInserted} ...), absent values {@code
 * null}, snapshot ids as strings.
 *
 * <pre>{@code
 * {"event":"claimed","table":"local.demo.clicks","batchId":"20261130T143844-bef3ca80","mode":"incremental","saveCheckpoint":true,"partitions":["2026-11-27"],"files":3}
 * {"event":"launched","table":"local.demo.clicks","batchId":"20261130T143844-bef3ca80","attempt":1,"jobId":"warm driver pid 5189","log":...}
 * {"event":"committed","table":"local.demo.clicks","batchId":"20261130T143844-bef3ca80","alreadyCommitted":false,"snapshotId":"7321991787168455437","checkpoint":"committed","files":3,...,"rowsInserted":290,...}
 * {"event":"run_finished","committed":1,"failed":0,"recovered":0,"inFlight":0,"rowsWritten":290,"errors":[],"elapsedMillis":20415}
 * }</pre>
 */
public final class EventJson {
  private EventJson() {}

  /** A new event of this kind: {@code {"event": kind}}. */
  public static ObjectNode event(String kind) {
    return JsonLines.event(kind);
  }

  /** Prints the event on its own line, whole even when tables report from several threads. */
  public static void print(PrintWriter out, ObjectNode event) {
    JsonLines.print(out, event);
  }

  /**
   * A batch's event: {@code claimed}, {@code superseded}, {@code launched}, {@code recovered},
   * {@code reattached}, {@code committed} (with every field of the job's metrics line) or {@code
   * failed}.
   */
  public static ObjectNode batch(BatchEvent event) {
    if (event instanceof BatchClaimed claimed) {
      ObjectNode node = batch("claimed", event);
      node.put("mode", claimed.mode().code());
      node.put("saveCheckpoint", claimed.saveCheckpoint());
      RecordJson.strings(node.putArray("partitions"), claimed.partitions());
      return node.put("files", claimed.files());
    }
    if (event instanceof PartitionsSuperseded superseded) {
      ObjectNode node = batch("superseded", event);
      RecordJson.strings(node.putArray("partitions"), superseded.partitions());
      return node;
    }
    if (event instanceof BatchLaunched launched) {
      return job(batch("launched", event).put("attempt", launched.attempt()), launched.jobId(), launched.log());
    }
    if (event instanceof BatchRecovered recovered) {
      return batch("recovered", event).put("attempt", recovered.attempt());
    }
    if (event instanceof BatchReattached reattached) {
      return job(batch("reattached", event).put("attempt", reattached.attempt()), reattached.jobId(),
          reattached.log());
    }
    if (event instanceof BatchCommitted committed) {
      ObjectNode node = batch("committed", event);
      // The report's own codec: the fields and names of the job's metrics line.
      BatchLoadReport report = committed.report();
      node.setAll((ObjectNode) JsonLines.parse(report.toMetricsLine()).get(BatchLoadReport.METRICS_KEY));
      return node;
    }
    if (event instanceof BatchFailed failed) {
      ObjectNode node = batch("failed", event);
      node.put("error", failed.error());
      if (failed.cause().isPresent()) {
        node.put("errorClass", failed.cause().get().errorClass());
        failed.cause().get().file().ifPresentOrElse(file -> node.put("errorFile", file), () -> node.putNull("errorFile"));
      } else {
        node.putNull("errorClass");
        node.putNull("errorFile");
      }
      if (failed.exit().isPresent()) {
        node.put("exitCode", failed.exit().get().code());
        node.put("exit", code(failed.exit().get().name()).replace('_', '-'));
      } else {
        node.putNull("exitCode");
        node.putNull("exit");
      }
      return node.put("after", code(failed.after().name()));
    }
    throw new IllegalArgumentException("No JSON form for " + event);
  }

  /** {@code run_finished}: what one run of the batcher did, as {@code run:} says it. */
  public static ObjectNode runFinished(RunSummary summary) {
    ObjectNode node = event("run_finished");
    node.put("batches", summary.batches());
    node.put("committed", summary.committed().size());
    node.put("failed", summary.failed().size());
    node.put("recovered", summary.recovered().size());
    node.put("inFlight", summary.inFlight().size());
    node.put("rowsWritten", summary.rowsWritten());
    RecordJson.strings(node.putArray("errors"), summary.errors());
    return node.put("elapsedMillis", summary.elapsed().toMillis());
  }

  /** {@code error}: a problem that stopped a table, also on stderr. */
  public static ObjectNode error(String message) {
    return event("error").put("error", message);
  }

  private static ObjectNode batch(String kind, BatchEvent event) {
    return event(kind).put("table", event.table()).put("batchId", event.batchId());
  }

  private static ObjectNode job(ObjectNode node, String jobId, Optional<String> log) {
    node.put("jobId", jobId);
    return log.isPresent() ? node.put("log", log.get()) : node.putNull("log");
  }

  private static String code(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
