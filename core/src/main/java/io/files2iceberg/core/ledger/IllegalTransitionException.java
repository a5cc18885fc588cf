package io.files2iceberg.core.ledger;

/**
 * A state transition whose precondition did not hold, e.g. {@code Cannot commit batch b-1: expected
 * state RUNNING or PLANNED, actual FAILED}. Never retryable.
 */
public class IllegalTransitionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public IllegalTransitionException(String message) {
    super(message);
  }
}
