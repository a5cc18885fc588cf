package io.files2iceberg.core.ledger;

import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Clock;

/**
 * A ledger implementation that lives in its own module, found by {@link Ledgers#open} through
 * {@link java.util.ServiceLoader} (registered in {@code
 * META-INF/services/io.files2iceberg.core.ledger.LedgerProvider}). Keeps a store's client library
 * (and its gRPC, protobuf and Guava) out of the modules that do not use it.
 *
 * <p>Implementations have a public no-argument constructor.
 */
public interface LedgerProvider {

  /** The {@code ledger.type} this provider opens. */
  LedgerSettings.LedgerType type();

  /** Opens the ledger the settings name; see {@link Ledgers#open}. */
  Ledger open(LedgerSettings settings, Clock clock);
}
