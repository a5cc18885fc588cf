package io.files2iceberg.batcher.engine;

/**
 * The error of a batch that gave up without knowing whether its job committed: the table may hold
 * it ({@link io.files2iceberg.core.ledger.BatchRecord#outcomeUnknown}, which {@link SettlementWriter}
 * sets). Such a batch is never loaded again in a new batch (that could put an Append table's rows in
 * twice): {@code retry} revives it under its own id, and its relaunch finds it in the table's
 * snapshots if it committed. The error says so for the operator who reads it.
 */
public final class UnknownOutcome {
  /** In the error of a batch that gave up with an unknown outcome. */
  public static final String PHRASE = "the table may hold the batch";

  private UnknownOutcome() {}

  /** The error of a batch that gives up after {@code attempts} with an unknown outcome. */
  static String gaveUp(int attempts, String why) {
    return "gave up after " + attempts + " attempt(s); " + PHRASE + ": " + why;
  }
}
