package io.files2iceberg.sparkjob.warm;

import java.time.Duration;
import java.time.Instant;

/**
 * How long a warm driver waits between two looks at its folder: the folder's base poll after a
 * look that found work (a run going on or just ended, a request taken, a cancel seen), and after
 * each look that found none twice the last wait, up to the folder's idle cap. A wait never passes
 * a time the driver must look at (its next heartbeat, its idle-timeout exit), and is never shorter
 * than the base poll: the heartbeat and the exit come at most one base poll late, as with a
 * steady poll.
 */
final class PollSchedule {
  private final Duration base;
  private final Duration cap;
  private Duration last;

  PollSchedule(Duration base, Duration cap) {
    if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
      throw new IllegalArgumentException("poll " + base + ", idle cap " + cap);
    }
    this.base = base;
    this.cap = cap;
    this.last = base;
  }

  /**
   * The wait after a look.
   *
   * @param busy whether the look found work
   * @param now the time of the look
   * @param due the times the driver must look at
   */
  Duration next(boolean busy, Instant now, Instant... due) {
    last = busy ? base : min(last.multipliedBy(2), cap);
    Duration wait = last;
    for (Instant time : due) {
      wait = min(wait, Duration.between(now, time));
    }
    return wait.compareTo(base) < 0 ? base : wait;
  }

  private static Duration min(Duration one, Duration other) {
    return one.compareTo(other) <= 0 ? one : other;
  }
}
