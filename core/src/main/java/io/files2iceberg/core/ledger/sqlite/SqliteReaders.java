package io.files2iceberg.core.ledger.sqlite;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/**
 * The SQLite ledger's readers: connections of a small pool, each read in a read transaction (one
 * snapshot); in WAL mode they never wait for the writer, nor it for them.
 */
final class SqliteReaders {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteStore.class);
  /** Idle read connections kept open; a burst of readers beyond it opens (and closes) its own. */
  private static final int MAX_IDLE_READERS = 8;

  private final String url;
  private final SQLiteConfig config;
  private final Duration busyTimeout;
  private final Deque<Connection> idle = new ConcurrentLinkedDeque<>();
  private volatile boolean closed;

  SqliteReaders(String url, SQLiteConfig config, Duration busyTimeout) {
    this.url = url;
    this.config = config;
    this.busyTimeout = busyTimeout;
  }

  /** Runs {@code work} in a read transaction. */
  <T> T read(String operation, String key, SqliteStore.Work<T> work) {
    Connection connection = idle.pollFirst();
    boolean reusable = false;
    try {
      if (connection == null) {
        connection = config.createConnection(url);
      }
      SqliteConnections.execute(connection, "BEGIN");
      T result;
      try {
        result = work.apply(connection);
      } catch (RuntimeException e) {
        try {
          SqliteConnections.execute(connection, "ROLLBACK");
          reusable = true;
        } catch (SQLException rollback) {
          // The connection is closed below instead; the failure to report is the work's.
          LOG.debug("Rollback of {} {} failed", operation, key, rollback);
        }
        throw e;
      }
      SqliteConnections.execute(connection, "COMMIT");
      reusable = true;
      return result;
    } catch (SQLException e) {
      throw SqliteConnections.classify(e, operation, key, busyTimeout);
    } finally {
      if (connection != null) {
        release(connection, reusable);
      }
    }
  }

  private void release(Connection connection, boolean reusable) {
    if (reusable && !closed && idle.size() < MAX_IDLE_READERS) {
      idle.offerFirst(connection);
      if (closed) {
        // close() may have emptied the pool just before: empty it again.
        close();
      }
    } else {
      SqliteConnections.closeQuietly(connection);
    }
  }

  /** Closes the idle connections; those in use close when their read ends. */
  void close() {
    closed = true;
    for (Connection connection; (connection = idle.pollFirst()) != null; ) {
      SqliteConnections.closeQuietly(connection);
    }
  }
}
