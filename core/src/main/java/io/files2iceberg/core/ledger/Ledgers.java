package io.files2iceberg.core.ledger;

import io.files2iceberg.core.profile.LedgerSettings;
import java.nio.file.Path;
import java.time.Clock;

/** Opens the ledger a deployment's settings name. */
public final class Ledgers {
  private Ledgers() {}

  /**
   * Opens the SQLite ledger ({@code ledger.type = sqlite}) or the Firestore ledger ({@code
   * firestore}).
   */
  public static Ledger open(LedgerSettings settings, Clock clock) {
    return switch (settings.type()) {
      case SQLITE -> SqliteLedger.open(Path.of(settings.sqlitePath()), clock);
      case FIRESTORE -> throw new UnsupportedOperationException(
          "ledger.type = firestore: the Firestore ledger is not part of this build yet");
    };
  }
}
