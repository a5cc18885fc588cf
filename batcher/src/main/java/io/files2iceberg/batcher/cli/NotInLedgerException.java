package io.files2iceberg.batcher.cli;

/**
 * An operator named a table, partition, batch, file or message the ledger does not know; the
 * message names it. Commands exit with the usage code, having changed nothing.
 */
public final class NotInLedgerException extends RuntimeException {
  public NotInLedgerException(String message) {
    super(message);
  }
}
