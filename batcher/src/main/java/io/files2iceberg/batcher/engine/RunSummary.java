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
 * @param elapsed how long the run took
 */
public record RunSummary(
    List<BatchCommitted> committed,
    List<BatchFailed> failed,
    List<BatchRecovered> recovered,
    List<String> errors,
    Duration elapsed) {

  public RunSummary {
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
   * The batches the run settled, committed or failed (recovered ones are among them); 0 when there
   * was nothing to do, which is a clean run.
   */
  public int batches() {
    return committed.size() + failed.size();
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
        + recovered.size() + " recovered" + (errors.isEmpty() ? "" : ", " + errors.size() + " error(s)")
        + " in " + elapsed.toSeconds() + "s";
  }
}
