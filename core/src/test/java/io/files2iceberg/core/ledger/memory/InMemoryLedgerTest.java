package io.files2iceberg.core.ledger.memory;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerContractTest;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.service.LedgerService;
import io.files2iceberg.core.ledger.store.LedgerStore;

/** The ledger contract on the in-memory store, whose commits take any number of writes. */
class InMemoryLedgerTest extends LedgerContractTest {
  // A new test instance, so a new store, per test.
  private final InMemoryLedgerStore store = new InMemoryLedgerStore(LedgerStore.UNBOUNDED);

  @Override
  protected Ledger newLedger(MutableClock clock) {
    return new LedgerService(store, clock);
  }
}
