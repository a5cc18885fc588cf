package io.files2iceberg.core.ledger.store;

import io.files2iceberg.core.ledger.BatchRecord;
import java.util.Optional;

/** A batch as stored: its record and what it still owes, if anything. */
public record StoredBatch(BatchRecord batch, Optional<Settling> settling) {
  public StoredBatch {
    settling = settling == null ? Optional.empty() : settling;
  }
}
