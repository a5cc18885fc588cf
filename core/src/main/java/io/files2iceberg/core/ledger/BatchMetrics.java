package io.files2iceberg.core.ledger;

/**
 * What one batch did. Durations in milliseconds; {@code lagMillis} runs from the oldest event of
 * the batch to its commit.
 */
public record BatchMetrics(
    long files,
    long bytes,
    long rowsRead,
    long rowsFiltered,
    long rowsInserted,
    long rowsUpdated,
    long rowsUnchanged,
    long rowsRejected,
    long readMillis,
    long mergeMillis,
    long commitMillis,
    long lagMillis) {

  public static final BatchMetrics EMPTY = new BatchMetrics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
