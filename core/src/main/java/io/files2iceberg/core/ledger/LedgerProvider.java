package io.files2iceberg.core.ledger;

import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Clock;
import java.util.List;

/**
 * One ledger implementation, found by {@link Ledgers#open} through {@link java.util.ServiceLoader}
 * by the {@code ledger.type} it opens (registered in {@code
 * META-INF/services/io.files2iceberg.core.ledger.LedgerProvider}). A store of its own module keeps
 * its client library (and its gRPC, protobuf and Guava) out of the modules that do not use it; a
 * new store plugs in by being on the classpath, without a change to core.
 *
 * <p>Implementations have a public no-argument constructor.
 */
public interface LedgerProvider {

  /** The {@code ledger.type} this provider opens, such as {@code sqlite}: lower case, stable. */
  String type();

  /**
   * What is wrong with the settings for this ledger, each naming its key ({@code
   * ledger.firestore-project}); empty when {@link #open} can use them. Checked when the deployment
   * file is read, so that {@code validate} reports it.
   */
  default List<Problem> problems(LedgerSettings settings) {
    return List.of();
  }

  /** Opens the ledger the settings name; see {@link Ledgers#open}. */
  Ledger open(LedgerSettings settings, Clock clock);

  /**
   * One problem of a ledger's settings.
   *
   * @param key the full key path, such as {@code ledger.properties.url}
   * @param reason what is wrong, with the offending value
   */
  record Problem(String key, String reason) {}
}
