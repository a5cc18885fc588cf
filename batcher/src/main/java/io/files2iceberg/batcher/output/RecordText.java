package io.files2iceberg.batcher.output;

import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionRecord;
import java.time.Instant;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The ledger's records as lines for people, the same wherever an operator command prints them.
 * Absent values print as {@code -}.
 */
public final class RecordText {
  private static final String NONE = "-";

  private RecordText() {}

  /** {@code local.demo.clicks 2026-11-28: FAILED, attempts 3, marker seen, last error: ...}. */
  public static String partition(PartitionRecord partition) {
    return partition.table() + " " + partition.partition() + ": " + partition.state()
        + ", attempts " + partition.attempts()
        + (partition.markerSeen() ? ", marker seen" : ", no marker")
        + ", ready at " + time(partition.readyAt())
        + ", last batch " + partition.batchId().orElse(NONE)
        + ", last error: " + partition.lastError().orElse(NONE);
  }

  /** {@code file:///... generation 17..., 1234 bytes, INGESTED, batch ..., event ... at ...}. */
  public static String file(FileRecord file) {
    return file.uri() + " generation " + file.generation() + ": " + file.state()
        + ", " + file.size() + " bytes"
        + ", event " + file.eventId() + " at " + file.eventTime()
        + file.overwroteGeneration().map(g -> ", overwrote generation " + g).orElse("")
        + ", batch " + file.batchId().orElse(NONE)
        + file.snapshotId().map(snapshot -> ", snapshot " + snapshot).orElse("")
        + (file.state() == FileState.INGESTED ? file.rows().map(RecordText::rows).orElse(", rows unknown") : "")
        // Why it is left out: quarantined, superseded or ignored.
        + file.quarantineReason().map(reason -> ", " + file.state().code() + ": " + reason).orElse("");
  }

  /** {@code 20261130T... COMMITTED, attempts 1, snapshot 42, 3 files, created ..., updated ...}. */
  public static String batch(BatchRecord batch) {
    return batch(batch, true);
  }

  /** As {@link #batch(BatchRecord)}, without the error when the caller has printed it already. */
  public static String batch(BatchRecord batch, boolean withError) {
    return batch.batchId() + " " + batch.state() + ", table " + batch.table()
        + ", partitions " + String.join(" ", batch.partitions())
        + ", " + batch.fileIds().size() + " file(s)"
        + ", attempts " + batch.attempts()
        + (batch.launches() != batch.attempts() ? ", launches " + batch.launches() : "")
        + (batch.outcomeUnknown() ? ", outcome unknown (the table may hold it)" : "")
        + ", snapshot " + batch.snapshotId().map(String::valueOf).orElse(NONE)
        + ", created " + batch.createdAt() + ", updated " + batch.updatedAt()
        + batch.metrics().map(RecordText::metrics).orElse("")
        + batch.error().filter(error -> withError).map(error -> ", error: " + error).orElse("")
        + batch.cause().map(cause -> ", error class " + cause.errorClass()
            + cause.file().map(file -> ", file at fault " + file).orElse("")).orElse("");
  }

  /** {@code [<error class>, file <uri>]} of a failed batch the job classified, else empty text. */
  public static String cause(BatchRecord batch) {
    return batch.cause().map(cause -> " [" + cause.errorClass() + cause.file().map(file -> ", file " + file).orElse("")
        + "]").orElse("");
  }

  private static String metrics(BatchMetrics metrics) {
    return ", rows read " + metrics.rowsRead() + " inserted " + metrics.rowsInserted() + " updated "
        + metrics.rowsUpdated() + " rejected " + metrics.rowsRejected() + ", lag " + metrics.lagMillis() + " ms";
  }

  /**
   * {@code , rows read 10 rejected 1 rescued 0}, then {@code , 2 column(s) ignored} when some were
   * and {@code , expectations failed: amount_positive 3, email_set 1} when rows violated some.
   */
  private static String rows(FileRows rows) {
    return ", rows read " + rows.read() + " rejected " + rows.rejected() + " rescued " + rows.rescued()
        + (rows.ignoredColumns() > 0 ? ", " + rows.ignoredColumns() + " column(s) ignored" : "")
        + (rows.expectationsFailed().isEmpty() ? "" : ", " + expectationsFailed(rows));
  }

  /**
   * {@code expectations failed: amount_positive 3, email_set 1}: a file's rows that violated each
   * expectation, by name; empty text when they violated none.
   */
  public static String expectationsFailed(FileRows rows) {
    if (rows.expectationsFailed().isEmpty()) {
      return "";
    }
    StringJoiner text = new StringJoiner(", ", "expectations failed: ", "");
    rows.expectationsFailed().forEach((name, count) -> text.add(name + " " + count));
    return text.toString();
  }

  private static String time(Optional<Instant> time) {
    return time.map(Instant::toString).orElse(NONE);
  }
}
