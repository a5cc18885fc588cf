package io.files2iceberg.core.profile;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Which ledger holds the pipeline's state. Every profile of one deployment must name the same one.
 *
 * @param type sqlite (the embedded default) or firestore
 * @param sqlitePath sqlite: the database file, {@code <home>/ledger.db} by default
 * @param firestoreProject firestore: the Google Cloud project
 * @param firestoreDatabase firestore: the database id, {@code (default)} by default
 * @param collectionPrefix firestore: prefixed to every collection name so that several
 *     environments can share a database
 * @param deadline firestore: the longest one ledger call may take, its retries included, before it fails
 *     as unavailable: well under Pub/Sub's acknowledgement deadline and the request timeout, so
 *     a push is answered {@code 503} in time; also the bound of a health check's probe
 */
public record LedgerSettings(
    LedgerType type,
    String sqlitePath,
    Optional<String> firestoreProject,
    String firestoreDatabase,
    String collectionPrefix,
    Duration deadline) {

  /** {@code ledger.deadline}'s default. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(5);

  public LedgerSettings {
    Objects.requireNonNull(deadline, "deadline");
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("ledger.deadline: must be positive, was " + deadline);
    }
  }

  /** Settings with the default {@code ledger.deadline}. */
  public LedgerSettings(LedgerType type, String sqlitePath, Optional<String> firestoreProject,
      String firestoreDatabase, String collectionPrefix) {
    this(type, sqlitePath, firestoreProject, firestoreDatabase, collectionPrefix, DEFAULT_DEADLINE);
  }

  /** Ledger implementations. Codes are what profiles spell. */
  public enum LedgerType {
    SQLITE("sqlite"),
    FIRESTORE("firestore");

    private final String code;

    LedgerType(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }
}
