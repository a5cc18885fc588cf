package io.files2iceberg.batcher.engine;

import io.files2iceberg.batcher.output.Counted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one {@link BatchRunner#runOnce()} did.
 *
 * @param committed every batch that committed, with its report (snapshot id, rows)
 * @param failed every batch that did not
 * @param recovered batches taken over from an expired lease (each also committed or failed)
 * @param errors problems that stopped a table before a batch existed (the ledger unavailable), one
 *     line each naming the table
 * @param inFlight batches whose job was launched (or found running) and left running, not waited
 *     for ({@link RunOptions#waitForJobs()} false)
 * @param elapsed how long the run took
 */
public record RunSummary(
    List<BatchCommitted> committed,
    List<BatchFailed> failed,
    List<BatchRecovered> recovered,
    List<String> errors,
    List<InFlight> inFlight,
    Duration elapsed) {

  /** A batch whose job runs on after the run ended: its table, its id and the job's id. */
  public record InFlight(String table, String batchId, String jobId) {
    public InFlight {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(batchId, "batchId");
      Objects.requireNonNull(jobId, "jobId");
    }
  }

  /** A run that waited for every job it launched. */
  public RunSummary(List<BatchCommitted> committed, List<BatchFailed> failed, List<BatchRecovered> recovered,
      List<String> errors, Duration elapsed) {
    this(committed, failed, recovered, errors, List.of(), elapsed);
  }

  public RunSummary {
    inFlight = List.copyOf(inFlight);
    committed = List.copyOf(committed);
    failed = List.copyOf(failed);
    recovered = List.copyOf(recovered);
    errors = List.copyOf(errors);
    Objects.requireNonNull(elapsed, "elapsed");
  }

  /** Whether nothing failed. */
  public boolean isClean() {
    return failed.isEmpty() && errors.isEmpty();
  }

  /**
   * The batches the run settled, committed or failed (recovered ones are among them), and those it
   * left running; 0 when there was nothing to do, which is a clean run.
   */
  public int batches() {
    return committed.size() + failed.size() + inFlight.size();
  }

  /** Rows inserted plus updated by every committed batch. */
  public long rowsWritten() {
    return committed.stream()
        .mapToLong(c -> c.report().metrics().rowsInserted() + c.report().metrics().rowsUpdated())
        .sum();
  }

  /** One line: {@code 2 committed (1500 rows), 1 failed, 0 recovered in 41s}; {@code (1 row)} for one. */
  public String describe() {
    return committed.size() + " committed (" + Counted.of(rowsWritten(), "row", "rows") + "), " + failed.size() + " failed, "
        + recovered.size() + " recovered" + (inFlight.isEmpty() ? "" : ", " + inFlight.size() + " still running")
        + (errors.isEmpty() ? "" : ", " + errors.size() + " error(s)")
        + " in " + elapsed.toSeconds() + "s";
  }
}
