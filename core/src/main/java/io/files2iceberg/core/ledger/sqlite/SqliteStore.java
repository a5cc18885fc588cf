package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.sqlite.SQLiteConfig;

/**
 * One SQLite database file shared by several processes and threads: within this process, one
 * writer (a thread with its own connection) that commits the writes of every caller in groups, and
 * readers on connections of their own; failures classified as retryable or not.
 *
 * <p>Group commit: a caller's write is a unit of work handed to the writer, and the caller blocks
 * until the transaction holding it has committed (or failed). The writer takes the next waiting
 * unit, starts a transaction with {@code BEGIN IMMEDIATE}, then takes every unit that arrived
 * while it waited for the lock or for the last commit's fsync (at most {@link #MAX_GROUP}), runs
 * each inside a savepoint of its own, and commits them together: one fsync for the group instead
 * of one per write. The units run one after the other, each seeing the ones before it, so the
 * outcome is the same as if each had been a transaction of its own in that order.
 *
 * <ul>
 *   <li>A unit that fails is rolled back to its savepoint and only its caller gets the failure;
 *       the others commit. A failure that ends the whole transaction (SQLite rolls it back on some
 *       errors) fails its own caller and the other units of the group are run again, once, in a
 *       new transaction.
 *   <li>A caller hears of success only after {@code COMMIT} returned (synchronous FULL: the WAL is
 *       on disk), so an acknowledged write survives a crash; a commit that fails fails every
 *       caller of the group, none of whose writes is then acknowledged.
 *   <li>{@code BEGIN IMMEDIATE} takes the write lock before the first read, so the state a unit
 *       checks is the state it changes, whatever other processes write. A deferred {@code BEGIN}
 *       would let two claimers read the same READY partitions and then fail on the lock upgrade;
 *       with IMMEDIATE the writer waits on the busy timeout and then reads the other's result.
 * </ul>
 *
 * <p>Reads run on connections of a small pool, each in a read transaction (one snapshot); in WAL
 * mode they never wait for the writer, nor it for them.
 */
final class SqliteStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteStore.class);

  /** How long a unit waits for another process's write lock before it is reported unavailable. */
  static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(10);
  /** Units per group transaction at most: bounds how long one group holds the write lock. */
  static final int MAX_GROUP = 128;
  private static final String SAVEPOINT = "unit";

  /** A unit of work on one connection inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T apply(Connection connection) throws SQLException;
  }

  private final Path dbFile;
  private final Duration busyTimeout;
  // The writer's own connection, open for the store's lifetime: while it is open SQLite also keeps
  // the WAL and its shared-memory index instead of checkpointing and deleting them whenever the
  // last connection closes.
  private final Connection writeConnection;
  private final BlockingQueue<SqliteUnit<?>> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private final SqliteReaders readers;
  private final AtomicLong writeTransactions = new AtomicLong();
  /** Guards {@link #closed} against units added after the writer drained the queue for good. */
  private final Object admission = new Object();
  private volatile boolean closed;

  private SqliteStore(Path dbFile, SQLiteConfig config, Duration busyTimeout, Connection writeConnection) {
    this.dbFile = dbFile;
    this.readers = new SqliteReaders(SqliteConnections.url(dbFile), config, busyTimeout);
    this.busyTimeout = busyTimeout;
    this.writeConnection = writeConnection;
    this.writer = new Thread(this::writeLoop, "ledger-writer " + dbFile.getFileName());
    // A process that exits without closing the ledger is not held up by it; a group cut off by
    // the exit never commits, and its callers, exiting too, acknowledged nothing.
    writer.setDaemon(true);
  }

  /** Opens (creating folders, file and schema when absent) and switches the file to WAL. */
  static SqliteStore open(Path dbFile, Duration busyTimeout) {
    Path file = dbFile.toAbsolutePath();
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the ledger's folder " + file.getParent(), e);
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(Math.toIntExact(busyTimeout.toMillis()));
    // FULL: the listener acks a notification once its write commits, so a commit must survive a
    // power loss, not only a process crash.
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    Connection writeConnection = null;
    try {
      writeConnection = config.createConnection(SqliteConnections.url(file));
      try (Statement statement = writeConnection.createStatement()) {
        // WAL is a property of the file, set once: readers never block the writer, and the writer
        // never blocks readers.
        statement.execute("PRAGMA journal_mode=WAL");
      }
    } catch (SQLException e) {
      SqliteConnections.closeQuietly(writeConnection);
      throw SqliteConnections.classify(e, "open", file.toString(), busyTimeout);
    }
    SqliteStore store = new SqliteStore(file, config, busyTimeout, writeConnection);
    store.writer.start();
    try {
      store.write("open", file.toString(), SqliteSchema::create);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    LOG.debug("Opened the SQLite ledger {}", file);
    return store;
  }


  Path dbFile() {
    return dbFile;
  }

  /** Write transactions committed since the store opened (for tests and metrics). */
  long writeTransactions() {
    return writeTransactions.get();
  }

  /**
   * Runs {@code work} in the writer's next group transaction and returns its result once that
   * transaction has committed.
   */
  <T> T write(String operation, String key, Work<T> work) {
    return await(submit(operation, key, work));
  }

  /**
   * Hands {@code work} to the writer without waiting: several units submitted at once may share a
   * group. {@link #await} each.
   */
  <T> SqliteUnit<T> submit(String operation, String key, Work<T> work) {
    if (Thread.currentThread() == writer) {
      // The writer would wait for itself.
      throw new IllegalStateException("Ledger " + operation + " for " + key + ": a write inside a write");
    }
    SqliteUnit<T> unit = new SqliteUnit<>(operation, key, work, MDC.getCopyOfContextMap());
    synchronized (admission) {
      if (closed) {
        throw closedException(operation, key);
      }
      queue.add(unit);
    }
    return unit;
  }

  /** The unit's result once its transaction committed; its failure, as it was thrown, else. */
  <T> T await(SqliteUnit<T> unit) {
    try {
      return unit.result.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("Ledger " + unit.operation + " failed for " + unit.key + ": " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // The unit may still commit: the caller must not take this as either outcome, and a retry
      // finds what the unit did (every write is idempotent or checks the state it changes).
      throw new LedgerUnavailableException("Ledger " + unit.operation + " for " + unit.key
          + ": interrupted while its transaction was pending; it may or may not commit", e);
    }
  }

  /** Runs {@code work} in a read transaction: its queries see one snapshot. */
  <T> T read(String operation, String key, Work<T> work) {
    if (closed) {
      throw closedException(operation, key);
    }
    return readers.read(operation, key, work);
  }

  // --- the writer --------------------------------------------------------------------------------

  private void writeLoop() {
    try {
      while (true) {
        SqliteUnit<?> first = queue.take();
        if (first == SqliteUnit.STOP) {
          return;
        }
        List<SqliteUnit<?>> group = new ArrayList<>();
        group.add(first);
        try {
          runGroup(group);
        } catch (RuntimeException | Error e) {
          // Not a unit's failure (those complete their units): the writer's own. Nothing of the
          // group is acknowledged; the writer goes on with the next group.
          LOG.error("The writer of the SQLite ledger {} failed on a group of {} writes", dbFile, group.size(), e);
          group.forEach(unit -> unit.fail(new IllegalStateException(
              "Ledger " + unit.operation + " failed for " + unit.key + ": " + e, e)));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      synchronized (admission) {
        closed = true;
      }
      // Nothing is added any more: whatever waits now never runs.
      for (SqliteUnit<?> unit; (unit = queue.poll()) != null; ) {
        if (unit != SqliteUnit.STOP) {
          unit.fail(closedException(unit.operation, unit.key));
        }
      }
    }
  }

  /**
   * Takes the write lock, adds the units that arrived meanwhile, runs them and commits. Every
   * unit of the group is completed when this returns.
   */
  private void runGroup(List<SqliteUnit<?>> group) {
    try {
      SqliteConnections.execute(writeConnection, "BEGIN IMMEDIATE");
    } catch (SQLException e) {
      // What arrived while this group waited for the lock has waited on the same lock.
      drainInto(group);
      group.forEach(unit -> unit.fail(SqliteConnections.classify(e, unit.operation, unit.key, busyTimeout)));
      return;
    }
    drainInto(group);
    if (closed) {
      // Closed while the group waited for the lock: none of it runs, so none of it is acked.
      rollback(writeConnection);
      group.forEach(unit -> unit.fail(closedException(unit.operation, unit.key)));
      return;
    }
    List<SqliteUnit<?>> again = runUnits(group);
    if (again != null) {
      // The transaction was lost under the group: the units that did not fail run once more.
      if (again.isEmpty()) {
        return;
      }
      try {
        SqliteConnections.execute(writeConnection, "BEGIN IMMEDIATE");
      } catch (SQLException e) {
        again.forEach(unit -> unit.fail(SqliteConnections.classify(e, unit.operation, unit.key, busyTimeout)));
        return;
      }
      List<SqliteUnit<?>> lost = runUnits(again);
      if (lost != null) {
        lost.forEach(unit -> unit.fail(new IllegalStateException("Ledger " + unit.operation + " failed for "
            + unit.key + ": the transaction was rolled back twice by other writes of its group")));
      }
    }
  }

  private void drainInto(List<SqliteUnit<?>> group) {
    while (group.size() < MAX_GROUP) {
      SqliteUnit<?> next = queue.peek();
      if (next == null || next == SqliteUnit.STOP) {
        // STOP stays queued: the loop ends after this group.
        return;
      }
      group.add(queue.poll());
    }
  }

  /**
   * Runs the units in the open transaction, each in its own savepoint, and commits: every unit is
   * completed, and null is returned. When a unit's failure ended the transaction, that unit is
   * failed and the units not failed are returned, none completed, to run again.
   */
  private List<SqliteUnit<?>> runUnits(List<SqliteUnit<?>> group) {
    List<SqliteUnit<?>> succeeded = new ArrayList<>(group.size());
    for (int i = 0; i < group.size(); i++) {
      SqliteUnit<?> unit = group.get(i);
      try {
        SqliteConnections.execute(writeConnection, "SAVEPOINT " + SAVEPOINT);
      } catch (SQLException e) {
        rollback(writeConnection);
        group.subList(i, group.size()).forEach(u -> u.fail(SqliteConnections.classify(e, u.operation, u.key, busyTimeout)));
        succeeded.forEach(u -> u.fail(SqliteConnections.classify(e, u.operation, u.key, busyTimeout)));
        return null;
      }
      Exception failure = unit.run(writeConnection);
      if (failure == null) {
        try {
          SqliteConnections.execute(writeConnection, "RELEASE " + SAVEPOINT);
          succeeded.add(unit);
          continue;
        } catch (SQLException e) {
          failure = e;
        }
      }
      unit.fail(failure instanceof SQLException sql ? SqliteConnections.classify(sql, unit.operation, unit.key, busyTimeout)
          : (RuntimeException) failure);
      try {
        SqliteConnections.execute(writeConnection, "ROLLBACK TO " + SAVEPOINT);
        SqliteConnections.execute(writeConnection, "RELEASE " + SAVEPOINT);
      } catch (SQLException e) {
        // SQLite ended the transaction itself (some I/O and constraint errors do): the group's
        // earlier writes are gone with it.
        LOG.warn("Ledger {} for {} ended the transaction of its group of {} writes ({}); the others run again",
            unit.operation, unit.key, group.size(), failure.toString());
        rollback(writeConnection);
        List<SqliteUnit<?>> again = new ArrayList<>(succeeded);
        again.addAll(group.subList(i + 1, group.size()));
        return again;
      }
    }
    try {
      SqliteConnections.execute(writeConnection, "COMMIT");
    } catch (SQLException e) {
      // Nothing of the group is on disk: every caller hears of the failure, none of a success.
      rollback(writeConnection);
      succeeded.forEach(unit -> unit.fail(SqliteConnections.classify(e, unit.operation, unit.key, busyTimeout)));
      return null;
    }
    writeTransactions.incrementAndGet();
    succeeded.forEach(SqliteUnit::complete);
    return null;
  }



  private void rollback(Connection connection) {
    try {
      SqliteConnections.execute(connection, "ROLLBACK");
    } catch (SQLException e) {
      // No transaction left to roll back (SQLite ended it), or the connection is gone: either
      // way nothing of it commits.
      LOG.debug("Rollback on the SQLite ledger {} failed", dbFile, e);
    }
  }

  private IllegalStateException closedException(String operation, String key) {
    return new IllegalStateException("The ledger " + dbFile + " is closed (" + operation + " " + key + ")");
  }






  /**
   * Refuses new calls, lets the group in progress finish (a group still waiting for the write lock
   * is rolled back), fails the writes still queued, then closes the connections.
   */
  @Override
  public void close() {
    synchronized (admission) {
      if (closed && !writer.isAlive()) {
        SqliteConnections.closeQuietly(writeConnection);
        readers.close();
        return;
      }
      closed = true;
    }
    queue.add(SqliteUnit.STOP);
    if (Thread.currentThread() != writer) {
      try {
        // A group waits at most the busy timeout for the lock; its statements take far less.
        writer.join(busyTimeout.toMillis() + 10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (writer.isAlive()) {
        LOG.warn("The writer of the SQLite ledger {} is still busy; closing its connection under it", dbFile);
      }
    }
    SqliteConnections.closeQuietly(writeConnection);
    readers.close();
  }
}
