package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The module's test support fails a test during which a warm-driver batch thread died. */
class WarmBatchThreadsWatchedTest {
  @Test
  void aBatchThreadThatDiesFailsTheTestItDiedIn() throws InterruptedException {
    WarmBatchThreadsWatched watch = new WarmBatchThreadsWatched();
    watch.beforeAll(null);
    watch.beforeEach(null);
    Thread thread = new Thread(() -> {
      throw new IllegalStateException("escaped the batch");
    }, WarmBatchThreadsWatched.PREFIX + "test");
    thread.start();
    thread.join();

    assertThatThrownBy(() -> watch.afterEach(null)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("warm-batch-test: java.lang.IllegalStateException: escaped the batch");
    // Reported once: the test that follows starts clean.
    watch.beforeEach(null);
    watch.afterEach(null);
    assertThat(thread.isAlive()).isFalse();
  }
}
