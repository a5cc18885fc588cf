package io.files2iceberg.core.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SQLite database file shared by several processes and threads: a connection per unit of
 * work, each unit one transaction, failures classified as retryable or not.
 *
 * <p>Write units start with {@code BEGIN IMMEDIATE}: the write lock is taken before the first
 * read, so the state a unit checks is the state it changes. A deferred {@code BEGIN} would let two
 * claimers read the same READY partitions and then fail on the lock upgrade (SQLITE_BUSY without
 * waiting, since waiting cannot help a reader that already holds a stale snapshot); with IMMEDIATE
 * the second one waits on the busy timeout and then reads the first one's result.
 */
final class SqliteStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteStore.class);

  /** How long a unit waits for another process's write lock before it is reported unavailable. */
  static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(10);

  /** A unit of work on one connection inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T apply(Connection connection) throws SQLException;
  }

  private final Path dbFile;
  private final String url;
  private final SQLiteConfig config;
  private final Duration busyTimeout;
  // Held open, idle, for the store's lifetime: while one connection is open SQLite keeps the WAL
  // and its shared-memory index instead of checkpointing and deleting them whenever the last
  // per-call connection closes.
  private final Connection keepAlive;
  private volatile boolean closed;

  private SqliteStore(Path dbFile, SQLiteConfig config, Duration busyTimeout, Connection keepAlive) {
    this.dbFile = dbFile;
    this.url = url(dbFile);
    this.config = config;
    this.busyTimeout = busyTimeout;
    this.keepAlive = keepAlive;
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
    Connection keepAlive = null;
    try {
      keepAlive = config.createConnection(url(file));
      try (Statement statement = keepAlive.createStatement()) {
        // WAL is a property of the file, set once: readers never block the writer, and the writer
        // never blocks readers.
        statement.execute("PRAGMA journal_mode=WAL");
      }
      SqliteStore store = new SqliteStore(file, config, busyTimeout, keepAlive);
      store.write("open", file.toString(), SqliteStore::createSchema);
      LOG.debug("Opened the SQLite ledger {}", file);
      return store;
    } catch (SQLException e) {
      closeQuietly(keepAlive);
      throw classify(e, "open", file.toString(), busyTimeout);
    } catch (RuntimeException e) {
      closeQuietly(keepAlive);
      throw e;
    }
  }

  private static Void createSchema(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      int version;
      try (ResultSet rs = statement.executeQuery("PRAGMA user_version")) {
        version = rs.next() ? rs.getInt(1) : 0;
      }
      if (version > LedgerSchema.VERSION) {
        throw new IllegalStateException(
            "The ledger's schema version " + version + " is newer than this build's "
                + LedgerSchema.VERSION + "; upgrade files2iceberg");
      }
      for (String ddl : SqliteSchema.ddl()) {
        statement.execute(ddl);
      }
      if (version >= 1 && version < LedgerSchema.VERSION) {
        for (String upgrade : SqliteSchema.upgrade(version)) {
          statement.execute(upgrade);
        }
      }
      if (version < LedgerSchema.VERSION) {
        statement.execute("PRAGMA user_version = " + LedgerSchema.VERSION);
      }
    }
    return null;
  }

  Path dbFile() {
    return dbFile;
  }

  /** Runs {@code work} in a write transaction ({@code BEGIN IMMEDIATE}). */
  <T> T write(String operation, String key, Work<T> work) {
    return run(operation, key, "BEGIN IMMEDIATE", work);
  }

  /** Runs {@code work} in a read transaction: its queries see one snapshot. */
  <T> T read(String operation, String key, Work<T> work) {
    return run(operation, key, "BEGIN", work);
  }

  private <T> T run(String operation, String key, String begin, Work<T> work) {
    if (closed) {
      throw new IllegalStateException("The ledger " + dbFile + " is closed (" + operation + " " + key + ")");
    }
    try (Connection connection = config.createConnection(url)) {
      try (Statement statement = connection.createStatement()) {
        statement.execute(begin);
      }
      T result;
      try {
        result = work.apply(connection);
      } catch (SQLException | RuntimeException e) {
        rollback(connection, operation, key);
        throw e;
      }
      try (Statement statement = connection.createStatement()) {
        statement.execute("COMMIT");
      }
      return result;
    } catch (SQLException e) {
      throw classify(e, operation, key, busyTimeout);
    }
  }

  private static void rollback(Connection connection, String operation, String key) {
    try (Statement statement = connection.createStatement()) {
      statement.execute("ROLLBACK");
    } catch (SQLException e) {
      // Closing the connection rolls back as well; the original failure is the one to report.
      LOG.debug("Rollback of {} {} failed", operation, key, e);
    }
  }

  /** BUSY and LOCKED outlived the busy timeout: the same call may succeed later. */
  private static RuntimeException classify(SQLException e, String operation, String key, Duration busyTimeout) {
    if (isBusy(e)) {
      return new LedgerUnavailableException(
          "Ledger " + operation + " for " + key + ": the database stayed locked for "
              + busyTimeout.toMillis() + " ms (" + e.getMessage() + ")", e);
    }
    return new IllegalStateException("Ledger " + operation + " failed for " + key + ": " + e.getMessage(), e);
  }

  private static boolean isBusy(SQLException e) {
    int code = e instanceof SQLiteException sqlite ? sqlite.getResultCode().code : e.getErrorCode();
    // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, ...) keep the primary code
    // in their low byte.
    int primary = code & 0xff;
    return primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code;
  }

  private static String url(Path file) {
    return "jdbc:sqlite:" + file;
  }

  private static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("Closing a ledger connection failed", e);
      }
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      closeQuietly(keepAlive);
    }
  }
}
