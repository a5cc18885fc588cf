package io.files2iceberg.core.ledger.memory;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.SettlingContractTest;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.service.LedgerService;

/**
 * The ledger contract on the in-memory store bounded as Firestore is (500 writes per commit): the
 * contract's large partitions make the service settle their batches over several commits.
 */
class InMemoryBoundedLedgerTest extends SettlingContractTest {
  static final int WRITES_PER_COMMIT = 500;

  private final InMemoryLedgerStore store = new InMemoryLedgerStore(WRITES_PER_COMMIT);

  @Override
  protected int writesPerCommit() {
    return WRITES_PER_COMMIT;
  }

  @Override
  protected Ledger newLedger(MutableClock clock) {
    return new LedgerService(store, clock);
  }
}
