package io.files2iceberg.core.ledger;

import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.LedgerSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * A ledger type core does not know: {@code test-sqlite}, a SQLite ledger at {@code
 * ledger.properties.file}. Registered in the test classpath's {@code META-INF/services}, it shows a
 * store plugging in by its type name, checking its own settings.
 */
public final class TestSqliteLedgerProvider implements LedgerProvider {

  public static final String TYPE = "test-sqlite";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public List<Problem> problems(LedgerSettings settings) {
    return settings.properties().containsKey("file")
        ? List.of()
        : List.of(new Problem("ledger.properties.file", "is required when ledger.type = " + TYPE));
  }

  @Override
  public Ledger open(LedgerSettings settings, Clock clock) {
    return SqliteLedger.open(Path.of(settings.properties().get("file")), clock);
  }
}
