package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.Subject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded ledger's store: one SQLite file (WAL mode) that the listener, the batcher and the
 * Spark job open at the same time, each from several threads. Writes go through {@link SqliteStore}'s
 * one writer, which commits the transactions of concurrent callers together, each in a savepoint
 * of its own; reads run on connections of their own. Every write takes the write lock first
 * ({@code BEGIN IMMEDIATE}), then reads, checks and writes, so writers from all processes are
 * serialized and no check is ever made against a state another writer has changed since.
 */
final class SqliteLedgerStore implements LedgerStore {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteLedgerStore.class);

  private final SqliteStore store;
  private final Clock clock;

  SqliteLedgerStore(SqliteStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  Path dbFile() {
    return store.dbFile();
  }

  long writeTransactions() {
    return store.writeTransactions();
  }

  private static <T> SqliteStore.Work<T> onConnection(Work<T> work) {
    return c -> run(c, work);
  }

  private static <T> T run(Connection c, Work<T> work) throws SQLException {
    try {
      return work.run(new SqliteTransaction(c));
    } catch (SqliteTransaction.Failed e) {
      throw e.sql();
    }
  }

  @Override
  public <T> T write(String operation, Subject subject, Work<T> work) {
    return store.write(operation, subject.toString(), onConnection(work));
  }

  /** Every transaction handed to the writer at once: they share its group transactions. */
  @Override
  public <T> List<T> writeEach(String operation, List<Subject> subjects, List<Work<T>> works) {
    List<SqliteUnit<T>> units = new ArrayList<>();
    for (int i = 0; i < works.size(); i++) {
      units.add(store.submit(operation, subjects.get(i).toString(), onConnection(works.get(i))));
    }
    List<T> results = new ArrayList<>(units.size());
    RuntimeException failure = null;
    for (SqliteUnit<T> unit : units) {
      // Each unit is awaited, so none is still pending when the call returns.
      try {
        results.add(store.await(unit));
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return results;
  }

  @Override
  public <T> T read(String operation, Subject subject, Reading<T> reading) {
    return store.read(operation, subject.toString(), c -> {
      try {
        return reading.run(new SqliteTransaction(c));
      } catch (SqliteTransaction.Failed e) {
        throw e.sql();
      }
    });
  }

  @Override
  public int writesPerCommit() {
    return UNBOUNDED;
  }

  @Override
  public Optional<String> unavailableBecause() {
    try {
      // A committed write, not a read: a file that reads but cannot be written (read-only, disk
      // full) fails every push, and health must say so.
      store.write("probe", dbFile().toString(), c -> SqliteQueries.writeProbe(c, clock.millis()));
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.debug("The probe write to {} failed", dbFile(), e);
      return Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  @Override
  public String describe() {
    return "SQLite " + dbFile();
  }

  @Override
  public void close() {
    store.close();
  }
}
