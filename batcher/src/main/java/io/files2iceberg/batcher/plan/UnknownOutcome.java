package io.files2iceberg.batcher.plan;

import io.files2iceberg.core.ledger.BatchRecord;

/**
 * Whether a batch gave up without knowing whether its job committed: the table may hold it. Such a
 * batch is never loaded again in a new batch (that could put an Append table's rows in twice):
 * {@code retry} revives it under its own id, and its relaunch finds it in the table's snapshots if
 * it committed. {@link #of} is the one place that reads it; {@link SettlementWriter} the one place
 * that writes it.
 */
public final class UnknownOutcome {
  /** In the error of a batch that gave up with an unknown outcome, for the operator who reads it. */
  public static final String PHRASE = "the table may hold the batch";

  private UnknownOutcome() {}

  /**
   * Whether the batch gave up with an unknown outcome; still true of one that {@code retry} revived
   * ({@code Ledger#reviveBatch} keeps the error).
   */
  public static boolean of(BatchRecord batch) {
    return batch.error().filter(error -> error.contains(PHRASE)).isPresent();
  }

  /** The error of a batch that gives up after {@code attempts} with an unknown outcome. */
  static String gaveUp(int attempts, String why) {
    return "gave up after " + attempts + " attempt(s); " + PHRASE + ": " + why;
  }
}
