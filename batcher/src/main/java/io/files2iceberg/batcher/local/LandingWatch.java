package io.files2iceberg.batcher.local;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the local pipeline when a file or folder appears under the landing folder, so that a new
 * file (a success marker above all) is posted at once rather than at the next scan: the scan
 * interval bounds the wait, it is no longer the wait.
 *
 * <p>Every non-hidden folder is watched for new entries (the operating system's file events:
 * inotify on Linux), a new folder as soon as it appears. Writes into an existing file are not
 * watched: they would wake the pipeline on every block of a large copy, and a file is posted once
 * it has settled anyway ({@link LandingNotifier#SETTLE}). Where the events are not available (the
 * system's limit of watches reached, a file system without them), {@link #await} sleeps for the
 * whole timeout, as the pipeline did before; the first folder that cannot be watched is logged.
 *
 * <p>Not thread-safe: the pipeline's thread waits.
 */
final class LandingWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LandingWatch.class);
  /**
   * The shortest time between two wake-ups: folders created one by one (a partition's day, then its
   * files) wake the pipeline once, not once each.
   */
  static final Duration DEBOUNCE = Duration.ofMillis(100);

  private final Path landing;
  private final WatchService service;
  private final Map<WatchKey, Path> folders = new HashMap<>();
  private boolean complete = true;

  private LandingWatch(Path landing, WatchService service) {
    this.landing = landing;
    this.service = service;
  }

  /** A watch of {@code landing} and every non-hidden folder under it; one that only sleeps if none can be had. */
  static LandingWatch on(Path landing) {
    Path root = landing.toAbsolutePath().normalize();
    WatchService service;
    try {
      service = root.getFileSystem().newWatchService();
    } catch (IOException | UnsupportedOperationException e) {
      LOG.warn("Cannot watch {} for new files ({}); it is scanned at the interval only", root, e.toString());
      return new LandingWatch(root, null);
    }
    LandingWatch watch = new LandingWatch(root, service);
    watch.registerTree(root);
    return watch;
  }

  /** Whether every folder under the landing folder is watched (false where events are unavailable). */
  boolean isComplete() {
    return service != null && complete;
  }

  /**
   * Waits until something appears under the landing folder or {@code timeout} passes, whichever
   * comes first; returns at once for a timeout that is not positive.
   *
   * @return whether something appeared
   */
  boolean await(Duration timeout) throws InterruptedException {
    if (timeout.isNegative() || timeout.isZero()) {
      return false;
    }
    if (service == null) {
      TimeUnit.NANOSECONDS.sleep(timeout.toNanos());
      return false;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      WatchKey key;
      try {
        key = service.poll(left, TimeUnit.NANOSECONDS);
      } catch (ClosedWatchServiceException e) {
        TimeUnit.NANOSECONDS.sleep(Math.max(0, deadline - System.nanoTime()));
        return false;
      }
      if (key == null) {
        return false;
      }
      // Whatever else appears meanwhile is taken with this wake-up.
      TimeUnit.NANOSECONDS.sleep(Math.min(DEBOUNCE.toNanos(), Math.max(0, deadline - System.nanoTime())));
      boolean appeared = false;
      while (key != null) {
        appeared |= take(key);
        key = service.poll();
      }
      if (appeared) {
        return true;
      }
    }
  }

  /**
   * Registers the new folders of a key's events and makes the key watch again.
   *
   * @return whether a non-hidden entry appeared (or events were lost)
   */
  private boolean take(WatchKey key) {
    Path folder = folders.get(key);
    boolean appeared = false;
    for (WatchEvent<?> event : key.pollEvents()) {
      if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
        // Events were lost: whatever they were, the next scan sees it; new folders get watched.
        registerTree(landing);
        appeared = true;
      } else if (folder != null && event.context() instanceof Path name && !LandingNotifier.isHidden(name)) {
        appeared = true;
        Path created = folder.resolve(name);
        if (Files.isDirectory(created)) {
          registerTree(created);
        }
      }
    }
    if (!key.reset()) {
      folders.remove(key);
    }
    return appeared;
  }

  /** Registers {@code top} and every non-hidden folder under it. */
  private void registerTree(Path top) {
    try {
      Files.walkFileTree(top, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
          if (!dir.equals(landing) && LandingNotifier.isHidden(dir)) {
            return FileVisitResult.SKIP_SUBTREE;
          }
          return register(dir) ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      LOG.debug("Cannot walk {} to watch it: {}", top, e.toString());
    }
  }

  private boolean register(Path dir) {
    try {
      folders.put(dir.register(service, StandardWatchEventKinds.ENTRY_CREATE), dir);
      return true;
    } catch (ClosedWatchServiceException e) {
      return false;
    } catch (IOException e) {
      if (complete) {
        LOG.warn("Cannot watch {} for new files ({}); folders past it are scanned at the interval only", dir,
            e.toString());
      }
      complete = false;
      return false;
    }
  }

  @Override
  public void close() {
    if (service != null) {
      try {
        service.close();
      } catch (IOException e) {
        LOG.debug("Closing the watch of {}: {}", landing, e.toString());
      }
    }
  }
}
