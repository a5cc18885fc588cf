package io.files2iceberg.sparkjob;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails any test of this module during which a warm driver's batch thread ({@code warm-batch-N})
 * died with an uncaught exception: the warm driver must turn every exception of a batch into its
 * result, and a thread that dies leaves the batch without one. Registered for every test class
 * (META-INF/services and {@code junit.jupiter.extensions.autodetection.enabled}).
 */
public final class WarmBatchThreadsWatched implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
  /** The name prefix of the warm driver's batch threads. */
  static final String PREFIX = "warm-batch-";

  private static final List<String> DIED = new CopyOnWriteArrayList<>();
  private static volatile boolean installed;

  @Override
  public void beforeAll(ExtensionContext context) {
    install();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    DIED.clear();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (!DIED.isEmpty()) {
      List<String> died = List.copyOf(DIED);
      DIED.clear();
      throw new AssertionError("a warm-driver batch thread died with an uncaught exception during this test: "
          + died);
    }
  }

  /** Records every uncaught exception of a batch thread; the JVM's handler still gets it. */
  private static synchronized void install() {
    if (installed) {
      return;
    }
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
      if (thread.getName().startsWith(PREFIX)) {
        DIED.add(thread.getName() + ": " + error);
      }
      if (previous != null) {
        previous.uncaughtException(thread, error);
      } else {
        System.err.print("Exception in thread \"" + thread.getName() + "\" ");
        error.printStackTrace(System.err);
      }
    });
    installed = true;
  }
}
