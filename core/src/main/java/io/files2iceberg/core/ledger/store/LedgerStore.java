package io.files2iceberg.core.ledger.store;

import io.files2iceberg.core.ledger.FileRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a ledger keeps its records: storage verbs only. Everything a ledger call decides (which
 * records it reads, which rules it applies, what it writes, what it logs) is {@link
 * io.files2iceberg.core.ledger.service.LedgerService}'s, once for every store; a store reads
 * records by id, queries them by table, state and time, and writes a set of them atomically, within
 * its limit per commit. It logs nothing but its own I/O.
 *
 * <p>Implementations: {@code SqliteLedgerStore} (embedded) and the Firestore one (production); an
 * in-memory one in core's test jar proves the port against the contract suite.
 */
public interface LedgerStore extends AutoCloseable {

  /** A store whose commits take any number of writes. */
  int UNBOUNDED = Integer.MAX_VALUE;

  /** One transaction's work: reads first, then writes; may run more than once (contention). */
  @FunctionalInterface
  interface Work<T> {
    T run(StoreTransaction tx);
  }

  /** Work that only reads. */
  @FunctionalInterface
  interface Reading<T> {
    T run(StoreReads reads);
  }

  /**
   * Runs {@code work} in one transaction: what it reads is consistent and stays so until its writes
   * commit, all of them or none. A store may run the work again when another writer changed what it
   * read (Firestore) or when the group it committed in failed (SQLite): the work has no effect but
   * its writes. The work makes every read before its first write.
   *
   * @param operation the ledger call, for the store's log and errors
   * @param subject what it touches, which the store names in its errors
   * @throws io.files2iceberg.core.ledger.LedgerUnavailableException when the store is busy or does
   *     not answer within its bounds
   */
  <T> T write(String operation, Subject subject, Work<T> work);

  /**
   * Runs each work in a transaction of its own, in order, and returns their results in that order.
   * A store may commit them together (SQLite's group commits); when one fails, the others still
   * run, and the first failure is thrown after all ended.
   */
  default <T> List<T> writeEach(String operation, List<Subject> subjects, List<Work<T>> works) {
    List<T> results = new ArrayList<>(works.size());
    for (int i = 0; i < works.size(); i++) {
      results.add(write(operation, subjects.get(i), works.get(i)));
    }
    return results;
  }

  /** Runs {@code reading} outside any write transaction, on a consistent view where the store has one. */
  <T> T read(String operation, Subject subject, Reading<T> reading);

  /** The most writes one commit may hold ({@link #UNBOUNDED} when there is no such limit). */
  int writesPerCommit();

  /**
   * What a batch's file and event id lists may take in the store (a Firestore document holds 1
   * MiB); {@link Long#MAX_VALUE} when unbounded.
   */
  default long maxFileListBytes() {
    return Long.MAX_VALUE;
  }

  /** What one file adds to its batch's file and event id lists, counted against {@link #maxFileListBytes()}. */
  default long listedBytes(FileRecord file) {
    return 0;
  }

  /**
   * Why the store cannot take a write now, or empty while it can: a committed write of a probe
   * record that nothing else reads.
   */
  Optional<String> unavailableBecause();

  /** A name for logs and errors: the database file, the Firestore project and prefix. */
  String describe();

  @Override
  void close();
}
