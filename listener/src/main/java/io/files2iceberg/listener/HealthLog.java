package io.files2iceberg.listener;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one {@code /health} check's changes: where the listener shows no details (the network
 * reaches it), this is where the reason it is DOWN is read. Logs once when the check goes DOWN or
 * its reason changes and once when it is UP again, never once per probe.
 */
public final class HealthLog {
  private static final Logger LOG = LoggerFactory.getLogger(HealthLog.class);

  private final String check;
  /** The reason of the last observation, empty while UP. */
  private final AtomicReference<Optional<String>> last = new AtomicReference<>(Optional.empty());

  /** A log of the check named {@code check} in {@code /health} ({@code ledger}, {@code pull}). */
  public HealthLog(String check) {
    this.check = check;
  }

  /** What the check found now: the reason it is DOWN, or empty when UP. */
  public void observe(Optional<String> down) {
    Optional<String> before = last.getAndSet(down);
    if (down.isPresent() && !down.equals(before)) {
      LOG.warn("/health is DOWN ({}): {}", check, down.get());
    } else if (down.isEmpty() && before.isPresent()) {
      LOG.info("/health is UP again ({})", check);
    }
  }
}
