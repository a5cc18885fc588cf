package io.files2iceberg.core.ledger.sqlite;

import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.PUT_CHANGE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_CHANGE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_CHANGES_OF_TABLE;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.TableChange;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.sqlite.SqliteSchema.q;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.COUNT_FILES_BY_STATE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.COUNT_PARTITIONS_BY_STATE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.DELETE_BATCH;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.DELETE_QUARANTINED;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.IDS_PER_QUERY;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.INSERT_FILE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.INSERT_QUARANTINED;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.OLDEST_READY_AT;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_BATCH;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_BATCHES_IN_STATE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_BATCHES_OF_PARTITION;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_BATCHES_OF_TABLE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_EXPIRED;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FAILED_BATCHES;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FAILED_PARTITIONS;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FILE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FILES_IN;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FILES_IN_STATE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FILES_NAMED;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FILES_OF_PARTITION;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_FILES_OF_PRUNED_BATCH;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_IN_FLIGHT;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_LAST_COMMITTED;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_PARTITION;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_PARTITIONS_IN_STATE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_PARTITIONS_OF_TABLE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_QUARANTINED;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_QUARANTINED_FILES;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_QUARANTINED_ONE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_SETTLED_SINCE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.SELECT_TABLES;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.UPDATE_FILE;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.UPSERT_BATCH;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.UPSERT_PARTITION;
import static io.files2iceberg.core.ledger.sqlite.SqliteStatements.WRITE_PROBE;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CleanedObject;
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
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The SQLite ledger's statements: reads into records ({@link SqliteRows}) and writes of whole
 * records, each within the caller's transaction. No decision is made here: what to write is the
 * ledger service's.
 */
final class SqliteQueries {
  private SqliteQueries() {}



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

  static List<FileRecord> filesToClean(Connection c, String table, Instant ingestedBefore, int limit)
      throws SQLException {
    return list(c, SqliteStatements.SELECT_FILES_TO_CLEAN, SqliteRows::file, table, ingestedBefore.toEpochMilli(),
        limit);
  }

  static List<FileRecord> filesBeingCleaned(Connection c, String table, int limit) throws SQLException {
    return list(c, SqliteStatements.SELECT_FILES_BEING_CLEANED, SqliteRows::file, table, limit);
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

  static int putChange(Connection c, TableChange change) throws SQLException {
    return update(c, PUT_CHANGE, change.changeId(), change.table(), change.kind().code(), change.state().code(),
        change.fromSnapshot().orElse(null), change.toSnapshot().orElse(null), SqliteRows.json(change.batchIds()),
        SqliteRows.json(change.undoneChanges()), SqliteRows.json(change.partitions()), change.hold() ? 1 : 0,
        change.actor(), change.reason().orElse(null), change.outcome().orElse(null), change.createdAt().toEpochMilli(),
        change.updatedAt().toEpochMilli());
  }

  static Optional<TableChange> change(Connection c, String changeId) throws SQLException {
    return list(c, SELECT_CHANGE, SqliteRows::change, changeId).stream().findFirst();
  }

  static List<TableChange> changes(Connection c, String table) throws SQLException {
    return list(c, SELECT_CHANGES_OF_TABLE, SqliteRows::change, table);
  }

  static int putEvent(Connection c, ChangeEvent event) throws SQLException {
    return update(c, SqliteStatements.PUT_EVENT, event.eventId(), event.table(), event.change(), event.payload(),
        event.createdAt().toEpochMilli());
  }

  static List<ChangeEvent> events(Connection c, int limit) throws SQLException {
    return list(c, SqliteStatements.SELECT_EVENTS, SqliteRows::event, limit);
  }

  static int deleteEvent(Connection c, String eventId) throws SQLException {
    return update(c, SqliteStatements.DELETE_EVENT, eventId);
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
            file.overwroteGeneration().orElse(null), file.state().code(), file.recordedAt().toEpochMilli(),
            millis(file.ingestedAt()), LedgerSchema.landing(file), archiveUri(file), archiveGeneration(file),
            millis(file.cleaned().map(CleanedObject::cleanedAt)),
            millis(file.cleaned().flatMap(CleanedObject::removedAt)));
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
            rows.map(FileRows::rescued).orElse(null), rows.map(FileRows::ignoredColumns).orElse(null),
            rows.map(FileRows::expectationsFailedJson).orElse(null), millis(file.ingestedAt()),
            LedgerSchema.landing(file), archiveUri(file), archiveGeneration(file),
            millis(file.cleaned().map(CleanedObject::cleanedAt)),
            millis(file.cleaned().flatMap(CleanedObject::removedAt)), file.fileId());
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




  private static Long millis(Optional<Instant> instant) {
    return instant.map(Instant::toEpochMilli).orElse(null);
  }

  private static String archiveUri(FileRecord file) {
    return file.cleaned().flatMap(CleanedObject::archiveUri).orElse(null);
  }

  private static Long archiveGeneration(FileRecord file) {
    return file.cleaned().flatMap(CleanedObject::archiveGeneration).orElse(null);
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



  /** A state code as an SQL literal; codes are fixed lowercase words, never user input. */
}
