package io.files2iceberg.batcher.history;

import io.files2iceberg.core.ledger.FileRows;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * One line of the load history: what one batch did with one file (as Snowpipe's COPY_HISTORY
 * has a line per file load), or a file quarantined outside any batch.
 *
 * @param time when it happened: the batch's commit or failure, or the file's recording for a file
 *     quarantined outside a batch
 * @param batchId the batch; empty for a file quarantined outside a batch
 * @param snapshotId the Iceberg snapshot that holds the file's rows; empty unless INGESTED
 * @param rows what the job counted of the file's rows in this batch; empty when unknown (a file
 *     loaded before files were counted, one that failed, or one loaded again by a later batch)
 * @param detail why it is not loaded: the batch's error, or the quarantine (supersede, ignore)
 *     reason
 */
public record FileLoad(
    Instant time,
    String table,
    String partition,
    String uri,
    long generation,
    String fileId,
    Outcome outcome,
    Optional<String> batchId,
    Optional<Long> snapshotId,
    Optional<FileRows> rows,
    Optional<String> detail) {

  /** What became of the file in that batch. Codes are what the output says. */
  public enum Outcome {
    /** Its rows are in the table, in the batch's snapshot. */
    INGESTED,
    /** Its batch failed; the file waits for a later batch (or is in one already). */
    FAILED,
    /** It could not be read and is left out until released. */
    QUARANTINED,
    /** Its generation was gone when the batch read it; the newer generation has its own line. */
    SUPERSEDED,
    /** A rewrite of a loaded object left out under {@code extract.on-overwrite = ignore}. */
    IGNORED;

    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
