package io.files2iceberg.ledger.firestore;

import java.util.Optional;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a test class the run's {@link FirestoreEmulator} and prints every test skipped with the
 * reason (the console, not only the report, must say why a test did not run).
 */
public final class FirestoreEmulatorExtension implements BeforeAllCallback, TestWatcher {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreEmulatorExtension.class);

  private FirestoreEmulator emulator;

  @Override
  public void beforeAll(ExtensionContext context) {
    emulator = FirestoreEmulator.of(context);
  }

  public FirestoreEmulator emulator() {
    if (emulator == null) {
      throw new IllegalStateException("The Firestore emulator is not started: register the extension as a static field");
    }
    return emulator;
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    LOG.warn("SKIPPED {}.{}: {}", context.getRequiredTestClass().getSimpleName(), context.getDisplayName(),
        cause.getMessage());
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {
    LOG.warn("SKIPPED {}.{}: {}", context.getRequiredTestClass().getSimpleName(), context.getDisplayName(),
        reason.orElse("disabled"));
  }
}
