package io.files2iceberg.bench;

import io.files2iceberg.core.ledger.Ledger;
import java.util.List;

/**
 * One store the ledger suite measures ({@link LedgerBench}): opens ledgers in fresh namespaces
 * (a collection prefix, a database file), counts what their calls cost, and writes the documents
 * they wrote again, bare, as the baseline.
 */
interface LedgerSide extends AutoCloseable {
  String name();

  Ledger open(String namespace) throws Exception;

  LedgerCounts counts();

  void capture(boolean on);

  /** The documents written while capturing, read back as stored; capturing is reset. */
  List<Object> captured(String namespace) throws Exception;

  /** A fresh store before a round, so no measurement reads past another's data. */
  default void reset() throws Exception {}

  /** Makes the namespace ready for {@link #writeBare} (SQLite: the file and its schema); not timed. */
  default void prepareBare(String namespace) throws Exception {}

  /** Writes the documents bare into the namespace, in as few commits as the store allows. */
  void writeBare(String namespace, List<Object> documents) throws Exception;

  @Override
  void close() throws Exception;
}
