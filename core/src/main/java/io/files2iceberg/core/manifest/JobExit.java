package io.files2iceberg.core.manifest;

/**
 * How a run of the Spark job ended: its process exit code, which its {@link AttemptResult} also
 * records for the batcher's launchers.
 *
 * <ul>
 *   <li>{@code 0} loaded, or already committed; the result's report (and the last stdout line) is
 *       the {@link BatchLoadReport}
 *   <li>{@code 1} the batch failed and nothing was committed; the result's error (and stderr's last
 *       line) names the table, the batch and what is at fault
 *   <li>{@code 2} the manifest cannot be read or does not match the ledger's batch
 *   <li>{@code 3} the rows are committed to Iceberg but the ledger checkpoint failed; running the
 *       same manifest again finalizes it from the snapshot summary
 *   <li>{@code 4} the batch cannot be loaded as it is (an unreadable file without
 *       {@code quarantine-bad-files}, a bad record with {@code on-bad-record = fail}, a schema change
 *       the table cannot take); nothing was committed and running it again fails the same way
 * </ul>
 */
public enum JobExit {
  LOADED(0),
  FAILED(1),
  INVALID_MANIFEST(2),
  CHECKPOINT_FAILED(3),
  REJECTED(4);

  private final int code;

  JobExit(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** Whether running the same batch again can succeed without an operator's fix. */
  public boolean isRetryable() {
    return this == FAILED || this == CHECKPOINT_FAILED;
  }

  /** The outcome of an exit code; any code the job does not use (a crash, a kill) is FAILED. */
  public static JobExit fromCode(int code) {
    for (JobExit exit : values()) {
      if (exit.code == code) {
        return exit;
      }
    }
    return FAILED;
  }
}
