package io.files2iceberg.batcher.engine.launch;

/**
 * The job could not be started or watched. {@link #isRetryable()}: a later try may succeed (a
 * quota, an unavailable API); otherwise something must be fixed first (a missing build, a bad
 * setting).
 */
public class LaunchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean retryable;

  public LaunchException(String message, boolean retryable) {
    super(message);
    this.retryable = retryable;
  }

  public LaunchException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  public boolean isRetryable() {
    return retryable;
  }
}
