package io.files2iceberg.batcher.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The landing folder's file events, as `local` waits on them between scans (inotify here). */
class LandingWatchTest {
  /** Far longer than any wake-up takes: a wait that runs out means no event woke it. */
  private static final Duration LONG = Duration.ofSeconds(30);

  @TempDir Path landing;

  /** Runs {@code action} on another thread once {@code millis} have passed. */
  private static CompletableFuture<Void> later(long millis, Action action) {
    return CompletableFuture.runAsync(() -> {
      try {
        TimeUnit.MILLISECONDS.sleep(millis);
        action.run();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private interface Action {
    void run() throws Exception;
  }

  @Test
  void aMarkerLandingInAWatchedFolderEndsTheWaitLongBeforeItsTimeout() throws Exception {
    Path day = Files.createDirectories(landing.resolve("clicks/dt=2026-11-27"));
    try (LandingWatch watch = LandingWatch.on(landing)) {
      assertThat(watch.isComplete()).isTrue();
      CompletableFuture<Void> marker = later(200, () -> Files.writeString(day.resolve("_SUCCESS"), ""));
      long start = System.nanoTime();

      assertThat(watch.await(LONG)).isTrue();

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG.dividedBy(2));
      marker.join();
    }
  }

  @Test
  void aFolderThatAppearsAfterTheWatchStartedIsWatchedToo() throws Exception {
    try (LandingWatch watch = LandingWatch.on(landing)) {
      later(100, () -> Files.createDirectories(landing.resolve("clicks/dt=2026-11-28")));
      assertThat(watch.await(LONG)).isTrue();

      // The day's folder (under a folder that did not exist either) now wakes the watch.
      later(100, () -> Files.writeString(landing.resolve("clicks/dt=2026-11-28/part-0.json"), "{}\n"));
      long start = System.nanoTime();
      assertThat(watch.await(LONG)).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LONG.dividedBy(2));
    }
  }

  @Test
  void hiddenFilesAndFoldersDoNotWakeItAndNothingWaitsTheWholeTimeout() throws Exception {
    Path day = Files.createDirectories(landing.resolve("clicks/dt=2026-11-27"));
    try (LandingWatch watch = LandingWatch.on(landing)) {
      CompletableFuture<Void> hidden = later(50, () -> {
        Files.createDirectories(landing.resolve(".staging/clicks"));
        Files.writeString(day.resolve(".part-0.json.crc"), "x");
      });
      long start = System.nanoTime();

      assertThat(watch.await(Duration.ofMillis(800))).isFalse();

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(800));
      hidden.join();
      // Nor does anything under the hidden folder, which is not watched.
      later(50, () -> Files.writeString(landing.resolve(".staging/clicks/part-0.json"), "{}\n"));
      assertThat(watch.await(Duration.ofMillis(500))).isFalse();
    }
  }

  @Test
  void aClosedWatchSleepsTheTimeoutInstead() throws Exception {
    LandingWatch watch = LandingWatch.on(landing);
    watch.close();
    long start = System.nanoTime();

    assertThat(watch.await(Duration.ofMillis(300))).isFalse();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(watch.await(Duration.ZERO)).isFalse();
  }
}
