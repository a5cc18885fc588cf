package io.files2iceberg.core.ledger.sqlite;

import static io.files2iceberg.core.ledger.LedgerSchema.CHANGES;
import static io.files2iceberg.core.ledger.LedgerSchema.CHANGE;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTBOX;
import static io.files2iceberg.core.ledger.LedgerSchema.PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.CHANGE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.KIND;
import static io.files2iceberg.core.ledger.LedgerSchema.FROM_SNAPSHOT;
import static io.files2iceberg.core.ledger.LedgerSchema.TO_SNAPSHOT;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.UNDONE_CHANGES;
import static io.files2iceberg.core.ledger.LedgerSchema.HOLD;
import static io.files2iceberg.core.ledger.LedgerSchema.ACTOR;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTCOME;
import static io.files2iceberg.core.ledger.LedgerSchema.ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_POSITION;
import static io.files2iceberg.core.ledger.LedgerSchema.BUCKET;
import static io.files2iceberg.core.ledger.LedgerSchema.COMMITTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_CLASS;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_FILE;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_TIME;
import static io.files2iceberg.core.ledger.LedgerSchema.FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.GENERATION;
import static io.files2iceberg.core.ledger.LedgerSchema.LAST_ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.LAUNCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.LEASE_UNTIL;
import static io.files2iceberg.core.ledger.LedgerSchema.MARKER_SEEN;
import static io.files2iceberg.core.ledger.LedgerSchema.MESSAGE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.METRICS;
import static io.files2iceberg.core.ledger.LedgerSchema.NAME;
import static io.files2iceberg.core.ledger.LedgerSchema.OBJECT_URI;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTCOME_UNKNOWN;
import static io.files2iceberg.core.ledger.LedgerSchema.OVERWROTE_GENERATION;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITION;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS_FIELD;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITION_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.PREFIX;
import static io.files2iceberg.core.ledger.LedgerSchema.PROBE;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE_REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_READ;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_REJECTED;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_RESCUED;
import static io.files2iceberg.core.ledger.LedgerSchema.COLUMNS_IGNORED;
import static io.files2iceberg.core.ledger.LedgerSchema.EXPECTATIONS_FAILED;
import static io.files2iceberg.core.ledger.LedgerSchema.RAW_PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.READY_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RECEIVED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.RECORDED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.SIZE;
import static io.files2iceberg.core.ledger.LedgerSchema.SNAPSHOT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.URI;
import static io.files2iceberg.core.ledger.LedgerSchema.INGESTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.LANDING;
import static io.files2iceberg.core.ledger.LedgerSchema.LANDING_PRESENT;
import static io.files2iceberg.core.ledger.LedgerSchema.ARCHIVE_URI;
import static io.files2iceberg.core.ledger.LedgerSchema.ARCHIVE_GENERATION;
import static io.files2iceberg.core.ledger.LedgerSchema.CLEANED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.REMOVED_AT;
import static io.files2iceberg.core.ledger.sqlite.SqliteSchema.q;

import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import java.util.Arrays;

/** The SQLite ledger's statements, as text ({@link SqliteQueries} runs them). */
final class SqliteStatements {
  private SqliteStatements() {}

  // Keeps IN (...) lists of ids well below SQLite's bound on parameters per statement.
  static final int IDS_PER_QUERY = 500;
  static final int FAILED_BATCHES_SHOWN = 10;

  static final String IN_FLIGHT =
      "(" + sqlString(BatchState.PLANNED.code()) + ", " + sqlString(BatchState.RUNNING.code()) + ")";

  static final String SELECT_FILE = "SELECT * FROM " + q(FILES) + " WHERE " + q(FILE_ID) + " = ?";
  static final String SELECT_FILES_IN = "SELECT * FROM " + q(FILES) + " WHERE " + q(FILE_ID) + " IN ";
  static final String INSERT_FILE =
      "INSERT INTO " + q(FILES) + " (" + columns(FILE_ID, TABLE, PARTITION, BUCKET, NAME, GENERATION,
          URI, SIZE, EVENT_ID, EVENT_TIME, OVERWROTE_GENERATION, STATE, RECORDED_AT, INGESTED_AT, LANDING, ARCHIVE_URI,
          ARCHIVE_GENERATION, CLEANED_AT, REMOVED_AT)
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (" + q(FILE_ID)
          + ") DO NOTHING";
  // A file's position in its batch is set where its batch is (a claim, a revival), kept while the
  // batch is, and cleared with it.
  static final String UPDATE_FILE =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = ?, " + q(BATCH_ID) + " = ?, " + q(BATCH_POSITION)
          + " = CASE WHEN ? IS NULL THEN NULL ELSE COALESCE(?, " + q(BATCH_POSITION) + ") END, "
          + q(QUARANTINE_REASON) + " = ?, " + q(SNAPSHOT_ID) + " = ?, " + q(ROWS_READ) + " = ?, " + q(ROWS_REJECTED)
          + " = ?, " + q(ROWS_RESCUED) + " = ?, " + q(COLUMNS_IGNORED) + " = ?, " + q(EXPECTATIONS_FAILED) + " = ?, "
          + q(INGESTED_AT) + " = ?, " + q(LANDING) + " = ?, " + q(ARCHIVE_URI) + " = ?, " + q(ARCHIVE_GENERATION)
          + " = ?, " + q(CLEANED_AT) + " = ?, " + q(REMOVED_AT) + " = ? WHERE " + q(FILE_ID) + " = ?";
  // Claim order: URI, then generation. The index on (table, partition, state, uri, generation)
  // serves it, so consecutive claims of one partition take consecutive ranges.
  static final String SELECT_FILES_IN_STATE =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(PARTITION) + " = ? AND " + q(STATE)
          + " = ? ORDER BY " + q(URI) + ", " + q(GENERATION) + " LIMIT ?";
  static final String SELECT_FILES_OF_PRUNED_BATCH =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(BATCH_ID) + " = ? ORDER BY " + q(BATCH_POSITION);
  static final String COUNT_FILES_BY_STATE =
      "SELECT " + q(STATE) + ", COUNT(*) FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? GROUP BY " + q(STATE);
  static final String SELECT_FILES_OF_PARTITION =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(PARTITION) + " = ? ORDER BY "
          + q(URI) + ", " + q(GENERATION);
  static final String SELECT_QUARANTINED_FILES =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(STATE) + " = " + sqlString(FileState.QUARANTINED.code())
          + " ORDER BY " + q(TABLE) + ", " + q(PARTITION) + ", " + q(URI) + ", " + q(GENERATION);
  static final String SELECT_FILES_NAMED =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(BUCKET) + " = ? AND " + q(NAME) + " = ? ORDER BY " + q(GENERATION);

  // The partial indexes of SqliteSchema.cleanupIndexes serve these: their WHERE terms repeat the
  // indexes' conditions (the IS NOT NULL too), which is how SQLite knows it may use them.
  static final String SELECT_FILES_TO_CLEAN =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(FileState.INGESTED.code()) + " AND " + q(LANDING) + " = " + sqlString(LANDING_PRESENT)
          + " AND " + q(INGESTED_AT) + " IS NOT NULL AND " + q(INGESTED_AT) + " < ? ORDER BY " + q(INGESTED_AT)
          + ", " + q(FILE_ID) + " LIMIT ?";
  static final String SELECT_FILES_BEING_CLEANED =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(LANDING) + " <> "
          + sqlString(LANDING_PRESENT) + " AND " + q(REMOVED_AT) + " IS NULL ORDER BY " + q(CLEANED_AT) + ", "
          + q(FILE_ID) + " LIMIT ?";

  static final String SELECT_PARTITION = "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(PARTITION_ID) + " = ?";
  static final String UPSERT_PARTITION =
      "INSERT INTO " + q(PARTITIONS) + " (" + columns(PARTITION_ID, TABLE, PARTITION, PREFIX, STATE, MARKER_SEEN,
          BATCH_ID, ATTEMPTS, LAST_ERROR, READY_AT, UPDATED_AT) + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
          + "ON CONFLICT (" + q(PARTITION_ID) + ") DO UPDATE SET " + excluded(PREFIX, STATE, MARKER_SEEN, BATCH_ID,
              ATTEMPTS, LAST_ERROR, READY_AT, UPDATED_AT);
  static final String SELECT_PARTITIONS_IN_STATE =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = ? ORDER BY "
          + q(PARTITION) + " LIMIT ?";
  static final String COUNT_PARTITIONS_BY_STATE =
      "SELECT " + q(STATE) + ", COUNT(*) FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? GROUP BY " + q(STATE);
  static final String OLDEST_READY_AT =
      "SELECT MIN(" + q(READY_AT) + ") FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND "
          + q(STATE) + " = " + sqlString(PartitionState.READY.code());
  static final String SELECT_FAILED_PARTITIONS =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(PartitionState.FAILED.code()) + " ORDER BY " + q(PARTITION);
  static final String SELECT_TABLES = "SELECT DISTINCT " + q(TABLE) + " FROM " + q(PARTITIONS) + " ORDER BY " + q(TABLE);
  static final String SELECT_PARTITIONS_OF_TABLE =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? ORDER BY " + q(PARTITION);

  static final String SELECT_BATCH = "SELECT * FROM " + q(BATCHES) + " WHERE " + q(BATCH_ID) + " = ?";
  // The commit time orders batches for pruning and the last commit: the batch's time of its commit,
  // which is its last write (COMMITTED is final).
  static final String UPSERT_BATCH =
      "INSERT INTO " + q(BATCHES) + " (" + columns(BATCH_ID, TABLE, STATE, PARTITIONS_FIELD, FILE_IDS, EVENT_IDS,
          ATTEMPTS, LAUNCHES, OUTCOME_UNKNOWN, LEASE_UNTIL, SNAPSHOT_ID, METRICS, ERROR, ERROR_CLASS, ERROR_FILE,
          CREATED_AT, UPDATED_AT, COMMITTED_AT) + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (" + q(BATCH_ID) + ") DO UPDATE SET " + excluded(STATE, ATTEMPTS, LAUNCHES, OUTCOME_UNKNOWN,
              LEASE_UNTIL, SNAPSHOT_ID, METRICS, ERROR, ERROR_CLASS, ERROR_FILE, UPDATED_AT, COMMITTED_AT);
  static final String SELECT_BATCHES_IN_STATE =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = ? ORDER BY "
          + q(CREATED_AT) + ", " + q(BATCH_ID);
  static final String DELETE_BATCH = "DELETE FROM " + q(BATCHES) + " WHERE " + q(BATCH_ID) + " = ?";
  static final String SELECT_EXPIRED =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(STATE) + " IN " + IN_FLIGHT + " AND "
          + q(LEASE_UNTIL) + " < ? ORDER BY " + q(LEASE_UNTIL) + ", " + q(BATCH_ID);
  static final String SELECT_IN_FLIGHT =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " IN " + IN_FLIGHT
          + " ORDER BY " + q(CREATED_AT) + ", " + q(BATCH_ID);
  static final String SELECT_LAST_COMMITTED =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(BatchState.COMMITTED.code()) + " ORDER BY " + q(COMMITTED_AT) + " DESC, "
          + q(BATCH_ID) + " DESC LIMIT 1";
  static final String SELECT_FAILED_BATCHES =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(BatchState.FAILED.code()) + " ORDER BY " + q(UPDATED_AT) + " DESC, " + q(BATCH_ID)
          + " DESC LIMIT " + FAILED_BATCHES_SHOWN;
  static final String SELECT_SETTLED_SINCE =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " IN ("
          + sqlString(BatchState.COMMITTED.code()) + ", " + sqlString(BatchState.FAILED.code()) + ") AND "
          + q(UPDATED_AT) + " >= ? ORDER BY " + q(UPDATED_AT) + " DESC, " + q(BATCH_ID) + " DESC";
  static final String SELECT_BATCHES_OF_TABLE =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? ORDER BY " + q(CREATED_AT) + ", " + q(BATCH_ID);
  // The batch row lists its partitions as a JSON array; json_each looks inside it.
  static final String SELECT_BATCHES_OF_PARTITION =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND EXISTS (SELECT 1 FROM json_each("
          + q(BATCHES) + "." + q(PARTITIONS_FIELD) + ") WHERE value = ?) ORDER BY " + q(CREATED_AT) + ", " + q(BATCH_ID);

  static final String INSERT_QUARANTINED =
      "INSERT INTO " + q(QUARANTINE) + " (" + columns(MESSAGE_ID, REASON, RAW_PAYLOAD, OBJECT_URI, RECEIVED_AT)
          + ") VALUES (?, ?, ?, ?, ?) ON CONFLICT (" + q(MESSAGE_ID) + ") DO NOTHING";
  static final String SELECT_QUARANTINED =
      "SELECT * FROM " + q(QUARANTINE) + " ORDER BY " + q(RECEIVED_AT) + ", " + q(MESSAGE_ID);
  static final String SELECT_QUARANTINED_ONE =
      "SELECT * FROM " + q(QUARANTINE) + " WHERE " + q(MESSAGE_ID) + " = ?";
  static final String DELETE_QUARANTINED = "DELETE FROM " + q(QUARANTINE) + " WHERE " + q(MESSAGE_ID) + " = ?";
  static final String PUT_CHANGE =
      "INSERT OR REPLACE INTO " + q(CHANGES) + " (" + columns(CHANGE_ID, TABLE, KIND, STATE, FROM_SNAPSHOT, TO_SNAPSHOT,
          BATCH_IDS, UNDONE_CHANGES, PARTITIONS_FIELD, HOLD, ACTOR, REASON, OUTCOME, CREATED_AT, UPDATED_AT)
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  static final String SELECT_CHANGE = "SELECT * FROM " + q(CHANGES) + " WHERE " + q(CHANGE_ID) + " = ?";
  static final String SELECT_CHANGES_OF_TABLE =
      "SELECT * FROM " + q(CHANGES) + " WHERE " + q(TABLE) + " = ? ORDER BY " + q(CREATED_AT) + ", " + q(CHANGE_ID);
  static final String PUT_EVENT = "INSERT OR REPLACE INTO " + q(OUTBOX) + " ("
      + columns(EVENT_ID, TABLE, CHANGE, PAYLOAD, CREATED_AT) + ") VALUES (?, ?, ?, ?, ?)";
  static final String SELECT_EVENTS =
      "SELECT * FROM " + q(OUTBOX) + " ORDER BY " + q(CREATED_AT) + ", " + q(EVENT_ID) + " LIMIT ?";
  static final String DELETE_EVENT = "DELETE FROM " + q(OUTBOX) + " WHERE " + q(EVENT_ID) + " = ?";
  static final String WRITE_PROBE =
      "INSERT OR REPLACE INTO " + q(PROBE) + " (\"id\", " + q(UPDATED_AT) + ") VALUES (1, ?)";

  // --- reads ------------------------------------------------------------------------------------


  static String columns(String... names) {
    return String.join(", ", Arrays.stream(names).map(SqliteSchema::q).toList());
  }

  static String excluded(String... names) {
    return String.join(", ", Arrays.stream(names).map(n -> q(n) + " = excluded." + q(n)).toList());
  }

  static String sqlString(String code) {
    return "'" + code + "'";
  }
}
