package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.LedgerUnavailableException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** The SQLite ledger's connections: statements, URLs, closing, and its errors classified. */
final class SqliteConnections {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteStore.class);

  private SqliteConnections() {}

  static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** BUSY and LOCKED outlived the busy timeout: the same call may succeed later. */
  static RuntimeException classify(SQLException e, String operation, String key, Duration busyTimeout) {
    if (isBusy(e)) {
      return new LedgerUnavailableException(
          "Ledger " + operation + " for " + key + ": the database stayed locked for "
              + busyTimeout.toMillis() + " ms (" + e.getMessage() + ")", e);
    }
    return new IllegalStateException("Ledger " + operation + " failed for " + key + ": " + e.getMessage(), e);
  }

  static boolean isBusy(SQLException e) {
    int code = e instanceof SQLiteException sqlite ? sqlite.getResultCode().code : e.getErrorCode();
    // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, ...) keep the primary code
    // in their low byte.
    int primary = code & 0xff;
    return primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code;
  }

  static String url(Path file) {
    return "jdbc:sqlite:" + file;
  }

  static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("Closing a ledger connection failed", e);
      }
    }
  }
}
