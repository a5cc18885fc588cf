package io.files2iceberg.batcher.local;

/**
 * The listener refused a notification for good (a {@code 4xx}): the push path, or the
 * authentication the profiles ask for, does not fit the embedded mode. Retrying cannot help.
 */
public final class NotifierException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NotifierException(String message) {
    super(message);
  }
}
