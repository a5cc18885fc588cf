package io.files2iceberg.listener.pull;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Holds the SQLite ledger's write lock ({@code BEGIN IMMEDIATE}) on a connection of its own, as
 * another process writing for a long time would: every ledger write waits out its busy timeout
 * and fails as unavailable until {@link #close()}.
 */
final class LedgerLock implements AutoCloseable {
  private final Connection connection;

  private LedgerLock(Connection connection) {
    this.connection = connection;
  }

  static LedgerLock hold(Path ledgerFile) throws SQLException {
    Connection connection = DriverManager.getConnection("jdbc:sqlite:" + ledgerFile);
    try (Statement statement = connection.createStatement()) {
      statement.execute("BEGIN IMMEDIATE");
    } catch (SQLException e) {
      connection.close();
      throw e;
    }
    return new LedgerLock(connection);
  }

  /** Releases the lock, writing nothing. */
  @Override
  public void close() throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("ROLLBACK");
    } finally {
      connection.close();
    }
  }
}
