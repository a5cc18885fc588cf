package io.files2iceberg.core.profile;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which ledger holds the pipeline's state: the {@code ledger} section of the deployment file. The
 * type names a {@link io.files2iceberg.core.ledger.LedgerProvider}, which checks the rest.
 *
 * @param type the provider's type name: {@code sqlite} (the embedded default), {@code firestore}, or
 *     that of any other provider on the classpath
 * @param sqlitePath sqlite: the database file, {@code <home>/ledger.db} by default
 * @param firestoreProject firestore: the Google Cloud project
 * @param firestoreDatabase firestore: the database id, {@code (default)} by default
 * @param collectionPrefix firestore: prefixed to every collection name so that several
 *     environments can share a database
 * @param deadline firestore: the longest one ledger call may take, its retries included, before it fails
 *     as unavailable: well under Pub/Sub's acknowledgement deadline and the request timeout, so
 *     a push is answered {@code 503} in time; also the bound of a health check's probe
 * @param properties settings of a ledger type that core has no keys for, passed to its provider as
 *     they are
 */
public record LedgerSettings(
    String type,
    String sqlitePath,
    Optional<String> firestoreProject,
    String firestoreDatabase,
    String collectionPrefix,
    Duration deadline,
    Map<String, String> properties) {

  /** {@code ledger.deadline}'s default. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(5);
  /** {@code ledger.type}'s default: the embedded ledger. */
  public static final String SQLITE = "sqlite";

  public LedgerSettings {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(deadline, "deadline");
    properties = Map.copyOf(properties);
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("ledger.deadline: must be positive, was " + deadline);
    }
  }

  /** Settings without {@code ledger.properties}. */
  public LedgerSettings(String type, String sqlitePath, Optional<String> firestoreProject,
      String firestoreDatabase, String collectionPrefix, Duration deadline) {
    this(type, sqlitePath, firestoreProject, firestoreDatabase, collectionPrefix, deadline, Map.of());
  }

  /** Settings with the default {@code ledger.deadline} and no {@code ledger.properties}. */
  public LedgerSettings(String type, String sqlitePath, Optional<String> firestoreProject,
      String firestoreDatabase, String collectionPrefix) {
    this(type, sqlitePath, firestoreProject, firestoreDatabase, collectionPrefix, DEFAULT_DEADLINE);
  }
}
