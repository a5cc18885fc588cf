package io.files2iceberg.ledger.firestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.firestore.FirestoreException;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FirestoreRetryTest {
  private final FirestoreRetry retry = new FirestoreRetry(4, Duration.ofMillis(1), Duration.ofMillis(4));
  private final AtomicInteger calls = new AtomicInteger();

  @Test
  void transientErrorsAreRetriedUntilTheCallSucceeds() {
    String result = retry.run("recordFile", "dev_files/abc", () -> {
      if (calls.incrementAndGet() < 3) {
        throw new ExecutionException(FirestoreException.forServerRejection(Status.ABORTED, "contention"));
      }
      return "done";
    });

    assertThat(result).isEqualTo("done");
    assertThat(calls).hasValue(3);
  }

  @Test
  void transientErrorsBeyondTheBoundAreReportedUnavailableNamingTheDocument() {
    assertThatThrownBy(() -> retry.run("markRunning", "dev_batches/b-1", () -> {
      calls.incrementAndGet();
      throw Status.UNAVAILABLE.withDescription("connection refused").asRuntimeException();
    }))
        .isInstanceOf(LedgerUnavailableException.class)
        .hasMessage("Ledger markRunning for dev_batches/b-1: Firestore answered UNAVAILABLE 4 times "
            + "(UNAVAILABLE: connection refused)");
    assertThat(calls).hasValue(4);
  }

  @Test
  void aCallThatGetsNoAnswerFailsUnavailableWithinTheDeadlineNamingTheDocument() {
    FirestoreRetry bounded = new FirestoreRetry(4, Duration.ofMillis(1), Duration.ofMillis(4), Duration.ofMillis(300));
    CountDownLatch interrupted = new CountDownLatch(1);
    long start = System.nanoTime();

    assertThatThrownBy(() -> bounded.run("recordFile", "dev_files/abc", () -> {
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.countDown();
        throw e;
      }
      return "never";
    }))
        .isInstanceOf(LedgerUnavailableException.class)
        .hasMessage("Ledger recordFile for dev_files/abc: Firestore did not answer within 300 ms (ledger.deadline), attempt 1");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    // The abandoned attempt is cancelled, not left waiting.
    assertThat(awaitQuietly(interrupted)).isTrue();
  }

  @Test
  void retriesStopWhenTheNextBackoffWouldPassTheDeadline() {
    FirestoreRetry bounded = new FirestoreRetry(50, Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofMillis(500));

    assertThatThrownBy(() -> bounded.run("markRunning", "dev_batches/b-1", () -> {
      calls.incrementAndGet();
      throw Status.UNAVAILABLE.withDescription("connection refused").asRuntimeException();
    }))
        .isInstanceOf(LedgerUnavailableException.class)
        .hasMessageStartingWith("Ledger markRunning for dev_batches/b-1: Firestore answered UNAVAILABLE ")
        .hasMessageEndingWith(" times within 500 ms (ledger.deadline) (UNAVAILABLE: connection refused)");
    assertThat(calls.get()).isBetween(2, 5);
  }

  private static boolean awaitQuietly(CountDownLatch latch) {
    try {
      return latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Test
  void otherFirestoreErrorsSurfaceAtOnceNamingTheDocument() {
    assertThatThrownBy(() -> retry.run("quarantineMessage", "dev_quarantine/m-1", () -> {
      calls.incrementAndGet();
      throw new ExecutionException(FirestoreException.forServerRejection(Status.INVALID_ARGUMENT, "too big"));
    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Ledger quarantineMessage failed for dev_quarantine/m-1: INVALID_ARGUMENT");
    assertThat(calls).hasValue(1);
  }

  @Test
  void theLedgersOwnErrorsPassThroughUnchangedAndAreNotRetried() {
    IllegalTransitionException illegal = new IllegalTransitionException("Cannot commit batch b-1: expected ...");

    assertThatThrownBy(() -> retry.run("commitBatch", "dev_batches/b-1", () -> {
      calls.incrementAndGet();
      throw new ExecutionException(illegal);
    })).isSameAs(illegal);
    assertThat(calls).hasValue(1);
  }
}
