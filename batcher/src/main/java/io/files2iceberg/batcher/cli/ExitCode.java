package io.files2iceberg.batcher.cli;

/**
 * The exit codes of the commands besides {@code 0}; docs/reference/exit-codes.md is generated from
 * them ({@link ExitCodesReference}). The Spark job's own codes are {@code core.manifest.JobExit}.
 */
public final class ExitCode {
  /** A failure while running: the message on stderr names what failed. */
  public static final int FAILED = 1;
  /** Invalid configuration or usage: every problem is listed. */
  public static final int INVALID = 2;
  /** {@code reconcile} left drift. */
  public static final int DRIFT = 3;
  /** {@code status}: a partition FAILED or a table STOPPED, an operator has something to do. */
  public static final int ATTENTION = 5;

  private ExitCode() {}
}
