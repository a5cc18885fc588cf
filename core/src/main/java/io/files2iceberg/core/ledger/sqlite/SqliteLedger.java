package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.service.LedgerService;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * The embedded ledger: the {@link LedgerService} over one SQLite file ({@link SqliteLedgerStore}),
 * which any number of processes may have open at once. A write lock held by another process longer
 * than the busy timeout (10 s) surfaces as {@link LedgerUnavailableException}.
 */
public final class SqliteLedger extends LedgerService {
  private final SqliteLedgerStore sqlite;

  private SqliteLedger(SqliteLedgerStore store, Clock clock) {
    super(store, clock);
    this.sqlite = store;
  }

  /**
   * Opens the ledger in {@code dbFile}, creating its folders, the file and the schema when absent.
   *
   * @throws LedgerUnavailableException when another process holds the file locked too long
   */
  public static SqliteLedger open(Path dbFile, Clock clock) {
    return open(dbFile, clock, SqliteStore.DEFAULT_BUSY_TIMEOUT);
  }

  /** As {@link #open(Path, Clock)}, waiting at most {@code busyTimeout} for another writer. */
  public static SqliteLedger open(Path dbFile, Clock clock, Duration busyTimeout) {
    Objects.requireNonNull(dbFile, "dbFile");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(busyTimeout, "busyTimeout");
    return new SqliteLedger(new SqliteLedgerStore(SqliteStore.open(dbFile, busyTimeout), clock), clock);
  }

  /** The database file, absolute. */
  public Path dbFile() {
    return sqlite.dbFile();
  }

  /** Write transactions this ledger committed since it opened (for tests and metrics). */
  long writeTransactions() {
    return sqlite.writeTransactions();
  }
}
