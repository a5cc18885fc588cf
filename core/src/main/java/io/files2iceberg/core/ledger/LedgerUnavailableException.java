package io.files2iceberg.core.ledger;

/** The store did not answer or was busy; the same call may succeed later. */
public class LedgerUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LedgerUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
