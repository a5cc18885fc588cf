package io.files2iceberg.listener;

import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listener started as the child of another process (the embedded {@code local} pipeline) ends
 * when that process has ended, however it ended: a parent killed with {@code SIGKILL} cannot stop
 * its child, and a listener left behind would go on acking pushes for a pipeline that no longer
 * batches. The parent passes its process id in {@value #PARENT_PID_PROPERTY}; the watch checks it
 * every {@link #EVERY} and exits the JVM when it is gone, which stops the service as {@code
 * SIGTERM} does (messages in flight finish, the ledger closes).
 */
final class ParentWatch {
  private static final Logger LOG = LoggerFactory.getLogger(ParentWatch.class);

  /** System property with the process id of the parent the listener must not outlive. */
  static final String PARENT_PID_PROPERTY = "files2iceberg.listener.parent-pid";
  static final Duration EVERY = Duration.ofSeconds(1);

  private ParentWatch() {}

  /**
   * Parses {@value #PARENT_PID_PROPERTY}; empty when it is not set.
   *
   * @throws IllegalArgumentException naming the property when it is not a process id
   */
  static Optional<Long> parentPid(String value) {
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    try {
      long pid = Long.parseLong(value.trim());
      if (pid > 0) {
        return Optional.of(pid);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("-D" + PARENT_PID_PROPERTY + " \"" + value + "\" is not a process id");
  }

  /**
   * Watches the parent from a daemon thread. The handle is taken now, so a process that later
   * reuses the parent's id is not mistaken for it (a handle's liveness checks the start time too).
   * A parent that has ended already ends this process at once.
   */
  static void start(long pid) {
    Optional<ProcessHandle> parent = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
    if (parent.isEmpty()) {
      stop(pid);
      return;
    }
    Thread watch = new Thread(() -> {
      try {
        while (parent.get().isAlive()) {
          Thread.sleep(EVERY.toMillis());
        }
        stop(pid);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "parent-watch");
    watch.setDaemon(true);
    watch.start();
  }

  private static void stop(long pid) {
    LOG.warn("The process {} that started this listener has ended; stopping the listener", pid);
    System.exit(0);
  }
}
