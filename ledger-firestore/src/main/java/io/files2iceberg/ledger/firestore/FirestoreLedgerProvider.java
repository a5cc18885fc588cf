package io.files2iceberg.ledger.firestore;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerProvider;
import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Clock;

/** {@code ledger.type = firestore} for {@code Ledgers.open}, registered as a service. */
public final class FirestoreLedgerProvider implements LedgerProvider {

  @Override
  public LedgerSettings.LedgerType type() {
    return LedgerSettings.LedgerType.FIRESTORE;
  }

  @Override
  public Ledger open(LedgerSettings settings, Clock clock) {
    return FirestoreLedger.open(settings, clock);
  }
}
