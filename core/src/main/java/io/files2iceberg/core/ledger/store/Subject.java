package io.files2iceberg.core.ledger.store;

import io.files2iceberg.core.ledger.LedgerSchema;

/**
 * What a ledger call touches, for the store's log and errors: each store names it in its own terms
 * (SQLite: {@code batch b-1}; Firestore: the document's path).
 *
 * @param id the record's id in the ledger ({@link LedgerSchema#partitionId} for a partition, the
 *     table's name for a table), or the whole text for {@link Kind#OTHER}
 * @param detail what a reader needs besides the id (a file's URI), or empty
 */
public record Subject(Kind kind, String id, String detail) {

  /** The kinds of records a call touches. */
  public enum Kind { FILE, PARTITION, BATCH, TABLE, MESSAGE, OTHER }

  public static Subject file(String fileId) {
    return new Subject(Kind.FILE, fileId, "");
  }

  public static Subject file(String fileId, String uri) {
    return new Subject(Kind.FILE, fileId, uri);
  }

  public static Subject partition(String table, String partition) {
    return new Subject(Kind.PARTITION, LedgerSchema.partitionId(table, partition), table + "/" + partition);
  }

  public static Subject batch(String batchId) {
    return new Subject(Kind.BATCH, batchId, "");
  }

  public static Subject table(String table) {
    return new Subject(Kind.TABLE, table, "");
  }

  public static Subject table(String table, String detail) {
    return new Subject(Kind.TABLE, table, detail);
  }

  public static Subject message(String messageId) {
    return new Subject(Kind.MESSAGE, messageId, "");
  }

  /** Anything else ({@code all tables}, {@code object landing/a.csv}), named as given. */
  public static Subject other(String text) {
    return new Subject(Kind.OTHER, text, "");
  }

  /** The subject in plain words: {@code file f-1 (gs://b/a.csv)}, {@code partition t/p}, {@code table t}. */
  @Override
  public String toString() {
    return switch (kind) {
      case FILE -> "file " + id + (detail.isEmpty() ? "" : " (" + detail + ")");
      case PARTITION -> "partition " + detail;
      case BATCH -> "batch " + id;
      case TABLE -> "table " + id + (detail.isEmpty() ? "" : " " + detail);
      case MESSAGE -> "message " + id;
      case OTHER -> id;
    };
  }
}
