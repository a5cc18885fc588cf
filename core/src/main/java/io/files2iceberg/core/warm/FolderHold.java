package io.files2iceberg.core.warm;

import io.files2iceberg.core.manifest.WarmDriverHeartbeat;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.warm.WarmFolder.Hold;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;

/**
 * How one driver holds a {@link WarmFolder}: by a lock on {@code driver.lock} where the medium
 * locks (the holder named in {@code driver.pid}), else through {@code driver.json} written with
 * generation preconditions, so that of two drivers at most one holds it.
 */
final class FolderHold {
  private FolderHold() {}

  /** Holds the folder by its lock; empty when another process holds the lock. */
  static Optional<Hold> lock(FolderMedium medium, String driverId, String fingerprint) throws IOException {
    Optional<Closeable> lock = medium.lock(WarmRequest.DRIVER_LOCK);
    if (lock.isEmpty()) {
      return Optional.empty();
    }
    try {
      medium.put(WarmRequest.DRIVER_PID, (driverId + "\n" + fingerprint + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      lock.get().close();
      throw e;
    }
    return Optional.of(new Hold() {
      @Override
      public boolean renew() {
        return true;
      }

      @Override
      public void close() throws IOException {
        // The pid goes before the lock: a batcher that finds no live driver starts one, and
        // that one takes the lock once this process has released it.
        try {
          medium.delete(WarmRequest.DRIVER_PID);
        } finally {
          lock.get().close();
        }
      }
    });
  }

  /**
   * Holds the folder through {@code driver.json}: created only where none exists, replaced only
   * at the generation read, and only when its holder is this driver or is no longer alive ({@link
   * WarmDriverHeartbeat#isAlive}).
   *
   * @return empty when another live driver holds it, or another driver's write came first
   */
  static Optional<Hold> byHeartbeat(FolderMedium medium, Clock clock, String driverId, String fingerprint)
      throws IOException {
    Optional<FolderMedium.Stored> current = medium.read(WarmRequest.DRIVER_JSON);
    if (current.isPresent()) {
      WarmDriverHeartbeat holder = heartbeat(medium, current.get());
      if (holder != null && holder.isAlive(clock.instant()) && !holder.driverId().equals(driverId)) {
        return Optional.empty();
      }
    }
    Heartbeats heartbeats = new Heartbeats(medium, clock, driverId, fingerprint);
    Optional<Long> generation = current.isEmpty()
        ? medium.createIfAbsent(WarmRequest.DRIVER_JSON, heartbeats.beat(true))
        : medium.replaceAt(WarmRequest.DRIVER_JSON, current.get().generation(), heartbeats.beat(true));
    if (generation.isEmpty()) {
      // another driver wrote it first, or our own write whose answer was lost
      generation = heartbeats.ownGeneration();
      if (generation.isEmpty()) {
        return Optional.empty();
      }
    }
    return Optional.of(new HeartbeatHold(heartbeats, generation.get()));
  }

  /** What {@code driver.json} says; null when it cannot be read as one: nobody holds the folder through it. */
  static WarmDriverHeartbeat heartbeat(FolderMedium medium, FolderMedium.Stored stored) {
    try {
      return WarmDriverHeartbeat.fromJson(WarmFolder.text(stored), medium.location() + WarmRequest.DRIVER_JSON);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** One driver's heartbeats in one folder. */
  private record Heartbeats(FolderMedium medium, Clock clock, String driverId, String fingerprint) {
    /** A heartbeat of now. */
    byte[] beat(boolean serving) {
      return new WarmDriverHeartbeat(driverId, fingerprint, clock.instant(), serving).toJson()
          .getBytes(StandardCharsets.UTF_8);
    }

    /** The generation of {@code driver.json} when it names this driver; empty when another's or none. */
    Optional<Long> ownGeneration() throws IOException {
      Optional<FolderMedium.Stored> now = medium.read(WarmRequest.DRIVER_JSON);
      WarmDriverHeartbeat holder = now.map(stored -> heartbeat(medium, stored)).orElse(null);
      return holder != null && holder.driverId().equals(driverId) ? now.map(FolderMedium.Stored::generation)
          : Optional.empty();
    }
  }

  /** The holder's {@code driver.json}, renewed at the generation it last wrote. */
  private static final class HeartbeatHold implements Hold {
    private final Heartbeats heartbeats;
    private long generation;

    HeartbeatHold(Heartbeats heartbeats, long generation) {
      this.heartbeats = heartbeats;
      this.generation = generation;
    }

    @Override
    public synchronized boolean renew() throws IOException {
      return write(true);
    }

    @Override
    public synchronized void close() throws IOException {
      write(false);
    }

    private boolean write(boolean serving) throws IOException {
      Optional<Long> written = heartbeats.medium().replaceAt(WarmRequest.DRIVER_JSON, generation,
          heartbeats.beat(serving));
      if (written.isEmpty()) {
        written = heartbeats.ownGeneration();
      }
      written.ifPresent(now -> generation = now);
      return written.isPresent();
    }
  }
}
