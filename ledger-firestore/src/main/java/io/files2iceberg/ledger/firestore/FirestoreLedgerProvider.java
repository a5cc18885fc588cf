package io.files2iceberg.ledger.firestore;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerProvider;
import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Clock;
import java.util.List;

/** {@code ledger.type = firestore} for {@code Ledgers.open}, registered as a service. */
public final class FirestoreLedgerProvider implements LedgerProvider {

  /** The type name. */
  public static final String TYPE = "firestore";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public List<Problem> problems(LedgerSettings settings) {
    // The collection prefix is checked by FirestoreLedger.open, which names the key too.
    return settings.firestoreProject().isEmpty()
        ? List.of(new Problem("ledger.firestore-project", "is required when ledger.type = firestore"))
        : List.of();
  }

  @Override
  public Ledger open(LedgerSettings settings, Clock clock) {
    return FirestoreLedger.open(settings, clock);
  }
}
