package io.files2iceberg.ledger.firestore;

import com.google.api.gax.rpc.ApiException;
import com.google.cloud.firestore.FirestoreException;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one ledger operation, retrying what Firestore names transient with exponential backoff and
 * jitter, within a bound; then {@link LedgerUnavailableException} (the caller may try again later).
 * Any other Firestore error surfaces at once as {@link IllegalStateException}. Both name the
 * operation and the document or collection. The ledger's own exceptions (an illegal transition, an
 * unknown id) pass through unchanged and are never retried.
 *
 * <p>Transactions already rerun on contention inside the client ({@code
 * TransactionOptions#setNumberOfAttempts}); this bound is around that, for a backend that stays
 * busy or away. Every retried unit is idempotent or re-checks the state it changes.
 */
final class FirestoreRetry {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreRetry.class);

  /** ABORTED: contention outlasting the client's own reruns; the rest: the backend is busy or away. */
  static final Set<Status.Code> TRANSIENT = EnumSet.of(
      Status.Code.ABORTED, Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED, Status.Code.RESOURCE_EXHAUSTED);

  static final FirestoreRetry DEFAULT = new FirestoreRetry(5, Duration.ofMillis(100), Duration.ofSeconds(2));

  /** A unit of work against Firestore. */
  @FunctionalInterface
  interface Work<T> {
    T run() throws Exception;
  }

  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;

  FirestoreRetry(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    this.maxAttempts = maxAttempts;
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
  }

  /**
   * @param operation the ledger method, e.g. {@code claimPartitions}
   * @param path the document or collection it is about, e.g. {@code dev_batches/20240501T...}
   */
  <T> T run(String operation, String path, Work<T> work) {
    long backoff = initialBackoff.toMillis();
    for (int attempt = 1; ; attempt++) {
      Throwable failure;
      try {
        return work.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LedgerUnavailableException("Ledger " + operation + " for " + path + " was interrupted", e);
      } catch (Exception e) {
        failure = unwrap(e);
      }
      Optional<Status.Code> code = statusCode(failure);
      if (code.isEmpty()) {
        // Ours (IllegalTransitionException, IllegalArgumentException for an unknown id, ...) or a
        // client-side programming error: never retried.
        throw failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(
            "Ledger " + operation + " failed for " + path + ": " + failure, failure);
      }
      if (!TRANSIENT.contains(code.get())) {
        throw new IllegalStateException(
            "Ledger " + operation + " failed for " + path + ": " + code.get() + " " + message(failure), failure);
      }
      if (attempt >= maxAttempts) {
        throw new LedgerUnavailableException("Ledger " + operation + " for " + path + ": Firestore answered "
            + code.get() + " " + attempt + " times (" + message(failure) + ")", failure);
      }
      long sleep = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
      LOG.warn("Ledger {} for {}: {} (attempt {} of {}), retrying in {} ms",
          operation, path, code.get(), attempt, maxAttempts, sleep);
      try {
        Thread.sleep(sleep);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LedgerUnavailableException("Ledger " + operation + " for " + path + " was interrupted", e);
      }
      backoff = Math.min(maxBackoff.toMillis(), backoff * 2);
    }
  }

  /** The exception that says what went wrong, below the future's and the client's wrappers. */
  private static Throwable unwrap(Throwable e) {
    Throwable current = e;
    while (current instanceof ExecutionException && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  /** The gRPC status of a Firestore failure, anywhere in the cause chain; empty for anything else. */
  static Optional<Status.Code> statusCode(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof FirestoreException firestore && firestore.getStatus() != null) {
        return Optional.of(firestore.getStatus().getCode());
      }
      if (t instanceof ApiException api) {
        return Optional.of(Status.Code.valueOf(api.getStatusCode().getCode().name()));
      }
      if (t instanceof StatusRuntimeException grpc) {
        return Optional.of(grpc.getStatus().getCode());
      }
    }
    return Optional.empty();
  }

  private static String message(Throwable failure) {
    String message = failure.getMessage();
    return message == null ? failure.getClass().getSimpleName() : message;
  }
}
