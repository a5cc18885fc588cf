package io.files2iceberg.core.ledger;

import io.files2iceberg.core.profile.LedgerSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ServiceLoader;

/** Opens the ledger a deployment's settings name. */
public final class Ledgers {
  private Ledgers() {}

  /**
   * Opens the SQLite ledger ({@code ledger.type = sqlite}, always part of core) or the Firestore
   * ledger ({@code firestore}), which the {@code files2iceberg-ledger-firestore} module provides
   * as a {@link LedgerProvider}.
   *
   * @throws IllegalStateException when no provider of the type is on the classpath
   */
  public static Ledger open(LedgerSettings settings, Clock clock) {
    return switch (settings.type()) {
      case SQLITE -> SqliteLedger.open(Path.of(settings.sqlitePath()), clock);
      case FIRESTORE -> provider(settings.type(), "files2iceberg-ledger-firestore").open(settings, clock);
    };
  }

  private static LedgerProvider provider(LedgerSettings.LedgerType type, String module) {
    for (LedgerProvider provider : ServiceLoader.load(LedgerProvider.class, Ledgers.class.getClassLoader())) {
      if (provider.type() == type) {
        return provider;
      }
    }
    throw new IllegalStateException(
        "ledger.type = " + type.code() + " needs the " + module + " module on the classpath");
  }
}
