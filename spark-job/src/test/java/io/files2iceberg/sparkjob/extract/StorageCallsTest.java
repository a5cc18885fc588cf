package io.files2iceberg.sparkjob.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StorageCallsTest {

  @Test
  void callsGoOutEightAtATimeAndTheirResultsComeBackInTheItemsOrder() {
    List<Integer> items = IntStream.range(0, 40).boxed().toList();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    // The first eight calls wait for each other: a pool of fewer threads would never release them.
    CountDownLatch eightTogether = new CountDownLatch(StorageCalls.THREADS);

    List<String> results = StorageCalls.each(items, "generations", item -> {
      most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        eightTogether.countDown();
        if (!eightTogether.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("fewer than eight calls at once");
        }
        return "generation of " + item;
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      } finally {
        inFlight.decrementAndGet();
      }
    });

    assertThat(most.get()).isEqualTo(StorageCalls.THREADS);
    assertThat(results).containsExactlyElementsOf(items.stream().map(item -> "generation of " + item).toList());
  }

  @Test
  void oneCallIsMadeOnTheCallersThread() {
    Thread caller = Thread.currentThread();

    assertThat(StorageCalls.each(List.of("a"), "generations", item -> Thread.currentThread() == caller))
        .containsExactly(true);
    assertThat(StorageCalls.each(List.<String>of(), "generations", item -> true)).isEmpty();
  }

  @Test
  void aFailedCallFailsTheWholeWithWhatItThrew() {
    IllegalStateException transientFailure = new IllegalStateException("cannot check the generation of gs://b/3");

    assertThatThrownBy(() -> StorageCalls.each(List.of(1, 2, 3, 4), "generations", item -> {
      if (item == 3) {
        throw transientFailure;
      }
      return item;
    })).isSameAs(transientFailure);
  }

  @Test
  void aCheckedExceptionThrownUndeclaredComesBackAsItIsAsSparksDo() {
    IOException undeclared = new IOException("Job aborted due to stage failure: ExecutorLostFailure");

    assertThatThrownBy(() -> StorageCalls.each(List.of(1, 2), "generations", item -> {
      throw StorageCallsTest.<RuntimeException>sneaky(undeclared);
    })).isSameAs(undeclared);
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable thrown) throws T {
    throw (T) thrown;
  }
}
