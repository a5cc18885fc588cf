package io.files2iceberg.ledger.firestore;

import com.google.api.gax.rpc.ApiException;
import com.google.cloud.firestore.FirestoreException;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.profile.LedgerSettings;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

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
 *
 * <p>The whole call, every attempt and every backoff, fits in one deadline ({@code
 * ledger.deadline}): a Firestore that is frozen or unreachable answers nothing at all, and a
 * caller waiting on it would hold a Pub/Sub push past its acknowledgement deadline. Each attempt
 * runs on a worker thread that the caller waits for no longer than what is left of the deadline;
 * past it the attempt is cancelled (interrupted) and the call fails with {@link
 * LedgerUnavailableException}. A cancelled attempt's commit may still land later: every unit is
 * idempotent, so the redelivered message finds it (a duplicate) rather than recording it twice.
 */
final class FirestoreRetry {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreRetry.class);

  /** ABORTED: contention outlasting the client's own reruns; the rest: the backend is busy or away. */
  static final Set<Status.Code> TRANSIENT = EnumSet.of(
      Status.Code.ABORTED, Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED, Status.Code.RESOURCE_EXHAUSTED);

  static final int DEFAULT_ATTEMPTS = 5;
  static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
  static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);

  static final FirestoreRetry DEFAULT = new FirestoreRetry(DEFAULT_ATTEMPTS, DEFAULT_INITIAL_BACKOFF,
      DEFAULT_MAX_BACKOFF, LedgerSettings.DEFAULT_DEADLINE);

  private static final AtomicInteger WORKERS = new AtomicInteger();
  /**
   * Runs the attempts. Unbounded, because a worker lives no longer than its caller waits: an
   * attempt past its deadline is interrupted, and Firestore's futures end their waits on interrupt.
   */
  private static final ExecutorService ATTEMPTS = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "firestore-ledger-" + WORKERS.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  });

  /** A unit of work against Firestore. */
  @FunctionalInterface
  interface Work<T> {
    T run() throws Exception;
  }

  private final int maxAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final Duration deadline;

  FirestoreRetry(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    this(maxAttempts, initialBackoff, maxBackoff, LedgerSettings.DEFAULT_DEADLINE);
  }

  FirestoreRetry(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration deadline) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("ledger.deadline: must be positive, was " + deadline);
    }
    this.maxAttempts = maxAttempts;
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
    this.deadline = deadline;
  }

  /** The default attempts and backoff within {@code deadline}. */
  static FirestoreRetry within(Duration deadline) {
    return new FirestoreRetry(DEFAULT_ATTEMPTS, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, deadline);
  }

  /** The budget of one call, retries included. */
  Duration deadline() {
    return deadline;
  }

  /**
   * @param operation the ledger method, e.g. {@code claimPartitions}
   * @param path the document or collection it is about, e.g. {@code dev_batches/20240501T...}
   */
  <T> T run(String operation, String path, Work<T> work) {
    long end = System.nanoTime() + deadline.toNanos();
    long backoff = initialBackoff.toMillis();
    for (int attempt = 1; ; attempt++) {
      Throwable failure;
      try {
        return attempt(work, end);
      } catch (TimeoutException e) {
        throw new LedgerUnavailableException("Ledger " + operation + " for " + path
            + ": Firestore did not answer within " + deadlineText() + " (ledger.deadline), attempt " + attempt, e);
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
      long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
      if (sleep >= left) {
        // Another attempt could not finish within the deadline.
        throw new LedgerUnavailableException("Ledger " + operation + " for " + path + ": Firestore answered "
            + code.get() + " " + attempt + " times within " + deadlineText() + " (ledger.deadline) ("
            + message(failure) + ")", failure);
      }
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

  /** One attempt, on a worker, waited for until {@code end} (a {@link System#nanoTime()}). */
  private static <T> T attempt(Work<T> work, long end) throws Exception {
    // The caller's logging context (message id, object URI) goes with the attempt.
    Map<String, String> context = MDC.getCopyOfContextMap();
    Future<T> call = ATTEMPTS.submit(() -> {
      if (context != null) {
        MDC.setContextMap(context);
      }
      try {
        return work.run();
      } finally {
        MDC.clear();
      }
    });
    try {
      return call.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | InterruptedException e) {
      call.cancel(true);
      throw e;
    }
  }

  private String deadlineText() {
    return deadline.toMillis() % 1000 == 0 ? deadline.toSeconds() + " s" : deadline.toMillis() + " ms";
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
