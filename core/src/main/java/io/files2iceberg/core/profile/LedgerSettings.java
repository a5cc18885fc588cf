package io.files2iceberg.core.profile;

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
 */
public record LedgerSettings(
    LedgerType type,
    String sqlitePath,
    Optional<String> firestoreProject,
    String firestoreDatabase,
    String collectionPrefix) {

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
