package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ExpectationCounts;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.stage.Loaded;
import io.files2iceberg.sparkjob.stage.Sink;
import io.files2iceberg.sparkjob.transform.TransformedBatch;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last sink: publishes what the batch did, once its rows are in the table. Its metrics go to
 * the ledger, with the checkpoint (batch COMMITTED with the snapshot id; skipped when the manifest
 * says so), and to stdout as the one JSON line of {@link BatchLoadReport}. It runs after {@link
 * IcebergLoad} and reads its outcome, and that of {@link RejectedRowsLoad} when there is one.
 */
public final class BatchLoadMetricsPublisher implements Sink<TransformedBatch, BatchLoadReport> {
  private static final Logger LOG = LoggerFactory.getLogger(BatchLoadMetricsPublisher.class);

  private final LedgerCheckpoint checkpoint;
  private final Clock clock;
  private final PrintStream out;

  /**
   * @param ledger where the checkpoint goes; empty when the manifest says not to write one
   * @param out where the metrics line goes: the job's stdout
   */
  public BatchLoadMetricsPublisher(Optional<Ledger> ledger, Clock clock, PrintStream out) {
    this.checkpoint = new LedgerCheckpoint(Objects.requireNonNull(ledger, "ledger"));
    this.clock = Objects.requireNonNull(clock, "clock");
    this.out = Objects.requireNonNull(out, "out");
  }

  @Override
  public BatchLoadReport write(TransformedBatch input, Loaded earlier) {
    IcebergCommitted committed = earlier.get(IcebergCommitted.class);
    LoadBatch batch = input.batch();
    if (committed.alreadyCommitted()) {
      return publishAlreadyCommitted(batch, committed.snapshotId());
    }
    Optional<RejectsWritten> rejects = earlier.find(RejectsWritten.class);
    BatchMetrics metrics = new BatchMetrics(
        input.extracted().filesRead().size(),
        input.extracted().bytesRead(),
        input.rowsRead(),
        input.rowsFiltered(),
        committed.rowsInserted(),
        committed.rowsUpdated(),
        committed.rowsUnchanged(),
        input.rowsRejected(),
        input.readTime().toMillis(),
        committed.mergeTime().toMillis(),
        committed.commitTime().toMillis(),
        lag(batch.manifest()),
        committed.rowsDeleted());
    return publish(batch, false, committed.snapshotId(), metrics, input.extracted().quarantined(),
        rejects.flatMap(RejectsWritten::table), input.fileRows(), input.quality().byExpectation());
  }

  /**
   * Publishes a batch the table already holds (a re-run, or recovery after a failed checkpoint):
   * zero metrics, and the checkpoint with the snapshot that holds it.
   */
  public BatchLoadReport publishAlreadyCommitted(LoadBatch batch, long snapshotId) {
    return publish(batch, true, snapshotId, BatchMetrics.EMPTY, List.of(), Optional.empty(), Map.of(), Map.of());
  }

  private BatchLoadReport publish(LoadBatch batch, boolean alreadyCommitted, long snapshotId, BatchMetrics metrics,
      List<QuarantinedFile> quarantined, Optional<String> rejectedTable, Map<String, FileRows> fileRows,
      Map<String, ExpectationCounts> quality) {
    LedgerCheckpoint.Result result = checkpoint.commit(batch.table(), batch.batchId(), snapshotId, metrics, fileRows);
    BatchLoadReport report = new BatchLoadReport(batch.table(), batch.batchId(), alreadyCommitted, snapshotId,
        result.checkpoint(), result.error(), metrics, quarantined, rejectedTable, fileRows, quality);
    String line = report.toMetricsLine();
    LOG.info("Table {} batch {}: {}", batch.table(), batch.batchId(), line);
    out.println(line);
    out.flush();
    return report;
  }

  /** From the oldest event of the batch to now. */
  private long lag(BatchManifest manifest) {
    Optional<Instant> oldest = manifest.files().stream().map(ManifestFile::eventTime).min(Instant::compareTo);
    return oldest.map(t -> Math.max(0, Duration.between(t, clock.instant()).toMillis())).orElse(0L);
  }
}
