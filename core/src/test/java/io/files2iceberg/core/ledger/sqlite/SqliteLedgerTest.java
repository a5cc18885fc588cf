package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.TableChange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerContractTest;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.PartitionState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on a SQLite file, plus what only a file-backed ledger has to show. */
class SqliteLedgerTest extends LedgerContractTest {
  @TempDir Path dir;

  private Path dbFile() {
    // A folder that does not exist yet: open creates it.
    return dir.resolve("home").resolve("ledger.db");
  }

  @Override
  protected Ledger newLedger(MutableClock clock) {
    return SqliteLedger.open(dbFile(), clock);
  }

  @Test
  void stateSurvivesCloseAndReopen() {
    List<String> files = readyPartition(TABLE, "2024-01-01", 2);
    readyPartition(TABLE, "2024-01-02", 2);
    BatchRecord batch = claim(2).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);
    ledger.close();

    Ledger reopened = openAnother(clock);

    assertThat(reopened.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);
    assertThat(reopened.filesOfBatch(batch.batchId())).extracting(FileRecord::fileId).containsExactlyElementsOf(files);
    assertThat(reopened.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.CLAIMED);
    assertThat(reopened.commitBatch(new CommitBatch(batch.batchId(), 9L, METRICS)).alreadyCommitted()).isFalse();
    assertThat(reopened.claimPartitions(new ClaimPartitions(TABLE, 10, LEASE, true)).orElseThrow().partitions())
        .containsExactly("2024-01-02");
  }

  @Test
  void claimOfATableWithNothingReadyTakesNoWriteTransaction() {
    SqliteLedger sqlite = (SqliteLedger) ledger;
    ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet")); // OPEN: no marker yet
    long before = sqlite.writeTransactions();

    // A batcher's turn claims every table; one with nothing READY is answered by a read.
    for (int turn = 0; turn < 3; turn++) {
      assertThat(claim(10)).isEmpty();
      assertThat(ledger.claimNewestPartition(new ClaimNewestPartition(TABLE, LEASE))).isEmpty();
    }

    assertThat(sqlite.writeTransactions() - before).isZero();
    ledger.markReady(marker(TABLE, "2024-01-01"));
    assertThat(claim(10).orElseThrow().partitions()).containsExactly("2024-01-01");
  }

  @Test
  void databaseIsInWalModeWithTheSchemaVersion() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA journal_mode")).isEqualTo("wal");
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
    }
    assertThat(Files.exists(dbFile())).isTrue();
  }

  @Test
  void secondLedgerOnTheSameFileSeesTheFirstsWrites() {
    SqliteLedger second = SqliteLedger.open(dbFile(), clock);
    try {
      FileRecorded recorded = ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet"));

      assertThat(second.file(recorded.file().fileId())).contains(recorded.file());
      assertThat(second.recordFile(file(TABLE, "2024-01-01", "part-0.parquet")).isNew()).isFalse();
      assertThat(second.dbFile()).isEqualTo(((SqliteLedger) ledger).dbFile());
    } finally {
      second.close();
    }
  }

  @Test
  void writeLockHeldPastTheBusyTimeoutIsReportedUnavailable() throws SQLException {
    SqliteLedger impatient = SqliteLedger.open(dbFile(), clock, Duration.ofMillis(200));
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = other.createStatement()) {
      // Another process in the middle of a write.
      statement.execute("BEGIN IMMEDIATE");

      assertThatThrownBy(() -> impatient.recordFile(file(TABLE, "2024-01-01", "part-0.parquet")))
          .isInstanceOf(LedgerUnavailableException.class)
          .hasMessageContaining("recordFile")
          .hasMessageContaining("gs://landing/raw/lake.clicks/dt=2024-01-01/part-0.parquet");
      // Readers are not blocked by a writer in WAL mode.
      assertThat(impatient.tables()).isEmpty();

      statement.execute("ROLLBACK");
      assertThat(impatient.recordFile(file(TABLE, "2024-01-01", "part-0.parquet")).isNew()).isTrue();
    } finally {
      impatient.close();
    }
  }

  @Test
  void aVersionOneLedgerIsUpgradedWithEachBatchsLaunchesAsItsAttempts() throws SQLException {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.markRunning(batch.batchId(), LEASE);
    ledger.markRunning(batch.batchId(), LEASE);
    ledger.close();
    // The file as a version-1 build left it: no launches column.
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      statement.execute("ALTER TABLE \"batches\" DROP COLUMN \"launches\"");
      statement.execute("ALTER TABLE \"batches\" DROP COLUMN \"outcomeUnknown\"");
      dropFileLoadColumns(statement);
      dropBatchCauseColumns(statement);
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 1");
    }

    Ledger upgraded = openAnother(clock);

    assertThat(upgraded.batch(batch.batchId()).orElseThrow().launches()).isEqualTo(2);
    assertThat(upgraded.markRunning(batch.batchId(), LEASE).launches()).isEqualTo(3);
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
    }
  }

  @Test
  void aVersionTwoLedgerIsUpgradedWithAnUnknownOutcomeWhereTheBatchsErrorSaidSo() throws SQLException {
    readyPartition(TABLE, "2024-01-01", 1);
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord gaveUp = claim(1).orElseThrow();
    BatchRecord rejected = claim(1).orElseThrow();
    // A version-2 build kept the flag only as a phrase of the error.
    ledger.failBatch(new FailBatch(gaveUp.batchId(), "gave up after 3 attempt(s); the table may hold the batch: lost", 1, false));
    ledger.failBatch(new FailBatch(rejected.batchId(), "rejected: bad value", 1, true));
    ledger.close();
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      statement.execute("ALTER TABLE \"batches\" DROP COLUMN \"outcomeUnknown\"");
      dropFileLoadColumns(statement);
      dropBatchCauseColumns(statement);
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 2");
    }

    Ledger upgraded = openAnother(clock);

    assertThat(upgraded.batch(gaveUp.batchId()).orElseThrow().outcomeUnknown()).isTrue();
    assertThat(upgraded.batch(rejected.batchId()).orElseThrow().outcomeUnknown()).isFalse();
    assertThat(upgraded.reviveBatch(gaveUp.batchId()).outcomeUnknown()).isTrue();
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
    }
  }

  @Test
  void aVersionThreeLedgerIsUpgradedWithItsLoadedFilesCountsUnknown() throws SQLException {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 9L, METRICS));
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord next = claim(10).orElseThrow();
    ledger.close();
    // A version-3 build stored no load on its files.
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      dropFileLoadColumns(statement);
      dropBatchCauseColumns(statement);
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 3");
    }

    Ledger upgraded = openAnother(clock);

    FileRecord old = upgraded.file(files.get(0)).orElseThrow();
    assertThat(old.state()).isEqualTo(FileState.INGESTED);
    assertThat(old.snapshotId()).isEmpty();
    assertThat(old.rows()).isEmpty();
    String nextFile = next.fileIds().get(0);
    upgraded.commitBatch(new CommitBatch(next.batchId(), 10L, METRICS, Map.of(nextFile, new FileRows(3, 1, 0))));
    assertThat(upgraded.file(nextFile).orElseThrow().rows()).contains(new FileRows(3, 1, 0));
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
    }
  }

  @Test
  void aVersionFourLedgerIsUpgradedWithItsFailedBatchesCauseUnknown() throws SQLException {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord old = claim(10).orElseThrow();
    ledger.failBatch(new FailBatch(old.batchId(), "executor lost", 3, false));
    readyPartition(TABLE, "2024-01-02", 1);
    ledger.close();
    // A version-4 build stored no failure cause on its batches.
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      dropBatchCauseColumns(statement);
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 4");
    }

    Ledger upgraded = openAnother(clock);

    BatchRecord failedBefore = upgraded.batch(old.batchId()).orElseThrow();
    assertThat(failedBefore.error()).contains("executor lost");
    assertThat(failedBefore.cause()).isEmpty();
    BatchRecord next = upgraded.claimPartitions(new ClaimPartitions(TABLE, 10, Duration.ofMinutes(5), false))
        .orElseThrow();
    FailureCause cause = new FailureCause("org.apache.parquet.io.ParquetDecodingException",
        Optional.of("file:///landing/2024-01-02/f.parquet"));
    upgraded.failBatch(new FailBatch(next.batchId(), "cannot decode", 1, false, Optional.of(cause)));
    assertThat(upgraded.batch(next.batchId()).orElseThrow().cause()).contains(cause);
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
    }
  }

  @Test
  void aVersionEightLedgerIsUpgradedWithAnEmptyOutboxThatTakesTheNextCommitsEvent() throws SQLException {
    readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord before = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(before.batchId(), 8L, METRICS));
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord after = claim(10).orElseThrow();
    ledger.close();
    // A version-8 build had no outbox.
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE \"" + LedgerSchema.OUTBOX + "\"");
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 8");
    }

    Ledger upgraded = openAnother(clock);

    assertThat(upgraded.pendingEvents(10)).isEmpty();
    upgraded.commitBatch(new CommitBatch(after.batchId(), 9L, METRICS));
    assertThat(upgraded.pendingEvents(10)).extracting(ChangeEvent::eventId).containsExactly(after.batchId());
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
    }
  }

  @Test
  void aVersionSevenLedgerIsUpgradedWithNoChangesAndRollsBack() throws SQLException {
    readyPartition(TABLE, "2024-01-01", 2);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 9L, METRICS));
    ledger.close();
    // A version-7 build had no changes table.
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE \"" + LedgerSchema.CHANGES + "\"");
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 7");
    }

    Ledger upgraded = openAnother(clock);

    assertThat(upgraded.changes(TABLE)).isEmpty();
    upgraded.intendChange(new TableChange("rollback-1", TABLE, TableChange.ChangeKind.ROLLBACK,
        TableChange.ChangeState.INTENDED, Optional.of(9L), Optional.of(8L), List.of(batch.batchId()), List.of(),
        List.of("2024-01-01"), false, "ops", Optional.empty(), Optional.empty(), clock.instant(), clock.instant()));
    assertThat(upgraded.applyChange("rollback-1").state()).isEqualTo(TableChange.ChangeState.APPLIED);
    assertThat(upgraded.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
      assertThat(single(statement, "SELECT \"" + LedgerSchema.STATE + "\" FROM \"" + LedgerSchema.CHANGES + "\""))
          .isEqualTo("applied");
    }
  }

  @Test
  void aVersionSixLedgerIsUpgradedWithItsLoadedFilesViolatingNoExpectation() throws SQLException {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord batch = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 9L, METRICS, Map.of(files.get(0), new FileRows(3, 1, 0, 2))));
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord next = claim(10).orElseThrow();
    ledger.close();
    // A version-6 build stored no expectation counts on its files.
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      dropExpectationsColumn(statement);
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 6");
    }

    Ledger upgraded = openAnother(clock);

    assertThat(upgraded.file(files.get(0)).orElseThrow().rows()).contains(new FileRows(3, 1, 0, 2));
    String nextFile = next.fileIds().get(0);
    FileRows violated = new FileRows(5, 2, 0, 0, Map.of("amount_positive", 2L));
    upgraded.commitBatch(new CommitBatch(next.batchId(), 10L, METRICS, Map.of(nextFile, violated)));
    assertThat(upgraded.file(nextFile).orElseThrow().rows()).contains(violated);
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
      assertThat(single(statement, "SELECT \"" + LedgerSchema.EXPECTATIONS_FAILED + "\" FROM \"files\" WHERE \""
          + LedgerSchema.FILE_ID + "\" = '" + nextFile + "'")).isEqualTo("{\"amount_positive\":2}");
    }
  }

  @Test
  void aVersionNineLedgerIsUpgradedWithItsLoadedFilesNeverCleanedAndTheNextLoadACandidate() throws SQLException {
    List<String> files = readyPartition(TABLE, "2024-01-01", 1);
    BatchRecord before = claim(10).orElseThrow();
    ledger.commitBatch(new CommitBatch(before.batchId(), 8L, METRICS));
    readyPartition(TABLE, "2024-01-02", 1);
    BatchRecord after = claim(10).orElseThrow();
    ledger.close();
    // A version-9 build recorded neither load times nor cleanup.
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      dropCleanupColumns(statement);
      statement.execute("PRAGMA user_version = 9");
    }

    Ledger upgraded = openAnother(clock);

    FileRecord old = upgraded.file(files.get(0)).orElseThrow();
    assertThat(old.state()).isEqualTo(FileState.INGESTED);
    assertThat(old.ingestedAt()).isEmpty();
    assertThat(old.cleaned()).isEmpty();
    clock.advance(Duration.ofMinutes(1));
    upgraded.commitBatch(new CommitBatch(after.batchId(), 9L, METRICS));
    clock.advance(Duration.ofDays(40));
    // The file loaded before the upgrade has no load time: cleanup leaves its object alone.
    assertThat(upgraded.filesToClean(TABLE, clock.instant(), 10)).extracting(FileRecord::fileId)
        .containsExactlyElementsOf(after.fileIds());
    assertThatThrownBy(() -> upgraded.cleanFiles(TABLE, List.of(new Ledger.CleanFile(files.get(0),
        CleanedObject.deleted(clock.instant())))))
        .hasMessageContaining(files.get(0))
        .hasMessageContaining("no load time");
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "PRAGMA user_version")).isEqualTo(String.valueOf(LedgerSchema.VERSION));
      assertThat(single(statement, "SELECT \"" + LedgerSchema.LANDING + "\" FROM \"files\" WHERE \""
          + LedgerSchema.FILE_ID + "\" = '" + files.get(0) + "'")).isEqualTo(LedgerSchema.LANDING_PRESENT);
    }
  }

  @Test
  void cleanupQueriesReadThroughTheirPartialIndexes() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile())) {
      assertThat(plan(connection, SqliteStatements.SELECT_FILES_TO_CLEAN)).contains("files_to_clean")
          .doesNotContain("TEMP B-TREE");
      assertThat(plan(connection, SqliteStatements.SELECT_FILES_BEING_CLEANED)).contains("files_being_cleaned")
          .doesNotContain("TEMP B-TREE");
    }
  }

  private static String plan(Connection connection, String sql) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (java.sql.PreparedStatement explain = connection.prepareStatement("EXPLAIN QUERY PLAN " + sql);
        ResultSet rs = explain.executeQuery()) {
      while (rs.next()) {
        plan.append(rs.getString("detail")).append('\n');
      }
    }
    return plan.toString();
  }

  /** The files as every build before version 10 left them: no load time, no landing cleanup. */
  private static void dropCleanupColumns(Statement statement) throws SQLException {
    statement.execute("DROP INDEX \"files_to_clean\"");
    statement.execute("DROP INDEX \"files_being_cleaned\"");
    for (String column : List.of(LedgerSchema.INGESTED_AT, LedgerSchema.LANDING, LedgerSchema.ARCHIVE_URI,
        LedgerSchema.ARCHIVE_GENERATION, LedgerSchema.CLEANED_AT, LedgerSchema.REMOVED_AT)) {
      statement.execute("ALTER TABLE \"files\" DROP COLUMN \"" + column + "\"");
    }
  }

  /** The files as every build before version 7 left them: no expectation counts. */
  private static void dropExpectationsColumn(Statement statement) throws SQLException {
    statement.execute("ALTER TABLE \"files\" DROP COLUMN \"" + LedgerSchema.EXPECTATIONS_FAILED + "\"");
  }

  /**
   * The batches as a build before version 5 left them: no failure cause; and the files, as every
   * build before version 6 left them, without an ignored columns count (nor expectation counts).
   */
  private static void dropBatchCauseColumns(Statement statement) throws SQLException {
    dropExpectationsColumn(statement);
    statement.execute("ALTER TABLE \"files\" DROP COLUMN \"" + LedgerSchema.COLUMNS_IGNORED + "\"");
    for (String column : List.of(LedgerSchema.ERROR_CLASS, LedgerSchema.ERROR_FILE)) {
      statement.execute("ALTER TABLE \"batches\" DROP COLUMN \"" + column + "\"");
    }
  }

  /** The files as a build before version 4 left them: no load columns. */
  private static void dropFileLoadColumns(Statement statement) throws SQLException {
    for (String column : List.of(LedgerSchema.SNAPSHOT_ID, LedgerSchema.ROWS_READ, LedgerSchema.ROWS_REJECTED,
        LedgerSchema.ROWS_RESCUED)) {
      statement.execute("ALTER TABLE \"files\" DROP COLUMN \"" + column + "\"");
    }
  }

  @Test
  void newerSchemaVersionIsRefused() throws SQLException {
    ledger.close();
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      statement.execute("PRAGMA user_version = " + (LedgerSchema.VERSION + 1));
    }

    assertThatThrownBy(() -> SqliteLedger.open(dbFile(), clock))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("schema version " + (LedgerSchema.VERSION + 1));
  }

  @Test
  void closedLedgerRefusesCalls() {
    ledger.close();

    assertThatThrownBy(() -> ledger.batch("b-1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(ledger.isAvailable()).isFalse();
  }

  @Test
  void missingOptionalFieldsReadBackEmpty() {
    FileRecorded recorded = ledger.recordFile(file(TABLE, "2024-01-01", "part-0.parquet", 1, true));

    assertThat(recorded.partition().prefix()).isEqualTo(Optional.empty());
    assertThat(recorded.partition().lastError()).isEmpty();
    assertThat(recorded.file().quarantineReason()).isEmpty();
  }

  private static String single(Statement statement, String sql) throws SQLException {
    try (ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
