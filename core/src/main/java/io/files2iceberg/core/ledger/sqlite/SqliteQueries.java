package io.files2iceberg.core.ledger.sqlite;

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
import static io.files2iceberg.core.ledger.sqlite.SqliteSchema.q;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.TableStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQLite ledger's statements: reads into records ({@link SqliteRows}) and writes of whole
 * records, each within the caller's transaction. No decision is made here: what to write is the
 * rules' ({@code core.ledger.rules}).
 */
final class SqliteQueries {
  private SqliteQueries() {}


  // Keeps IN (...) lists of ids well below SQLite's bound on parameters per statement.
  private static final int IDS_PER_QUERY = 500;
  private static final int FAILED_BATCHES_SHOWN = 10;

  private static final String IN_FLIGHT =
      "(" + sqlString(BatchState.PLANNED.code()) + ", " + sqlString(BatchState.RUNNING.code()) + ")";

  private static final String SELECT_FILE = "SELECT * FROM " + q(FILES) + " WHERE " + q(FILE_ID) + " = ?";
  private static final String SELECT_FILES_IN = "SELECT * FROM " + q(FILES) + " WHERE " + q(FILE_ID) + " IN ";
  private static final String INSERT_FILE =
      "INSERT INTO " + q(FILES) + " (" + columns(FILE_ID, TABLE, PARTITION, BUCKET, NAME, GENERATION,
          URI, SIZE, EVENT_ID, EVENT_TIME, OVERWROTE_GENERATION, STATE, RECORDED_AT)
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (" + q(FILE_ID) + ") DO NOTHING";
  // A file's position in its batch is set where its batch is (a claim, a revival), kept while the
  // batch is, and cleared with it.
  private static final String UPDATE_FILE =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = ?, " + q(BATCH_ID) + " = ?, " + q(BATCH_POSITION)
          + " = CASE WHEN ? IS NULL THEN NULL ELSE COALESCE(?, " + q(BATCH_POSITION) + ") END, "
          + q(QUARANTINE_REASON) + " = ?, " + q(SNAPSHOT_ID) + " = ?, " + q(ROWS_READ) + " = ?, " + q(ROWS_REJECTED)
          + " = ?, " + q(ROWS_RESCUED) + " = ?, " + q(COLUMNS_IGNORED) + " = ? WHERE " + q(FILE_ID) + " = ?";
  // Claim order: URI, then generation. The index on (table, partition, state, uri, generation)
  // serves it, so consecutive claims of one partition take consecutive ranges.
  private static final String SELECT_FILES_IN_STATE =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(PARTITION) + " = ? AND " + q(STATE)
          + " = ? ORDER BY " + q(URI) + ", " + q(GENERATION) + " LIMIT ?";
  private static final String SELECT_FILES_OF_PRUNED_BATCH =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(BATCH_ID) + " = ? ORDER BY " + q(BATCH_POSITION);
  private static final String COUNT_FILES_BY_STATE =
      "SELECT " + q(STATE) + ", COUNT(*) FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? GROUP BY " + q(STATE);
  private static final String SELECT_FILES_OF_PARTITION =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(PARTITION) + " = ? ORDER BY "
          + q(URI) + ", " + q(GENERATION);
  private static final String SELECT_QUARANTINED_FILES =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(STATE) + " = " + sqlString(FileState.QUARANTINED.code())
          + " ORDER BY " + q(TABLE) + ", " + q(PARTITION) + ", " + q(URI) + ", " + q(GENERATION);
  private static final String SELECT_FILES_NAMED =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(BUCKET) + " = ? AND " + q(NAME) + " = ? ORDER BY " + q(GENERATION);

  private static final String SELECT_PARTITION = "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(PARTITION_ID) + " = ?";
  private static final String UPSERT_PARTITION =
      "INSERT INTO " + q(PARTITIONS) + " (" + columns(PARTITION_ID, TABLE, PARTITION, PREFIX, STATE, MARKER_SEEN,
          BATCH_ID, ATTEMPTS, LAST_ERROR, READY_AT, UPDATED_AT) + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
          + "ON CONFLICT (" + q(PARTITION_ID) + ") DO UPDATE SET " + excluded(PREFIX, STATE, MARKER_SEEN, BATCH_ID,
              ATTEMPTS, LAST_ERROR, READY_AT, UPDATED_AT);
  private static final String SELECT_PARTITIONS_IN_STATE =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = ? ORDER BY "
          + q(PARTITION) + " LIMIT ?";
  private static final String COUNT_PARTITIONS_BY_STATE =
      "SELECT " + q(STATE) + ", COUNT(*) FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? GROUP BY " + q(STATE);
  private static final String OLDEST_READY_AT =
      "SELECT MIN(" + q(READY_AT) + ") FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND "
          + q(STATE) + " = " + sqlString(PartitionState.READY.code());
  private static final String SELECT_FAILED_PARTITIONS =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(PartitionState.FAILED.code()) + " ORDER BY " + q(PARTITION);
  private static final String SELECT_TABLES = "SELECT DISTINCT " + q(TABLE) + " FROM " + q(PARTITIONS) + " ORDER BY " + q(TABLE);
  private static final String SELECT_PARTITIONS_OF_TABLE =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? ORDER BY " + q(PARTITION);

  private static final String SELECT_BATCH = "SELECT * FROM " + q(BATCHES) + " WHERE " + q(BATCH_ID) + " = ?";
  // The commit time orders batches for pruning and the last commit: the batch's time of its commit,
  // which is its last write (COMMITTED is final).
  private static final String UPSERT_BATCH =
      "INSERT INTO " + q(BATCHES) + " (" + columns(BATCH_ID, TABLE, STATE, PARTITIONS_FIELD, FILE_IDS, EVENT_IDS,
          ATTEMPTS, LAUNCHES, OUTCOME_UNKNOWN, LEASE_UNTIL, SNAPSHOT_ID, METRICS, ERROR, ERROR_CLASS, ERROR_FILE,
          CREATED_AT, UPDATED_AT, COMMITTED_AT) + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (" + q(BATCH_ID) + ") DO UPDATE SET " + excluded(STATE, ATTEMPTS, LAUNCHES, OUTCOME_UNKNOWN,
              LEASE_UNTIL, SNAPSHOT_ID, METRICS, ERROR, ERROR_CLASS, ERROR_FILE, UPDATED_AT, COMMITTED_AT);
  private static final String SELECT_BATCHES_IN_STATE =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = ? ORDER BY "
          + q(CREATED_AT) + ", " + q(BATCH_ID);
  private static final String DELETE_BATCH = "DELETE FROM " + q(BATCHES) + " WHERE " + q(BATCH_ID) + " = ?";
  private static final String SELECT_EXPIRED =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(STATE) + " IN " + IN_FLIGHT + " AND "
          + q(LEASE_UNTIL) + " < ? ORDER BY " + q(LEASE_UNTIL) + ", " + q(BATCH_ID);
  private static final String SELECT_IN_FLIGHT =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " IN " + IN_FLIGHT
          + " ORDER BY " + q(CREATED_AT) + ", " + q(BATCH_ID);
  private static final String SELECT_LAST_COMMITTED =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(BatchState.COMMITTED.code()) + " ORDER BY " + q(COMMITTED_AT) + " DESC, "
          + q(BATCH_ID) + " DESC LIMIT 1";
  private static final String SELECT_FAILED_BATCHES =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(BatchState.FAILED.code()) + " ORDER BY " + q(UPDATED_AT) + " DESC, " + q(BATCH_ID)
          + " DESC LIMIT " + FAILED_BATCHES_SHOWN;
  private static final String SELECT_SETTLED_SINCE =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " IN ("
          + sqlString(BatchState.COMMITTED.code()) + ", " + sqlString(BatchState.FAILED.code()) + ") AND "
          + q(UPDATED_AT) + " >= ? ORDER BY " + q(UPDATED_AT) + " DESC, " + q(BATCH_ID) + " DESC";
  private static final String SELECT_BATCHES_OF_TABLE =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? ORDER BY " + q(CREATED_AT) + ", " + q(BATCH_ID);
  // The batch row lists its partitions as a JSON array; json_each looks inside it.
  private static final String SELECT_BATCHES_OF_PARTITION =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND EXISTS (SELECT 1 FROM json_each("
          + q(BATCHES) + "." + q(PARTITIONS_FIELD) + ") WHERE value = ?) ORDER BY " + q(CREATED_AT) + ", " + q(BATCH_ID);

  private static final String INSERT_QUARANTINED =
      "INSERT INTO " + q(QUARANTINE) + " (" + columns(MESSAGE_ID, REASON, RAW_PAYLOAD, OBJECT_URI, RECEIVED_AT)
          + ") VALUES (?, ?, ?, ?, ?) ON CONFLICT (" + q(MESSAGE_ID) + ") DO NOTHING";
  private static final String SELECT_QUARANTINED =
      "SELECT * FROM " + q(QUARANTINE) + " ORDER BY " + q(RECEIVED_AT) + ", " + q(MESSAGE_ID);
  private static final String SELECT_QUARANTINED_ONE =
      "SELECT * FROM " + q(QUARANTINE) + " WHERE " + q(MESSAGE_ID) + " = ?";
  private static final String DELETE_QUARANTINED = "DELETE FROM " + q(QUARANTINE) + " WHERE " + q(MESSAGE_ID) + " = ?";
  private static final String WRITE_PROBE =
      "INSERT OR REPLACE INTO " + q(PROBE) + " (\"id\", " + q(UPDATED_AT) + ") VALUES (1, ?)";

  // --- reads ------------------------------------------------------------------------------------

  static Optional<FileRecord> selectFile(Connection c, String fileId) throws SQLException {
    return list(c, SELECT_FILE, SqliteRows::file, fileId).stream().findFirst();
  }


  /** The files of these ids, in their order; ids the ledger does not hold are left out. */
  static List<FileRecord> selectFiles(Connection c, List<String> ids) throws SQLException {
    Map<String, FileRecord> byId = new HashMap<>();
    for (int from = 0; from < ids.size(); from += IDS_PER_QUERY) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + IDS_PER_QUERY));
      String sql = SELECT_FILES_IN + "(" + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")";
      for (FileRecord file : list(c, sql, SqliteRows::file, chunk.toArray())) {
        byId.put(file.fileId(), file);
      }
    }
    return ids.stream().map(byId::get).filter(Objects::nonNull).toList();
  }

  static Optional<PartitionRecord> selectPartition(Connection c, String table, String partition) throws SQLException {
    return list(c, SELECT_PARTITION, SqliteRows::partition, LedgerSchema.partitionId(table, partition))
        .stream().findFirst();
  }


  static Optional<BatchRecord> selectBatch(Connection c, String batchId) throws SQLException {
    return list(c, SELECT_BATCH, SqliteRows::batch, batchId).stream().findFirst();
  }



  // --- reads of the ledger's calls --------------------------------------------------------------







  /** The table's partitions in one state by token, at most {@code limit} (-1: all). */
  static List<PartitionRecord> partitionsIn(Connection c, String table, PartitionState state, int limit)
      throws SQLException {
    return list(c, SELECT_PARTITIONS_IN_STATE, SqliteRows::partition, table, state.code(), limit);
  }

  /** A partition's files in one state in claim order, at most {@code limit} (-1: all). */
  static List<FileRecord> filesIn(Connection c, String table, String partition, FileState state, int limit)
      throws SQLException {
    return list(c, SELECT_FILES_IN_STATE, SqliteRows::file, table, partition, state.code(), limit);
  }

  static boolean hasBatchIn(Connection c, String table, Collection<BatchState> states) throws SQLException {
    String sql = "SELECT 1 FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " IN ("
        + String.join(", ", Collections.nCopies(states.size(), "?")) + ") LIMIT 1";
    List<Object> parameters = new ArrayList<>();
    parameters.add(table);
    states.forEach(state -> parameters.add(state.code()));
    return exists(c, sql, parameters.toArray());
  }

  static List<BatchRecord> batchesIn(Connection c, String table, BatchState state) throws SQLException {
    return list(c, SELECT_BATCHES_IN_STATE, SqliteRows::batch, table, state.code());
  }

  static void deleteBatch(Connection c, String batchId) throws SQLException {
    update(c, DELETE_BATCH, batchId);
  }

  static Optional<QuarantinedMessage> quarantined(Connection c, String messageId) throws SQLException {
    return list(c, SELECT_QUARANTINED_ONE, SqliteRows::quarantined, messageId).stream().findFirst();
  }

  static List<FileRecord> filesOfPartition(Connection c, String table, String partition) throws SQLException {
    return list(c, SELECT_FILES_OF_PARTITION, SqliteRows::file, table, partition);
  }

  static List<BatchRecord> expired(Connection c, long now) throws SQLException {
    return list(c, SELECT_EXPIRED, SqliteRows::batch, now);
  }

  static List<FileRecord> filesOfBatch(Connection c, String batchId) throws SQLException {
    Optional<BatchRecord> batch = selectBatch(c, batchId);
    // Pruned: its files still carry the batch id and their position in it. Else the batch row's
    // list, which also covers a FAILED batch, whose files were released.
    return batch.isEmpty() ? list(c, SELECT_FILES_OF_PRUNED_BATCH, SqliteRows::file, batchId)
        : selectFiles(c, batch.get().fileIds());
  }

  static List<String> tables(Connection c) throws SQLException {
    return list(c, SELECT_TABLES, rs -> rs.getString(1));
  }

  static List<PartitionRecord> partitions(Connection c, String table) throws SQLException {
    return list(c, SELECT_PARTITIONS_OF_TABLE, SqliteRows::partition, table);
  }

  static List<QuarantinedMessage> quarantinedMessages(Connection c) throws SQLException {
    return list(c, SELECT_QUARANTINED, SqliteRows::quarantined);
  }

  static List<FileRecord> quarantinedFiles(Connection c) throws SQLException {
    return list(c, SELECT_QUARANTINED_FILES, SqliteRows::file);
  }

  static List<FileRecord> filesNamed(Connection c, String bucket, String name) throws SQLException {
    return list(c, SELECT_FILES_NAMED, SqliteRows::file, bucket, name);
  }

  static List<BatchRecord> settledSince(Connection c, String table, Instant since) throws SQLException {
    return list(c, SELECT_SETTLED_SINCE, SqliteRows::batch, table, since.toEpochMilli());
  }

  static List<BatchRecord> batchesOfTable(Connection c, String table) throws SQLException {
    return list(c, SELECT_BATCHES_OF_TABLE, SqliteRows::batch, table);
  }

  static List<BatchRecord> batchesOfPartition(Connection c, String table, String partition) throws SQLException {
    return list(c, SELECT_BATCHES_OF_PARTITION, SqliteRows::batch, table, partition);
  }

  static TableStatus tableStatus(Connection c, String table) throws SQLException {
    Map<PartitionState, Long> partitions = new EnumMap<>(PartitionState.class);
    counts(c, COUNT_PARTITIONS_BY_STATE, table).forEach((code, n) -> partitions.put(PartitionState.fromCode(code), n));
    Map<FileState, Long> files = new EnumMap<>(FileState.class);
    counts(c, COUNT_FILES_BY_STATE, table).forEach((code, n) -> files.put(FileState.fromCode(code), n));
    List<Long> oldestReadyAt = list(c, OLDEST_READY_AT, rs -> {
      long millis = rs.getLong(1);
      return rs.wasNull() ? null : millis;
    }, table);
    return new TableStatus(
        table,
        Collections.unmodifiableMap(partitions),
        Collections.unmodifiableMap(files),
        list(c, SELECT_IN_FLIGHT, SqliteRows::batch, table),
        list(c, SELECT_LAST_COMMITTED, SqliteRows::batch, table).stream().findFirst(),
        oldestReadyAt.stream().filter(Objects::nonNull).findFirst().map(Instant::ofEpochMilli),
        list(c, SELECT_FAILED_PARTITIONS, SqliteRows::partition, table),
        list(c, SELECT_FAILED_BATCHES, SqliteRows::batch, table));
  }


  static int insertQuarantined(Connection c, QuarantinedMessage message) throws SQLException {
    return update(c, INSERT_QUARANTINED, message.messageId(), message.reason(), message.rawPayload(),
        message.objectUri().orElse(null), message.receivedAt().toEpochMilli());
  }

  static boolean deleteQuarantined(Connection c, String messageId) throws SQLException {
    return update(c, DELETE_QUARANTINED, messageId) > 0;
  }

  static int writeProbe(Connection c, long now) throws SQLException {
    return update(c, WRITE_PROBE, now);
  }

  // --- writes -----------------------------------------------------------------------------------

  /** Inserts new files, one statement executed as a batch. */
  static void insertFiles(Connection c, List<FileRecord> files) throws SQLException {
    if (files.isEmpty()) {
      return;
    }
    try (PreparedStatement statement = c.prepareStatement(INSERT_FILE)) {
      for (FileRecord file : files) {
        bind(statement, file.fileId(), file.table(), file.partition(), file.bucket(), file.name(),
            file.generation(), file.uri(), file.size(), file.eventId(), file.eventTime().toEpochMilli(),
            file.overwroteGeneration().orElse(null), file.state().code(), file.recordedAt().toEpochMilli());
        statement.addBatch();
      }
      statement.executeBatch();
    }
  }

  /** Writes the files' state, batch and reason; {@code positions} (null: kept) their places in their batch. */
  static void writeFiles(Connection c, List<FileRecord> files, List<Integer> positions) throws SQLException {
    try (PreparedStatement statement = c.prepareStatement(UPDATE_FILE)) {
      for (int i = 0; i < files.size(); i++) {
        FileRecord file = files.get(i);
        String batchId = file.batchId().orElse(null);
        Optional<FileRows> rows = file.rows();
        bind(statement, file.state().code(), batchId, batchId, positions == null ? null : positions.get(i),
            file.quarantineReason().orElse(null), file.snapshotId().orElse(null),
            rows.map(FileRows::read).orElse(null), rows.map(FileRows::rejected).orElse(null),
            rows.map(FileRows::rescued).orElse(null), rows.map(FileRows::ignoredColumns).orElse(null), file.fileId());
        statement.addBatch();
      }
      for (int count : statement.executeBatch()) {
        if (count != 1) {
          // Impossible under the write lock; a partial write must never commit.
          throw new IllegalStateException("Writing " + files.size() + " files changed " + count + " rows for one");
        }
      }
    }
  }




  static void writeFile(Connection c, FileRecord file) throws SQLException {
    writeFiles(c, List.of(file), null);
  }

  static void writePartition(Connection c, PartitionRecord p) throws SQLException {
    update(c, UPSERT_PARTITION, LedgerSchema.partitionId(p.table(), p.partition()), p.table(), p.partition(),
        p.prefix().orElse(null), p.state().code(), p.markerSeen() ? 1 : 0, p.batchId().orElse(null), p.attempts(),
        p.lastError().orElse(null), p.readyAt().map(Instant::toEpochMilli).orElse(null),
        p.updatedAt().toEpochMilli());
  }

  static void writeBatch(Connection c, BatchRecord b) throws SQLException {
    update(c, UPSERT_BATCH, b.batchId(), b.table(), b.state().code(), SqliteRows.json(b.partitions()),
        SqliteRows.json(b.fileIds()), SqliteRows.json(b.eventIds()), b.attempts(), b.launches(),
        b.outcomeUnknown() ? 1 : 0, b.leaseUntil().map(Instant::toEpochMilli).orElse(null),
        b.snapshotId().orElse(null), b.metrics().map(metrics -> SqliteRows.json(metrics.toMap())).orElse(null), b.error().orElse(null),
        b.cause().map(FailureCause::errorClass).orElse(null), b.cause().flatMap(FailureCause::file).orElse(null),
        b.createdAt().toEpochMilli(), b.updatedAt().toEpochMilli(),
        b.state() == BatchState.COMMITTED ? b.updatedAt().toEpochMilli() : null);
  }

  // --- JDBC -------------------------------------------------------------------------------------

  @FunctionalInterface
  interface Row<T> {
    T read(ResultSet rs) throws SQLException;
  }

  static <T> List<T> list(Connection c, String sql, Row<T> row, Object... parameters) throws SQLException {
    List<T> rows = new ArrayList<>();
    try (PreparedStatement select = c.prepareStatement(sql)) {
      bind(select, parameters);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          rows.add(row.read(rs));
        }
      }
    }
    return rows;
  }

  static boolean exists(Connection c, String sql, Object... parameters) throws SQLException {
    return !list(c, sql, rs -> Boolean.TRUE, parameters).isEmpty();
  }

  static Map<String, Long> counts(Connection c, String sql, Object... parameters) throws SQLException {
    Map<String, Long> counts = new HashMap<>();
    for (Map.Entry<String, Long> row : list(c, sql, rs -> Map.entry(rs.getString(1), rs.getLong(2)), parameters)) {
      counts.put(row.getKey(), row.getValue());
    }
    return counts;
  }

  static int update(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      bind(statement, parameters);
      return statement.executeUpdate();
    }
  }

  private static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
    for (int i = 0; i < parameters.length; i++) {
      Object value = parameters[i];
      if (value == null) {
        statement.setNull(i + 1, Types.NULL);
      } else if (value instanceof String text) {
        statement.setString(i + 1, text);
      } else if (value instanceof Integer number) {
        statement.setInt(i + 1, number);
      } else if (value instanceof Long number) {
        statement.setLong(i + 1, number);
      } else {
        throw new IllegalArgumentException("Unsupported parameter type " + value.getClass().getName());
      }
    }
  }

  private static String columns(String... names) {
    return String.join(", ", Arrays.stream(names).map(SqliteSchema::q).toList());
  }

  private static String excluded(String... names) {
    return String.join(", ", Arrays.stream(names).map(n -> q(n) + " = excluded." + q(n)).toList());
  }

  /** A state code as an SQL literal; codes are fixed lowercase words, never user input. */
  private static String sqlString(String code) {
    return "'" + code + "'";
  }
}
