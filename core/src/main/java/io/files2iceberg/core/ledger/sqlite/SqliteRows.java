package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.TableChange;
import static io.files2iceberg.core.ledger.LedgerSchema.CHANGES;
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
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.BUCKET;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_CLASS;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_FILE;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_TIME;
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
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS_FIELD;
import static io.files2iceberg.core.ledger.LedgerSchema.PREFIX;
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
import static io.files2iceberg.core.ledger.LedgerSchema.EXPECTATIONS_FAILED;
import static io.files2iceberg.core.ledger.LedgerSchema.SIZE;
import static io.files2iceberg.core.ledger.LedgerSchema.SNAPSHOT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.URI;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Rows of {@link SqliteSchema} to contract records and back (JSON for lists and metrics). */
final class SqliteRows {
  private SqliteRows() {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<List<String>> STRING_LIST = new TypeReference<>() {};
  private static final TypeReference<Map<String, Object>> METRICS_MAP = new TypeReference<>() {};

  static FileRecord file(ResultSet rs) throws SQLException {
    return new FileRecord(
        rs.getString(FILE_ID),
        rs.getString(TABLE),
        rs.getString(PARTITION),
        rs.getString(BUCKET),
        rs.getString(NAME),
        rs.getLong(GENERATION),
        rs.getString(URI),
        rs.getLong(SIZE),
        rs.getString(EVENT_ID),
        instant(rs, EVENT_TIME),
        optionalLong(rs, OVERWROTE_GENERATION),
        FileState.fromCode(rs.getString(STATE)),
        Optional.ofNullable(rs.getString(BATCH_ID)),
        Optional.ofNullable(rs.getString(QUARANTINE_REASON)),
        instant(rs, RECORDED_AT),
        optionalLong(rs, SNAPSHOT_ID),
        fileRows(rs),
        optionalLong(rs, LedgerSchema.INGESTED_AT).map(Instant::ofEpochMilli),
        LedgerSchema.cleaned(rs.getString(FILE_ID), rs.getString(LedgerSchema.LANDING),
            Optional.ofNullable(rs.getString(LedgerSchema.ARCHIVE_URI)),
            optionalLong(rs, LedgerSchema.ARCHIVE_GENERATION),
            optionalLong(rs, LedgerSchema.CLEANED_AT).map(Instant::ofEpochMilli),
            optionalLong(rs, LedgerSchema.REMOVED_AT).map(Instant::ofEpochMilli)));
  }

  private static Optional<FileRows> fileRows(ResultSet rs) throws SQLException {
    Map<String, Object> counts = new HashMap<>();
    for (String column : List.of(ROWS_READ, ROWS_REJECTED, ROWS_RESCUED, COLUMNS_IGNORED)) {
      optionalLong(rs, column).ifPresent(value -> counts.put(column, value));
    }
    // JSON text, read by the codec of FileRows.
    counts.put(EXPECTATIONS_FAILED, rs.getString(EXPECTATIONS_FAILED));
    return FileRows.fromMap(counts);
  }

  /** A file as {@link #file} reads it back once written: its times kept to the millisecond. */
  static FileRecord asStored(FileRecord f) {
    return new FileRecord(f.fileId(), f.table(), f.partition(), f.bucket(), f.name(), f.generation(), f.uri(),
        f.size(), f.eventId(), Instant.ofEpochMilli(f.eventTime().toEpochMilli()), f.overwroteGeneration(), f.state(),
        f.batchId(), f.quarantineReason(), Instant.ofEpochMilli(f.recordedAt().toEpochMilli()), f.snapshotId(),
        f.rows(), f.ingestedAt().map(SqliteRows::toMillisecond), f.cleaned().map(c -> new CleanedObject(c.action(),
            c.archiveUri(), c.archiveGeneration(), toMillisecond(c.cleanedAt()),
            c.removedAt().map(SqliteRows::toMillisecond))));
  }

  private static Instant toMillisecond(Instant instant) {
    return Instant.ofEpochMilli(instant.toEpochMilli());
  }

  static PartitionRecord partition(ResultSet rs) throws SQLException {
    return new PartitionRecord(
        rs.getString(TABLE),
        rs.getString(PARTITION),
        Optional.ofNullable(rs.getString(PREFIX)),
        PartitionState.fromCode(rs.getString(STATE)),
        rs.getInt(MARKER_SEEN) != 0,
        Optional.ofNullable(rs.getString(BATCH_ID)),
        rs.getInt(ATTEMPTS),
        Optional.ofNullable(rs.getString(LAST_ERROR)),
        optionalLong(rs, READY_AT).map(Instant::ofEpochMilli),
        instant(rs, UPDATED_AT));
  }

  static BatchRecord batch(ResultSet rs) throws SQLException {
    String metrics = rs.getString(METRICS);
    String errorClass = rs.getString(ERROR_CLASS);
    Optional<FailureCause> cause = errorClass == null ? Optional.empty()
        : Optional.of(new FailureCause(errorClass, Optional.ofNullable(rs.getString(ERROR_FILE))));
    return new BatchRecord(
        rs.getString(BATCH_ID),
        rs.getString(TABLE),
        BatchState.fromCode(rs.getString(STATE)),
        stringList(rs.getString(PARTITIONS_FIELD)),
        stringList(rs.getString(FILE_IDS)),
        stringList(rs.getString(EVENT_IDS)),
        rs.getInt(ATTEMPTS),
        rs.getInt(LAUNCHES),
        rs.getInt(OUTCOME_UNKNOWN) != 0,
        optionalLong(rs, LEASE_UNTIL).map(Instant::ofEpochMilli),
        optionalLong(rs, SNAPSHOT_ID),
        Optional.ofNullable(metrics).map(SqliteRows::metrics),
        Optional.ofNullable(rs.getString(ERROR)),
        cause,
        instant(rs, CREATED_AT),
        instant(rs, UPDATED_AT));
  }

  static QuarantinedMessage quarantined(ResultSet rs) throws SQLException {
    return new QuarantinedMessage(
        rs.getString(MESSAGE_ID),
        rs.getString(REASON),
        rs.getString(RAW_PAYLOAD),
        Optional.ofNullable(rs.getString(OBJECT_URI)),
        instant(rs, RECEIVED_AT));
  }

  static TableChange change(ResultSet rs) throws SQLException {
    return new TableChange(
        rs.getString(CHANGE_ID),
        rs.getString(TABLE),
        TableChange.ChangeKind.fromCode(rs.getString(KIND)),
        TableChange.ChangeState.fromCode(rs.getString(STATE)),
        optionalLong(rs, FROM_SNAPSHOT),
        optionalLong(rs, TO_SNAPSHOT),
        stringList(rs.getString(BATCH_IDS)),
        stringList(rs.getString(UNDONE_CHANGES)),
        stringList(rs.getString(PARTITIONS_FIELD)),
        rs.getInt(HOLD) != 0,
        rs.getString(ACTOR),
        Optional.ofNullable(rs.getString(REASON)),
        Optional.ofNullable(rs.getString(OUTCOME)),
        instant(rs, CREATED_AT),
        instant(rs, UPDATED_AT));
  }

  static ChangeEvent event(ResultSet rs) throws SQLException {
    return new ChangeEvent(rs.getString(LedgerSchema.EVENT_ID), rs.getString(TABLE), rs.getString(LedgerSchema.CHANGE),
        rs.getString(LedgerSchema.PAYLOAD), instant(rs, CREATED_AT));
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot encode " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }

  private static List<String> stringList(String json) {
    try {
      return JSON.readValue(json, STRING_LIST);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Stored list is not a JSON array of strings: " + json, e);
    }
  }

  private static BatchMetrics metrics(String json) {
    try {
      return BatchMetrics.fromMap(JSON.readValue(json, METRICS_MAP));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new IllegalStateException("Stored metrics are not readable: " + json, e);
    }
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    return Instant.ofEpochMilli(rs.getLong(column));
  }

  private static Optional<Long> optionalLong(ResultSet rs, String column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? Optional.empty() : Optional.of(value);
  }
}
