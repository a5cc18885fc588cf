package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerProvider;
import io.files2iceberg.core.profile.LedgerSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/** {@code ledger.type = sqlite}, the embedded ledger: one SQLite file at {@code ledger.sqlite-path}. */
public final class SqliteLedgerProvider implements LedgerProvider {

  /** The type name. */
  public static final String TYPE = "sqlite";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public List<Problem> problems(LedgerSettings settings) {
    return settings.sqlitePath().isBlank()
        ? List.of(new Problem("ledger.sqlite-path", "must not be blank when ledger.type = sqlite"))
        : List.of();
  }

  @Override
  public Ledger open(LedgerSettings settings, Clock clock) {
    return SqliteLedger.open(Path.of(settings.sqlitePath()), clock);
  }
}
