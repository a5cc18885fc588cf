package io.files2iceberg.batcher.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT as a request to stop, instead of the JVM's immediate shutdown: {@code serve}
 * finishes its current run (a job in flight keeps its batch consistent) and exits 0, as Cloud Run
 * and Kubernetes expect within their grace period; {@code local} and {@code demo} stop in order, and
 * {@code listen} passes the stop on to its listener child.
 */
public final class StopSignals {
  private static final Logger LOG = LoggerFactory.getLogger(StopSignals.class);

  private StopSignals() {}

  public static void onTermination(Runnable stop) {
    onTermination("stopping after the current run", stop);
  }

  /** As {@link #onTermination(Runnable)}, logging {@code what} the stop does. */
  public static void onTermination(String what, Runnable stop) {
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        Signal.handle(new Signal(name), signal -> {
          LOG.info("SIG{}: {}", signal.getName(), what);
          stop.run();
        });
      } catch (IllegalArgumentException e) {
        LOG.debug("Cannot handle SIG{} here: {}", name, e.getMessage());
      }
    }
  }
}
