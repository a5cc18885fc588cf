package io.files2iceberg.bench;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteCommitListener;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;

/**
 * SQLite: one database file per namespace. Rows written and commits are counted by the update and
 * commit hooks of the ledger's writer connection (found by reflection: the ledger does not expose
 * it), and of the bare side's own connection. A captured document is a row: its table's name and
 * its values by column.
 */
final class SqliteSide implements LedgerSide {
  private final Path dir;
  private final LedgerCounts counts = new LedgerCounts();
  private final List<String> written = new ArrayList<>();
  private volatile boolean capturing;

  SqliteSide(Path dir) {
    this.dir = dir;
  }

  @Override
  public String name() {
    return "sqlite";
  }

  @Override
  public Ledger open(String namespace) throws Exception {
    SqliteLedger ledger = SqliteLedger.open(file(namespace), Clock.systemUTC());
    // The ledger service's store port (SqliteLedgerStore), its SqliteStore, and that one's writer.
    hook((SQLiteConnection) field(field(field(ledger, "store"), "store"), "writeConnection"));
    return ledger;
  }

  private Path file(String namespace) {
    return dir.resolve(namespace + ".db");
  }

  private void hook(SQLiteConnection connection) {
    connection.addUpdateListener((type, database, table, rowId) -> {
      counts.documentsWritten.increment();
      if (capturing) {
        synchronized (written) {
          written.add(table + "\u0000" + rowId);
        }
      }
    });
    connection.addCommitListener(new SQLiteCommitListener() {
      @Override
      public void onCommit() {
        counts.commits.increment();
        counts.transactions.increment();
      }

      @Override
      public void onRollback() {
        counts.rollbacks.increment();
      }
    });
  }

  /** The field {@code name} of {@code owner}, declared by its class or one of its superclasses. */
  private static Object field(Object owner, String name) throws ReflectiveOperationException {
    for (Class<?> type = owner.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
      } catch (NoSuchFieldException e) {
        // declared higher up, if at all
      }
    }
    throw new NoSuchFieldException(owner.getClass().getName() + "." + name);
  }

  @Override
  public LedgerCounts counts() {
    return counts;
  }

  @Override
  public void capture(boolean on) {
    capturing = on;
  }

  @Override
  public List<Object> captured(String namespace) throws Exception {
    capturing = false;
    List<Object> rows = new ArrayList<>();
    try (Connection connection = new SQLiteConfig().createConnection("jdbc:sqlite:" + file(namespace))) {
      List<String> keys;
      synchronized (written) {
        keys = List.copyOf(new LinkedHashSet<>(written));
        written.clear();
      }
      for (String key : keys) {
        String[] parts = key.split("\u0000");
        try (PreparedStatement select = connection.prepareStatement(
            "SELECT * FROM \"" + parts[0] + "\" WHERE rowid = ?")) {
          select.setLong(1, Long.parseLong(parts[1]));
          try (ResultSet row = select.executeQuery()) {
            if (row.next()) {
              ResultSetMetaData meta = row.getMetaData();
              Map<String, Object> values = new LinkedHashMap<>();
              for (int i = 1; i <= meta.getColumnCount(); i++) {
                values.put(meta.getColumnName(i), row.getObject(i));
              }
              rows.add(Map.entry(parts[0], values));
            }
          }
        }
      }
    }
    return rows;
  }

  @Override
  public void prepareBare(String namespace) {
    SqliteLedger.open(file(namespace), Clock.systemUTC()).close();
  }

  @Override
  @SuppressWarnings("unchecked")
  public void writeBare(String namespace, List<Object> documents) throws Exception {
    SQLiteConfig config = new SQLiteConfig();
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    try (Connection connection = config.createConnection("jdbc:sqlite:" + file(namespace))) {
      try (Statement statement = connection.createStatement()) {
        statement.execute("PRAGMA journal_mode=WAL");
      }
      hook((SQLiteConnection) connection);
      connection.setAutoCommit(false);
      for (Object document : documents) {
        Map.Entry<String, Map<String, Object>> row = (Map.Entry<String, Map<String, Object>>) document;
        List<String> columns = new ArrayList<>(row.getValue().keySet());
        String sql = "INSERT OR REPLACE INTO \"" + row.getKey() + "\" (" + String.join(", ", columns.stream()
            .map(c -> "\"" + c + "\"").toList()) + ") VALUES (" + String.join(", ", columns.stream().map(c -> "?")
            .toList()) + ")";
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
          for (int i = 0; i < columns.size(); i++) {
            insert.setObject(i + 1, row.getValue().get(columns.get(i)));
          }
          insert.executeUpdate();
        }
      }
      connection.commit();
    }
  }

  @Override
  public void close() {}
}
