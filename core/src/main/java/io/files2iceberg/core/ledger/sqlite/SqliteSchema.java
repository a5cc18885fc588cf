package io.files2iceberg.core.ledger.sqlite;

import static io.files2iceberg.core.ledger.LedgerSchema.ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_POSITION;
import static io.files2iceberg.core.ledger.LedgerSchema.BUCKET;
import static io.files2iceberg.core.ledger.LedgerSchema.COMMITTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTCOME;
import static io.files2iceberg.core.ledger.LedgerSchema.ACTOR;
import static io.files2iceberg.core.ledger.LedgerSchema.HOLD;
import static io.files2iceberg.core.ledger.LedgerSchema.UNDONE_CHANGES;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.TO_SNAPSHOT;
import static io.files2iceberg.core.ledger.LedgerSchema.FROM_SNAPSHOT;
import static io.files2iceberg.core.ledger.LedgerSchema.KIND;
import static io.files2iceberg.core.ledger.LedgerSchema.CHANGE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.CHANGES;
import static io.files2iceberg.core.ledger.LedgerSchema.CHANGE;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTBOX;
import static io.files2iceberg.core.ledger.LedgerSchema.PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_CLASS;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_FILE;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_TIME;
import static io.files2iceberg.core.ledger.LedgerSchema.EXPECTATIONS_FAILED;
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
import static io.files2iceberg.core.ledger.LedgerSchema.RAW_PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.READY_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RECEIVED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.RECORDED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_READ;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_REJECTED;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_RESCUED;
import static io.files2iceberg.core.ledger.LedgerSchema.COLUMNS_IGNORED;
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
import io.files2iceberg.core.ledger.FileState;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import io.files2iceberg.core.ledger.LedgerSchema;

/**
 * The ledger's collections as SQLite tables: one table per collection, one column per field, all
 * named by {@link LedgerSchema}. Times are epoch milliseconds; states are their string codes; lists
 * and metrics are JSON text.
 */
final class SqliteSchema {
  private SqliteSchema() {}

  /** A column of a table, quoted, with its type and constraints. */
  private record Column(String name, String type) {}

  /** The files' landing cleanup columns (version 10). */
  private static final List<Column> CLEANUP_COLUMNS = List.of(
      new Column(q(INGESTED_AT), "INTEGER"),
      new Column(q(LANDING), "TEXT NOT NULL DEFAULT '" + LANDING_PRESENT + "'"),
      new Column(q(ARCHIVE_URI), "TEXT"),
      new Column(q(ARCHIVE_GENERATION), "INTEGER"),
      new Column(q(CLEANED_AT), "INTEGER"),
      new Column(q(REMOVED_AT), "INTEGER"));

  /** Quotes an identifier: {@code table} and {@code partition} are SQL keywords. */
  static String q(String identifier) {
    return '"' + identifier + '"';
  }

  /** Idempotent: every statement is IF NOT EXISTS, so concurrent first opens are harmless. */
  static List<String> ddl() {
    return List.of(
        "CREATE TABLE IF NOT EXISTS " + q(FILES) + " ("
            + q(FILE_ID) + " TEXT PRIMARY KEY, "
            + q(TABLE) + " TEXT NOT NULL, "
            + q(PARTITION) + " TEXT NOT NULL, "
            + q(BUCKET) + " TEXT NOT NULL, "
            + q(NAME) + " TEXT NOT NULL, "
            + q(GENERATION) + " INTEGER NOT NULL, "
            + q(URI) + " TEXT NOT NULL, "
            + q(SIZE) + " INTEGER NOT NULL, "
            + q(EVENT_ID) + " TEXT NOT NULL, "
            + q(EVENT_TIME) + " INTEGER NOT NULL, "
            + q(OVERWROTE_GENERATION) + " INTEGER, "
            + q(STATE) + " TEXT NOT NULL, "
            + q(BATCH_ID) + " TEXT, "
            + q(BATCH_POSITION) + " INTEGER, "
            + q(QUARANTINE_REASON) + " TEXT, "
            + q(RECORDED_AT) + " INTEGER NOT NULL, "
            + q(SNAPSHOT_ID) + " INTEGER, "
            + q(ROWS_READ) + " INTEGER, "
            + q(ROWS_REJECTED) + " INTEGER, "
            + q(ROWS_RESCUED) + " INTEGER, "
            + q(COLUMNS_IGNORED) + " INTEGER, "
            + q(EXPECTATIONS_FAILED) + " TEXT, "
            + CLEANUP_COLUMNS.stream().map(column -> column.name() + " " + column.type())
                .collect(Collectors.joining(", ")) + ")",
        // The claim walk: a partition's pending files in claim order, without a sort.
        index(FILES, TABLE, PARTITION, STATE, URI, GENERATION),
        // Status counts by state.
        index(FILES, TABLE, STATE),
        // A batch's files in claim order (also after the batch row is pruned).
        index(FILES, BATCH_ID, BATCH_POSITION),
        // inspect --file: every generation of one object.
        index(FILES, BUCKET, NAME, GENERATION),
        "CREATE TABLE IF NOT EXISTS " + q(PARTITIONS) + " ("
            + q(PARTITION_ID) + " TEXT PRIMARY KEY, "
            + q(TABLE) + " TEXT NOT NULL, "
            + q(PARTITION) + " TEXT NOT NULL, "
            + q(PREFIX) + " TEXT, "
            + q(STATE) + " TEXT NOT NULL, "
            + q(MARKER_SEEN) + " INTEGER NOT NULL, "
            + q(BATCH_ID) + " TEXT, "
            + q(ATTEMPTS) + " INTEGER NOT NULL, "
            + q(LAST_ERROR) + " TEXT, "
            + q(READY_AT) + " INTEGER, "
            + q(UPDATED_AT) + " INTEGER NOT NULL)",
        // READY partitions of a table in token order; status counts.
        index(PARTITIONS, TABLE, STATE, PARTITION),
        "CREATE TABLE IF NOT EXISTS " + q(BATCHES) + " ("
            + q(BATCH_ID) + " TEXT PRIMARY KEY, "
            + q(TABLE) + " TEXT NOT NULL, "
            + q(STATE) + " TEXT NOT NULL, "
            + q(PARTITIONS_FIELD) + " TEXT NOT NULL, "
            + q(FILE_IDS) + " TEXT NOT NULL, "
            + q(EVENT_IDS) + " TEXT NOT NULL, "
            + q(ATTEMPTS) + " INTEGER NOT NULL, "
            + q(LAUNCHES) + " INTEGER NOT NULL DEFAULT 0, "
            + q(OUTCOME_UNKNOWN) + " INTEGER NOT NULL DEFAULT 0, "
            + q(LEASE_UNTIL) + " INTEGER, "
            + q(SNAPSHOT_ID) + " INTEGER, "
            + q(METRICS) + " TEXT, "
            + q(ERROR) + " TEXT, "
            + q(ERROR_CLASS) + " TEXT, "
            + q(ERROR_FILE) + " TEXT, "
            + q(CREATED_AT) + " INTEGER NOT NULL, "
            + q(UPDATED_AT) + " INTEGER NOT NULL, "
            + q(COMMITTED_AT) + " INTEGER)",
        // In-flight checks, the last commit, pruning.
        index(BATCHES, TABLE, STATE, COMMITTED_AT),
        // Recovery: expired leases.
        index(BATCHES, STATE, LEASE_UNTIL),
        "CREATE TABLE IF NOT EXISTS " + q(QUARANTINE) + " ("
            + q(MESSAGE_ID) + " TEXT PRIMARY KEY, "
            + q(REASON) + " TEXT NOT NULL, "
            + q(RAW_PAYLOAD) + " TEXT NOT NULL, "
            + q(OBJECT_URI) + " TEXT, "
            + q(RECEIVED_AT) + " INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS " + q(CHANGES) + " ("
            + q(CHANGE_ID) + " TEXT PRIMARY KEY, "
            + q(TABLE) + " TEXT NOT NULL, "
            + q(KIND) + " TEXT NOT NULL, "
            + q(STATE) + " TEXT NOT NULL, "
            + q(FROM_SNAPSHOT) + " INTEGER, "
            + q(TO_SNAPSHOT) + " INTEGER, "
            + q(BATCH_IDS) + " TEXT NOT NULL, "
            + q(UNDONE_CHANGES) + " TEXT NOT NULL, "
            + q(PARTITIONS_FIELD) + " TEXT NOT NULL, "
            + q(HOLD) + " INTEGER NOT NULL, "
            + q(ACTOR) + " TEXT NOT NULL, "
            + q(REASON) + " TEXT, "
            + q(OUTCOME) + " TEXT, "
            + q(CREATED_AT) + " INTEGER NOT NULL, "
            + q(UPDATED_AT) + " INTEGER NOT NULL)",
        // A table's changes, oldest first; its INTENDED one, which claims wait for.
        index(CHANGES, TABLE, CREATED_AT),
        "CREATE TABLE IF NOT EXISTS " + q(OUTBOX) + " ("
            + q(EVENT_ID) + " TEXT PRIMARY KEY, "
            + q(TABLE) + " TEXT NOT NULL, "
            + q(CHANGE) + " TEXT NOT NULL, "
            + q(PAYLOAD) + " TEXT NOT NULL, "
            + q(CREATED_AT) + " INTEGER NOT NULL)",
        // The events still to publish, oldest first.
        index(OUTBOX, CREATED_AT, EVENT_ID),
        // One row, rewritten by every health check: a write that proves the file takes writes.
        "CREATE TABLE IF NOT EXISTS " + q(PROBE) + " ("
            + "\"id\" INTEGER PRIMARY KEY CHECK (\"id\" = 1), "
            + q(UPDATED_AT) + " INTEGER NOT NULL)");
  }

  /**
   * Brings a ledger of an earlier schema version to this one, in the same transaction as {@link
   * #ddl()} (which has created only what was missing). Version 2 added the batches' launches: an
   * earlier batch's launches are its attempts (a batch revived before the upgrade cannot be told
   * apart, and relaunches at its attempt count). Version 3 added the batches' outcome-unknown flag:
   * an earlier batch has it when its error says so ({@link LedgerSchema#legacyOutcomeUnknown}).
   * Version 4 added the files' load (snapshot and row counts): an earlier file has none (unknown).
   * Version 5 added the batches' failure cause (error class, file at fault): an earlier batch has
   * none, its error alone says why. Version 6 added the files' ignored columns count: an earlier
   * loaded file reads 0. Version 7 added the files' expectation counts (JSON text): an earlier
   * loaded file has none, as a file that violated no expectation. Version 8 added the operators'
   * changes (a table of their own, which {@link #ddl()} creates). Version 9 added the outbox of
   * change events (a table of its own, which {@link #ddl()} creates, empty: changes made before the
   * upgrade publish no event). Version 10 added the files' load time and landing cleanup ({@link
   * #cleanupIndexes()}): an earlier file has no load time, so an INGESTED file of an upgraded ledger
   * is never a cleanup candidate (its object stays where it landed), and its landing is present.
   */
  static List<String> upgrade(int fromVersion) {
    List<String> statements = new ArrayList<>();
    if (fromVersion < 2) {
      statements.add("ALTER TABLE " + q(BATCHES) + " ADD COLUMN " + q(LAUNCHES) + " INTEGER NOT NULL DEFAULT 0");
      statements.add("UPDATE " + q(BATCHES) + " SET " + q(LAUNCHES) + " = " + q(ATTEMPTS));
    }
    if (fromVersion < 3) {
      statements.add("ALTER TABLE " + q(BATCHES) + " ADD COLUMN " + q(OUTCOME_UNKNOWN) + " INTEGER NOT NULL DEFAULT 0");
      // instr, not LIKE: the phrase is matched case-sensitively, as LedgerSchema.legacyOutcomeUnknown does.
      statements.add("UPDATE " + q(BATCHES) + " SET " + q(OUTCOME_UNKNOWN) + " = 1 WHERE instr(" + q(ERROR) + ", '"
          + LedgerSchema.LEGACY_OUTCOME_UNKNOWN_PHRASE + "') > 0");
    }
    if (fromVersion < 4) {
      for (String column : List.of(SNAPSHOT_ID, ROWS_READ, ROWS_REJECTED, ROWS_RESCUED)) {
        statements.add("ALTER TABLE " + q(FILES) + " ADD COLUMN " + q(column) + " INTEGER");
      }
    }
    if (fromVersion < 5) {
      for (String column : List.of(ERROR_CLASS, ERROR_FILE)) {
        statements.add("ALTER TABLE " + q(BATCHES) + " ADD COLUMN " + q(column) + " TEXT");
      }
    }
    if (fromVersion < 6) {
      statements.add("ALTER TABLE " + q(FILES) + " ADD COLUMN " + q(COLUMNS_IGNORED) + " INTEGER");
    }
    if (fromVersion < 7) {
      statements.add("ALTER TABLE " + q(FILES) + " ADD COLUMN " + q(EXPECTATIONS_FAILED) + " TEXT");
    }
    if (fromVersion < 10) {
      for (Column column : CLEANUP_COLUMNS) {
        statements.add("ALTER TABLE " + q(FILES) + " ADD COLUMN " + column.name() + " " + column.type());
      }
    }
    return statements;
  }

  /**
   * Indexes over columns that {@link #upgrade} adds, created after it (an older file lacks the
   * columns when {@link #ddl()} runs). Both are partial: they hold only the files cleanup is
   * looking for, so the listener's writes of new files never touch them.
   */
  static List<String> cleanupIndexes() {
    return List.of(
        // Cleanup's candidates, oldest load first: INGESTED, object where it landed, with a load time.
        "CREATE INDEX IF NOT EXISTS " + q(FILES + "_to_clean") + " ON " + q(FILES) + " (" + q(TABLE) + ", "
            + q(INGESTED_AT) + ", " + q(FILE_ID) + ") WHERE " + q(STATE) + " = '" + FileState.INGESTED.code()
            + "' AND " + q(LANDING) + " = '" + LANDING_PRESENT + "' AND " + q(INGESTED_AT) + " IS NOT NULL",
        // Files cleaned in the ledger whose object is still to remove: a resumed cleanup's work.
        "CREATE INDEX IF NOT EXISTS " + q(FILES + "_being_cleaned") + " ON " + q(FILES) + " (" + q(TABLE) + ", "
            + q(CLEANED_AT) + ", " + q(FILE_ID) + ") WHERE " + q(LANDING) + " <> '" + LANDING_PRESENT + "' AND "
            + q(REMOVED_AT) + " IS NULL");
  }

  private static String index(String table, String... columns) {
    return "CREATE INDEX IF NOT EXISTS " + q(table + "_by_" + String.join("_", columns))
        + " ON " + q(table) + " ("
        + Arrays.stream(columns).map(SqliteSchema::q).collect(Collectors.joining(", ")) + ")";
  }

  /** Creates the schema, or upgrades an older one in place; refuses a newer one. */
  static Void create(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      int version;
      try (ResultSet rs = statement.executeQuery("PRAGMA user_version")) {
        version = rs.next() ? rs.getInt(1) : 0;
      }
      if (version > LedgerSchema.VERSION) {
        throw new IllegalStateException(
            "The ledger's schema version " + version + " is newer than this build's "
                + LedgerSchema.VERSION + "; upgrade files2iceberg");
      }
      for (String ddl : SqliteSchema.ddl()) {
        statement.execute(ddl);
      }
      if (version >= 1 && version < LedgerSchema.VERSION) {
        for (String upgrade : SqliteSchema.upgrade(version)) {
          statement.execute(upgrade);
        }
      }
      for (String index : SqliteSchema.cleanupIndexes()) {
        statement.execute(index);
      }
      if (version < LedgerSchema.VERSION) {
        statement.execute("PRAGMA user_version = " + LedgerSchema.VERSION);
      }
    }
    return null;
  }
}
