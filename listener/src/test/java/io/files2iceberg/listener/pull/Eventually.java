package io.files2iceberg.listener.pull;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/** Waits for what another thread or process does, failing with what was awaited. */
final class Eventually {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private Eventually() {}

  static void await(String what, BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(TIMEOUT);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("Not within " + TIMEOUT.toSeconds() + " s: " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("Interrupted while waiting for: " + what, e);
      }
    }
  }
}
