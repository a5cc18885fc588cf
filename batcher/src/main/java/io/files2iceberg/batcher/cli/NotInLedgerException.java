package io.files2iceberg.batcher.cli;

/**
 * An operator named a table, partition, batch, file or message the ledger does not know; the
 * message names it. Commands exit with the usage code, having changed nothing.
 */
public final class NotInLedgerException extends RuntimeException {
  public NotInLedgerException(String message) {
    super(message);
  }

  /** No table {@code name} in the ledger, nor in the profiles when the command was given them. */
  public static NotInLedgerException table(String name, LedgerAccess.Opened opened) {
    return new NotInLedgerException("no table " + name + " in the ledger"
        + (opened.profiles().isPresent() ? " or the profiles" : ""));
  }
}
