package io.files2iceberg.core.ledger.sqlite;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.MDC;

/**
 * One caller's write: its work, and the result it waits for. The work runs on the writer thread
 * with the caller's logging context; its result is held until the group commits.
 */
final class SqliteUnit<T> {
  static final SqliteUnit<Void> STOP = new SqliteUnit<>("stop", "", c -> null, null);

  final String operation;
  final String key;
  private final SqliteStore.Work<T> work;
  private final Map<String, String> context;
  final CompletableFuture<T> result = new CompletableFuture<>();
  private T value;

  SqliteUnit(String operation, String key, SqliteStore.Work<T> work, Map<String, String> context) {
    this.operation = operation;
    this.key = key;
    this.work = work;
    this.context = context;
  }

  /** Runs the work; its failure, or null. */
  Exception run(Connection connection) {
    Map<String, String> writers = MDC.getCopyOfContextMap();
    if (context != null) {
      MDC.setContextMap(context);
    }
    try {
      value = work.apply(connection);
      return null;
    } catch (SQLException | RuntimeException e) {
      value = null;
      return e;
    } finally {
      if (writers != null) {
        MDC.setContextMap(writers);
      } else {
        MDC.clear();
      }
    }
  }

  void complete() {
    result.complete(value);
  }

  void fail(RuntimeException e) {
    value = null;
    result.completeExceptionally(e);
  }
}
