package io.files2iceberg.core.ledger;

import java.util.Objects;
import java.util.Optional;

/**
 * Fails a batch in flight ({@link Ledger#failBatch}).
 *
 * @param error why, kept on the batch and on the partitions it releases
 * @param maxAttempts at least 1: a partition whose attempts reach it becomes FAILED
 * @param outcomeUnknown the batch gave up without knowing whether its job committed: the table may
 *     hold it, so a retry revives it under its own id ({@link Ledger#reviveBatch}) instead of
 *     loading its files in a new batch
 * @param cause the error class and the file at fault, when the job classified the failure
 */
public record FailBatch(String batchId, String error, int maxAttempts, boolean outcomeUnknown,
    Optional<FailureCause> cause) {
  public FailBatch {
    Objects.requireNonNull(batchId, "batchId");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(cause, "cause");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
  }

  /** A failure without a classified cause (the job did not say, or no job ran). */
  public FailBatch(String batchId, String error, int maxAttempts, boolean outcomeUnknown) {
    this(batchId, error, maxAttempts, outcomeUnknown, Optional.empty());
  }
}
