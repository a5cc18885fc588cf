package io.files2iceberg.core.ledger;

import static io.files2iceberg.core.ledger.LedgerSchema.ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_POSITION;
import static io.files2iceberg.core.ledger.LedgerSchema.BUCKET;
import static io.files2iceberg.core.ledger.LedgerSchema.COMMITTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
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
import static io.files2iceberg.core.ledger.SqliteSchema.q;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded ledger: one SQLite file (WAL mode) that the listener, the batcher and the Spark job
 * open at the same time, each from several threads.
 *
 * <p>Every method is one SQLite transaction on its own connection; every method that changes state
 * takes the write lock first ({@code BEGIN IMMEDIATE}), then reads the current state, checks it and
 * writes. So writers from all processes are serialized and no check is ever made against a state
 * another writer has changed since. A write lock held by another process longer than the busy
 * timeout (10 s) surfaces as {@link LedgerUnavailableException}.
 *
 * <p>Times come from the injected {@link Clock} and are kept to the millisecond.
 */
public final class SqliteLedger implements Ledger {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteLedger.class);

  private static final DateTimeFormatter BATCH_ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);
  private static final SecureRandom RANDOM = new SecureRandom();
  // Keeps IN (...) lists of ids well below SQLite's bound on parameters per statement.
  private static final int IDS_PER_QUERY = 500;
  private static final int FAILED_BATCHES_SHOWN = 10;
  /** The partition states an operator's retry accepts. */

  private static final String IN_FLIGHT =
      "(" + sqlString(BatchState.PLANNED.code()) + ", " + sqlString(BatchState.RUNNING.code()) + ")";

  private static final String SELECT_FILE =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(FILE_ID) + " = ?";
  private static final String SELECT_FILES_IN =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(FILE_ID) + " IN ";
  private static final String INSERT_FILE =
      "INSERT INTO " + q(FILES) + " (" + columns(FILE_ID, TABLE, PARTITION, BUCKET, NAME, GENERATION,
          URI, SIZE, EVENT_ID, EVENT_TIME, OVERWROTE_GENERATION, STATE, RECORDED_AT)
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (" + q(FILE_ID) + ") DO NOTHING";
  private static final String COUNT_PENDING =
      "SELECT COUNT(*) FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(PARTITION)
          + " = ? AND " + q(STATE) + " = " + sqlString(FileState.RECORDED.code());
  // Claim order: URI, then generation. The index on (table, partition, state, uri, generation)
  // serves it, so consecutive claims of one partition take consecutive ranges.
  private static final String SELECT_PENDING =
      "SELECT " + columns(FILE_ID, EVENT_ID) + " FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND "
          + q(PARTITION) + " = ? AND " + q(STATE) + " = " + sqlString(FileState.RECORDED.code())
          + " ORDER BY " + q(URI) + ", " + q(GENERATION) + " LIMIT ?";
  private static final String CLAIM_FILE =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = " + sqlString(FileState.CLAIMED.code()) + ", "
          + q(BATCH_ID) + " = ?, " + q(BATCH_POSITION) + " = ? WHERE " + q(FILE_ID) + " = ? AND "
          + q(STATE) + " = " + sqlString(FileState.RECORDED.code());
  private static final String INGEST_FILES =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = " + sqlString(FileState.INGESTED.code())
          + " WHERE " + q(BATCH_ID) + " = ? AND " + q(STATE) + " = " + sqlString(FileState.CLAIMED.code());
  // Released files forget the batch: only CLAIMED and later states carry one.
  private static final String RELEASE_FILES =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = " + sqlString(FileState.RECORDED.code()) + ", "
          + q(BATCH_ID) + " = NULL, " + q(BATCH_POSITION) + " = NULL WHERE " + q(BATCH_ID) + " = ? AND "
          + q(STATE) + " = " + sqlString(FileState.CLAIMED.code());
  private static final String QUARANTINE_FILE =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = " + sqlString(FileState.QUARANTINED.code()) + ", "
          + q(QUARANTINE_REASON) + " = ? WHERE " + q(FILE_ID) + " = ?";
  // SUPERSEDED and IGNORED keep the reason in the quarantine reason's column: why the file is left out.
  private static final String LEAVE_OUT_FILE =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = ?, " + q(QUARANTINE_REASON) + " = ? WHERE " + q(FILE_ID)
          + " = ? AND " + q(STATE) + " = ?";
  private static final String SELECT_FILES_OF_PRUNED_BATCH =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(BATCH_ID) + " = ? ORDER BY " + q(BATCH_POSITION);
  private static final String COUNT_FILES_BY_STATE =
      "SELECT " + q(STATE) + ", COUNT(*) FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? GROUP BY " + q(STATE);

  private static final String SELECT_PARTITION =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(PARTITION_ID) + " = ?";
  private static final String INSERT_PARTITION =
      "INSERT INTO " + q(PARTITIONS) + " (" + columns(PARTITION_ID, TABLE, PARTITION, PREFIX, STATE,
          MARKER_SEEN, ATTEMPTS, READY_AT, UPDATED_AT) + ") VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)";
  private static final String PARTITION_READY =
      "UPDATE " + q(PARTITIONS) + " SET " + q(STATE) + " = " + sqlString(PartitionState.READY.code())
          + ", " + q(READY_AT) + " = ?, " + q(UPDATED_AT) + " = ? WHERE " + q(PARTITION_ID) + " = ?";
  private static final String PARTITION_MARKER =
      "UPDATE " + q(PARTITIONS) + " SET " + q(MARKER_SEEN) + " = 1, " + q(PREFIX) + " = ?, "
          + q(UPDATED_AT) + " = ? WHERE " + q(PARTITION_ID) + " = ?";
  private static final String PARTITION_STATE =
      "UPDATE " + q(PARTITIONS) + " SET " + q(STATE) + " = ?, " + q(UPDATED_AT) + " = ? WHERE "
          + q(PARTITION_ID) + " = ?";
  private static final String CLAIM_PARTITION =
      "UPDATE " + q(PARTITIONS) + " SET " + q(STATE) + " = " + sqlString(PartitionState.CLAIMED.code())
          + ", " + q(BATCH_ID) + " = ?, " + q(UPDATED_AT) + " = ? WHERE " + q(PARTITION_ID) + " = ? AND "
          + q(STATE) + " = " + sqlString(PartitionState.READY.code());
  // Only a partition this batch still holds is released: the guard makes commit and fail no-ops
  // for partitions another path has already moved.
  private static final String RELEASE_PARTITION =
      "UPDATE " + q(PARTITIONS) + " SET " + q(STATE) + " = ?, " + q(ATTEMPTS) + " = ?, "
          + q(LAST_ERROR) + " = ?, " + q(READY_AT) + " = COALESCE(?, " + q(READY_AT) + "), "
          + q(UPDATED_AT) + " = ? WHERE " + q(PARTITION_ID) + " = ? AND " + q(BATCH_ID) + " = ? AND "
          + q(STATE) + " = " + sqlString(PartitionState.CLAIMED.code());
  private static final String SELECT_READY_PARTITIONS =
      "SELECT " + columns(PARTITION_ID, PARTITION) + " FROM " + q(PARTITIONS) + " WHERE " + q(TABLE)
          + " = ? AND " + q(STATE) + " = " + sqlString(PartitionState.READY.code()) + " ORDER BY " + q(PARTITION);
  private static final String COUNT_PARTITIONS_BY_STATE =
      "SELECT " + q(STATE) + ", COUNT(*) FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? GROUP BY "
          + q(STATE);
  private static final String OLDEST_READY_AT =
      "SELECT MIN(" + q(READY_AT) + ") FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND "
          + q(STATE) + " = " + sqlString(PartitionState.READY.code());
  private static final String SELECT_FAILED_PARTITIONS =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(PartitionState.FAILED.code()) + " ORDER BY " + q(PARTITION);
  private static final String SELECT_TABLES =
      "SELECT DISTINCT " + q(TABLE) + " FROM " + q(PARTITIONS) + " ORDER BY " + q(TABLE);

  private static final String SELECT_BATCH =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(BATCH_ID) + " = ?";
  private static final String INSERT_BATCH =
      "INSERT INTO " + q(BATCHES) + " (" + columns(BATCH_ID, TABLE, STATE, PARTITIONS_FIELD, FILE_IDS,
          EVENT_IDS, ATTEMPTS, LEASE_UNTIL, CREATED_AT, UPDATED_AT) + ") VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)";
  private static final String BATCH_RUNNING =
      "UPDATE " + q(BATCHES) + " SET " + q(STATE) + " = " + sqlString(BatchState.RUNNING.code()) + ", "
          + q(ATTEMPTS) + " = " + q(ATTEMPTS) + " + 1, " + q(LAUNCHES) + " = " + q(LAUNCHES) + " + 1, "
          + q(LEASE_UNTIL) + " = ?, " + q(UPDATED_AT)
          + " = ? WHERE " + q(BATCH_ID) + " = ?";
  private static final String BATCH_LEASE =
      "UPDATE " + q(BATCHES) + " SET " + q(LEASE_UNTIL) + " = ?, " + q(UPDATED_AT) + " = ? WHERE "
          + q(BATCH_ID) + " = ?";
  private static final String BATCH_COMMITTED =
      "UPDATE " + q(BATCHES) + " SET " + q(STATE) + " = " + sqlString(BatchState.COMMITTED.code()) + ", "
          + q(SNAPSHOT_ID) + " = ?, " + q(METRICS) + " = ?, " + q(LEASE_UNTIL) + " = NULL, " + q(OUTCOME_UNKNOWN) + " = 0, "
          + q(COMMITTED_AT) + " = ?, " + q(UPDATED_AT) + " = ? WHERE " + q(BATCH_ID) + " = ?";
  private static final String BATCH_FAILED =
      "UPDATE " + q(BATCHES) + " SET " + q(STATE) + " = " + sqlString(BatchState.FAILED.code()) + ", "
          + q(ERROR) + " = ?, " + q(OUTCOME_UNKNOWN) + " = ?, " + q(LEASE_UNTIL) + " = NULL, " + q(UPDATED_AT) + " = ? WHERE "
          + q(BATCH_ID) + " = ?";
  private static final String HAS_IN_FLIGHT =
      "SELECT 1 FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " IN " + IN_FLIGHT
          + " LIMIT 1";
  private static final String SELECT_EXPIRED =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(STATE) + " IN " + IN_FLIGHT + " AND "
          + q(LEASE_UNTIL) + " < ? ORDER BY " + q(LEASE_UNTIL) + ", " + q(BATCH_ID);
  private static final String PRUNE_COMMITTED =
      "DELETE FROM " + q(BATCHES) + " WHERE " + q(BATCH_ID) + " IN (SELECT " + q(BATCH_ID) + " FROM "
          + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND " + q(STATE) + " = "
          + sqlString(BatchState.COMMITTED.code()) + " ORDER BY " + q(COMMITTED_AT) + " DESC, "
          + q(BATCH_ID) + " DESC LIMIT -1 OFFSET ?)";
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

  private static final String INSERT_QUARANTINED =
      "INSERT INTO " + q(QUARANTINE) + " (" + columns(MESSAGE_ID, REASON, RAW_PAYLOAD, OBJECT_URI, RECEIVED_AT)
          + ") VALUES (?, ?, ?, ?, ?) ON CONFLICT (" + q(MESSAGE_ID) + ") DO NOTHING";
  private static final String SELECT_QUARANTINED =
      "SELECT * FROM " + q(QUARANTINE) + " ORDER BY " + q(RECEIVED_AT) + ", " + q(MESSAGE_ID);

  // Operator commands: retry, inspect, quarantine.
  private static final String PARTITION_RETRIED =
      "UPDATE " + q(PARTITIONS) + " SET " + q(STATE) + " = " + sqlString(PartitionState.READY.code()) + ", "
          + q(ATTEMPTS) + " = 0, " + q(READY_AT) + " = ?, " + q(UPDATED_AT) + " = ? WHERE " + q(PARTITION_ID) + " = ?";
  // Revived: PLANNED again with a fresh count of attempts (launches go on counting) and a lease that
  // has already run out.
  private static final String BATCH_REVIVED =
      "UPDATE " + q(BATCHES) + " SET " + q(STATE) + " = " + sqlString(BatchState.PLANNED.code()) + ", "
          + q(ATTEMPTS) + " = 0, " + q(LEASE_UNTIL) + " = ?, " + q(UPDATED_AT) + " = ? WHERE " + q(BATCH_ID) + " = ?";
  private static final String PARTITION_REVIVED =
      "UPDATE " + q(PARTITIONS) + " SET " + q(STATE) + " = " + sqlString(PartitionState.CLAIMED.code()) + ", "
          + q(BATCH_ID) + " = ?, " + q(ATTEMPTS) + " = 0, " + q(UPDATED_AT) + " = ? WHERE " + q(PARTITION_ID) + " = ?";
  private static final String RELEASE_QUARANTINED_FILE =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = " + sqlString(FileState.RECORDED.code()) + ", "
          + q(QUARANTINE_REASON) + " = NULL, " + q(BATCH_ID) + " = NULL, " + q(BATCH_POSITION) + " = NULL WHERE "
          + q(FILE_ID) + " = ? AND " + q(STATE) + " = " + sqlString(FileState.QUARANTINED.code());
  private static final String DELETE_QUARANTINED =
      "DELETE FROM " + q(QUARANTINE) + " WHERE " + q(MESSAGE_ID) + " = ?";
  private static final String SELECT_QUARANTINED_FILES =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(STATE) + " = " + sqlString(FileState.QUARANTINED.code())
          + " ORDER BY " + q(TABLE) + ", " + q(PARTITION) + ", " + q(URI) + ", " + q(GENERATION);
  private static final String SELECT_FILES_NAMED =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(BUCKET) + " = ? AND " + q(NAME) + " = ? ORDER BY " + q(GENERATION);
  // The batch row lists its partitions as a JSON array; json_each looks inside it.
  private static final String SELECT_BATCHES_OF_PARTITION =
      "SELECT * FROM " + q(BATCHES) + " WHERE " + q(TABLE) + " = ? AND EXISTS (SELECT 1 FROM json_each("
          + q(BATCHES) + "." + q(PARTITIONS_FIELD) + ") WHERE value = ?) ORDER BY " + q(CREATED_AT) + ", " + q(BATCH_ID);

  private final SqliteStore store;
  private final Clock clock;

  private SqliteLedger(SqliteStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Opens the ledger in {@code dbFile}, creating its folders, the file and the schema when absent.
   * Any number of ledgers, in any number of processes, may have the same file open.
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
    return new SqliteLedger(SqliteStore.open(dbFile, busyTimeout), clock);
  }

  /** The database file, absolute. */
  public Path dbFile() {
    return store.dbFile();
  }

  @Override
  public FileRecorded recordFile(RecordFile command) {
    String fileId = command.fileId();
    return store.write("recordFile", "file " + fileId + " (" + command.uri() + ")", c -> {
      Optional<FileRecord> known = selectFile(c, fileId);
      if (known.isPresent()) {
        // A redelivery (or a replay): the stored file and its partition stay as they are.
        FileRecord file = known.get();
        return new FileRecorded(false, file, requirePartition(c, file.table(), file.partition()));
      }
      long now = now();
      String partitionId = LedgerSchema.partitionId(command.table(), command.partition());
      Optional<PartitionRecord> partition = selectPartition(c, partitionId);
      if (partition.isEmpty()) {
        PartitionState state = command.readyOnArrival() ? PartitionState.READY : PartitionState.OPEN;
        insertPartition(c, command.table(), command.partition(), null, state, false, now);
      } else {
        PartitionState state = partition.get().state();
        // INGESTED re-opens for just this file (the files already ingested stay INGESTED and are
        // never claimed again); READY and CLAIMED pick the file up on the next claim; FAILED and
        // SUPERSEDED keep it RECORDED until an operator acts.
        if (state == PartitionState.INGESTED
            || (state == PartitionState.OPEN && command.readyOnArrival())) {
          States.requireTransition(
              "Cannot re-open partition " + command.table() + "/" + command.partition(),
              state, PartitionState.READY, PartitionState::next);
          update(c, PARTITION_READY, now, now, partitionId);
        }
      }
      try (PreparedStatement insert = c.prepareStatement(INSERT_FILE)) {
        bind(insert, fileId, command.table(), command.partition(), command.bucket(), command.name(),
            command.generation(), command.uri(), command.size(), command.eventId(),
            command.eventTime().toEpochMilli(), command.overwroteGeneration().orElse(null),
            FileState.RECORDED.code(), now);
        insert.executeUpdate();
      }
      return new FileRecorded(
          true, selectFile(c, fileId).orElseThrow(), requirePartition(c, command.table(), command.partition()));
    });
  }

  @Override
  public PartitionRecord markReady(MarkReady command) {
    String key = "partition " + command.table() + "/" + command.partition();
    return store.write("markReady", key, c -> {
      long now = now();
      String partitionId = LedgerSchema.partitionId(command.table(), command.partition());
      Optional<PartitionRecord> existing = selectPartition(c, partitionId);
      if (existing.isEmpty()) {
        // The marker came first: files recorded later join the READY partition.
        insertPartition(c, command.table(), command.partition(), command.prefix(), PartitionState.READY, true, now);
        return requirePartition(c, command.table(), command.partition());
      }
      PartitionRecord partition = existing.get();
      switch (partition.state()) {
        case OPEN -> {
          update(c, PARTITION_MARKER, command.prefix(), now, partitionId);
          update(c, PARTITION_READY, now, now, partitionId);
        }
        case READY, CLAIMED -> {
          if (!partition.markerSeen() || !partition.prefix().equals(Optional.of(command.prefix()))) {
            update(c, PARTITION_MARKER, command.prefix(), now, partitionId);
          }
        }
        case INGESTED -> {
          if (countPending(c, command.table(), command.partition()) > 0) {
            update(c, PARTITION_MARKER, command.prefix(), now, partitionId);
            update(c, PARTITION_READY, now, now, partitionId);
          }
        }
        case FAILED, SUPERSEDED -> {
          // An operator decides; a repeated marker does not retry a failed partition.
        }
      }
      return requirePartition(c, command.table(), command.partition());
    });
  }

  @Override
  public Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    String table = command.table();
    return store.write("claimPartitions", "table " + table, c -> {
      if (command.exclusive() && exists(c, HAS_IN_FLIGHT, table)) {
        return Optional.empty();
      }
      long now = now();
      List<String> partitions = new ArrayList<>();
      List<String> partitionIds = new ArrayList<>();
      List<String> fileIds = new ArrayList<>();
      List<String> eventIds = new ArrayList<>();
      for (Map.Entry<String, String> ready : readyPartitions(c, table).entrySet()) {
        String partitionId = ready.getKey();
        String partition = ready.getValue();
        int pending = countPending(c, table, partition);
        if (pending == 0) {
          // Nothing to load (its files were quarantined, or a marker without data files).
          States.requireTransition("Cannot settle partition " + table + "/" + partition,
              PartitionState.READY, PartitionState.INGESTED, PartitionState::next);
          update(c, PARTITION_STATE, PartitionState.INGESTED.code(), now, partitionId);
          continue;
        }
        boolean first = partitions.isEmpty();
        if (!first && fileIds.size() + pending > command.maxFiles()) {
          break; // whole partitions only after the first; a later one must fit entirely
        }
        // The first partition may exceed the limit: it then yields its first maxFiles files in
        // claim order, and the next claim (after this batch commits or fails) continues the range.
        int take = Math.min(pending, command.maxFiles() - fileIds.size());
        selectPending(c, table, partition, take, fileIds, eventIds);
        partitions.add(partition);
        partitionIds.add(partitionId);
        if (fileIds.size() >= command.maxFiles()) {
          break;
        }
      }
      if (partitions.isEmpty()) {
        return Optional.empty();
      }
      String batchId = newBatchId();
      insertClaim(c, table, batchId, partitions, partitionIds, fileIds, eventIds, command.lease(), now);
      LOG.info("Claimed batch {} of table {}: {} files in partitions {}", batchId, table, fileIds.size(), partitions);
      return Optional.of(requireBatch(c, batchId, "claim"));
    });
  }

  @Override
  public Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    String table = command.table();
    return store.write("claimNewestPartition", "table " + table, c -> {
      if (exists(c, HAS_IN_FLIGHT, table)) {
        return Optional.empty();
      }
      long now = now();
      List<Map.Entry<String, String>> ready = new ArrayList<>(readyPartitions(c, table).entrySet());
      Collections.reverse(ready); // newest token first
      String claimedId = null;
      String claimed = null;
      List<String> fileIds = new ArrayList<>();
      List<String> eventIds = new ArrayList<>();
      List<String> superseded = new ArrayList<>();
      for (Map.Entry<String, String> entry : ready) {
        String partitionId = entry.getKey();
        String partition = entry.getValue();
        if (claimed != null) {
          States.requireTransition("Cannot supersede partition " + table + "/" + partition,
              PartitionState.READY, PartitionState.SUPERSEDED, PartitionState::next);
          update(c, PARTITION_STATE, PartitionState.SUPERSEDED.code(), now, partitionId);
          superseded.add(partition);
          continue;
        }
        int pending = countPending(c, table, partition);
        if (pending == 0) {
          States.requireTransition("Cannot settle partition " + table + "/" + partition,
              PartitionState.READY, PartitionState.INGESTED, PartitionState::next);
          update(c, PARTITION_STATE, PartitionState.INGESTED.code(), now, partitionId);
          continue;
        }
        selectPending(c, table, partition, pending, fileIds, eventIds);
        claimedId = partitionId;
        claimed = partition;
      }
      if (claimed == null) {
        return Optional.empty();
      }
      String batchId = newBatchId();
      insertClaim(c, table, batchId, List.of(claimed), List.of(claimedId), fileIds, eventIds, command.lease(), now);
      Collections.sort(superseded);
      LOG.info("Claimed batch {} of table {}: {} files of the newest partition {}; superseded {}", batchId, table,
          fileIds.size(), claimed, superseded);
      return Optional.of(new NewestPartitionClaimed(requireBatch(c, batchId, "claim"), superseded));
    });
  }

  /** The claim's writes: files and partitions CLAIMED by the batch, and the batch PLANNED. */
  private static void insertClaim(Connection c, String table, String batchId, List<String> partitions,
      List<String> partitionIds, List<String> fileIds, List<String> eventIds, Duration lease, long now)
      throws SQLException {
    try (PreparedStatement claim = c.prepareStatement(CLAIM_FILE)) {
      for (int i = 0; i < fileIds.size(); i++) {
        bind(claim, batchId, i, fileIds.get(i));
        claim.addBatch();
      }
      requireAllUpdated(claim.executeBatch(), "files", batchId);
    }
    try (PreparedStatement claim = c.prepareStatement(CLAIM_PARTITION)) {
      for (String partitionId : partitionIds) {
        bind(claim, batchId, now, partitionId);
        claim.addBatch();
      }
      requireAllUpdated(claim.executeBatch(), "partitions", batchId);
    }
    try (PreparedStatement insert = c.prepareStatement(INSERT_BATCH)) {
      bind(insert, batchId, table, BatchState.PLANNED.code(), SqliteRows.json(partitions),
          SqliteRows.json(fileIds), SqliteRows.json(eventIds), now + lease.toMillis(), now, now);
      insert.executeUpdate();
    }
  }

  @Override
  public BatchRecord markRunning(String batchId, Duration lease) {
    Objects.requireNonNull(lease, "lease");
    return store.write("markRunning", "batch " + batchId, c -> {
      String action = "Cannot mark batch " + batchId + " running";
      BatchRecord batch = requireBatch(c, batchId, action);
      States.requireTransition(action, batch.state(), BatchState.RUNNING, BatchState::next);
      long now = now();
      update(c, BATCH_RUNNING, now + lease.toMillis(), now, batchId);
      return requireBatch(c, batchId, action);
    });
  }

  @Override
  public BatchRecord renewLease(String batchId, Duration lease) {
    return newLease("renewLease", "Cannot renew the lease of batch " + batchId, batchId, lease, false);
  }

  @Override
  public BatchRecord takeOverExpiredLease(String batchId, Duration lease) {
    return newLease("takeOverExpiredLease", "Cannot take over batch " + batchId, batchId, lease, true);
  }

  /** A new lease for a batch in flight; with {@code onlyExpired}, only once the old one ran out. */
  private BatchRecord newLease(String operation, String action, String batchId, Duration lease, boolean onlyExpired) {
    Objects.requireNonNull(lease, "lease");
    return store.write(operation, "batch " + batchId, c -> {
      BatchRecord batch = requireBatch(c, batchId, action);
      States.requireOneOf(action, batch.state(), EnumSet.of(BatchState.PLANNED, BatchState.RUNNING));
      long now = now();
      if (onlyExpired) {
        States.requireLeaseExpired(action, batch, Instant.ofEpochMilli(now));
      }
      update(c, BATCH_LEASE, now + lease.toMillis(), now, batchId);
      return requireBatch(c, batchId, action);
    });
  }

  @Override
  public BatchCommitted commitBatch(CommitBatch command) {
    String batchId = command.batchId();
    return store.write("commitBatch", "batch " + batchId, c -> {
      String action = "Cannot commit batch " + batchId;
      BatchRecord batch = requireBatch(c, batchId, action);
      if (batch.state() == BatchState.COMMITTED) {
        // The checkpoint is idempotent for the snapshot that wrote it, and only for that one: a
        // second snapshot for one batch would mean its rows were written twice.
        if (batch.snapshotId().equals(Optional.of(command.snapshotId()))) {
          return new BatchCommitted(batch, true);
        }
        throw new IllegalTransitionException(action + " with snapshot " + command.snapshotId()
            + ": it is already committed with snapshot " + batch.snapshotId().map(String::valueOf).orElse("none"));
      }
      States.requireTransition(action, batch.state(), BatchState.COMMITTED, BatchState::next);
      long now = now();
      update(c, BATCH_COMMITTED, command.snapshotId(), SqliteRows.json(command.metrics()), now, now, batchId);
      update(c, INGEST_FILES, batchId);
      for (String partition : batch.partitions()) {
        // A split partition (or one that got late files while claimed) is READY again for the rest.
        boolean pending = countPending(c, batch.table(), partition) > 0;
        PartitionState next = pending ? PartitionState.READY : PartitionState.INGESTED;
        releasePartition(c, batch, partition, next, 0, null, pending ? now : null, now);
      }
      LOG.info("Committed batch {} of table {} with snapshot {}", batchId, batch.table(), command.snapshotId());
      return new BatchCommitted(requireBatch(c, batchId, action), false);
    });
  }

  @Override
  public BatchRecord failBatch(FailBatch command) {
    String batchId = command.batchId();
    String error = command.error();
    int maxAttempts = command.maxAttempts();
    return store.write("failBatch", "batch " + batchId, c -> {
      String action = "Cannot fail batch " + batchId;
      BatchRecord batch = requireBatch(c, batchId, action);
      States.requireTransition(action, batch.state(), BatchState.FAILED, BatchState::next);
      long now = now();
      update(c, BATCH_FAILED, error, command.outcomeUnknown() ? 1 : 0, now, batchId);
      update(c, RELEASE_FILES, batchId);
      for (String partition : batch.partitions()) {
        Optional<PartitionRecord> stored = selectPartition(c, LedgerSchema.partitionId(batch.table(), partition));
        int attempts = stored.map(PartitionRecord::attempts).orElse(0) + 1;
        boolean exhausted = attempts >= maxAttempts;
        PartitionState next = exhausted ? PartitionState.FAILED : PartitionState.READY;
        releasePartition(c, batch, partition, next, attempts, error, exhausted ? null : now, now);
        if (exhausted) {
          LOG.warn("Partition {} of table {} FAILED after {} attempts (batch {}): {}",
              partition, batch.table(), attempts, batchId, error);
        }
      }
      LOG.warn("Failed batch {} of table {}: {}", batchId, batch.table(), error);
      return requireBatch(c, batchId, action);
    });
  }

  @Override
  public List<BatchRecord> findExpiredLeases() {
    return store.read("findExpiredLeases", "all tables",
        c -> list(c, SELECT_EXPIRED, SqliteRows::batch, now()));
  }

  @Override
  public int pruneCommitted(String table, int keep) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep must not be negative, was " + keep);
    }
    return store.write("pruneCommitted", "table " + table, c -> {
      int deleted = update(c, PRUNE_COMMITTED, table, keep);
      if (deleted > 0) {
        LOG.info("Pruned {} committed batches of table {}, kept the newest {}", deleted, table, keep);
      }
      return deleted;
    });
  }

  @Override
  public FileRecord quarantineFile(String fileId, String reason) {
    Objects.requireNonNull(reason, "reason");
    return store.write("quarantineFile", "file " + fileId, c -> {
      FileRecord file = selectFile(c, fileId).orElseThrow(
          () -> new IllegalArgumentException("Cannot quarantine file " + fileId + ": no such file"));
      States.requireTransition("Cannot quarantine file " + fileId + " (" + file.uri() + ")",
          file.state(), FileState.QUARANTINED, FileState::next);
      update(c, QUARANTINE_FILE, reason, fileId);
      LOG.warn("Quarantined file {} of table {}: {}", file.uri(), file.table(), reason);
      return selectFile(c, fileId).orElseThrow();
    });
  }

  @Override
  public FileRecord supersedeFile(String fileId, String reason) {
    return leaveOut("supersedeFile", "Cannot supersede file ", fileId, FileState.SUPERSEDED, reason);
  }

  @Override
  public FileRecord ignoreFile(String fileId, String reason) {
    return leaveOut("ignoreFile", "Cannot ignore file ", fileId, FileState.IGNORED, reason);
  }

  private FileRecord leaveOut(String operation, String action, String fileId, FileState target, String reason) {
    Objects.requireNonNull(reason, "reason");
    return store.write(operation, "file " + fileId, c -> {
      FileRecord file = selectFile(c, fileId).orElseThrow(
          () -> new IllegalArgumentException(action + fileId + ": no such file"));
      if (States.requireLeftOut(action + fileId + " (" + file.uri() + ")", file.state(), target)) {
        update(c, LEAVE_OUT_FILE, target.code(), reason, fileId, file.state().code());
        LOG.warn("File {} generation {} of table {} is {}: {}", file.uri(), file.generation(), file.table(),
            target, reason);
      }
      return selectFile(c, fileId).orElseThrow();
    });
  }

  @Override
  public void quarantineMessage(QuarantinedMessage message) {
    store.write("quarantineMessage", "message " + message.messageId(), c -> update(c, INSERT_QUARANTINED,
        message.messageId(), message.reason(), message.rawPayload(), message.objectUri().orElse(null),
        message.receivedAt().toEpochMilli()));
  }

  @Override
  public Optional<BatchRecord> batch(String batchId) {
    return store.read("batch", "batch " + batchId, c -> selectBatch(c, batchId));
  }

  @Override
  public Optional<PartitionRecord> partition(String table, String partition) {
    return store.read("partition", "partition " + table + "/" + partition,
        c -> selectPartition(c, LedgerSchema.partitionId(table, partition)));
  }

  @Override
  public Optional<FileRecord> file(String fileId) {
    return store.read("file", "file " + fileId, c -> selectFile(c, fileId));
  }

  @Override
  public List<FileRecord> filesOfBatch(String batchId) {
    return store.read("filesOfBatch", "batch " + batchId, c -> {
      Optional<BatchRecord> batch = selectBatch(c, batchId);
      if (batch.isEmpty()) {
        // Pruned: its files still carry the batch id and their position in it.
        return list(c, SELECT_FILES_OF_PRUNED_BATCH, SqliteRows::file, batchId);
      }
      // The batch row's list also covers a FAILED batch, whose files were released.
      List<String> ids = batch.get().fileIds();
      Map<String, FileRecord> byId = new HashMap<>();
      for (int from = 0; from < ids.size(); from += IDS_PER_QUERY) {
        List<String> chunk = ids.subList(from, Math.min(ids.size(), from + IDS_PER_QUERY));
        String sql = SELECT_FILES_IN + "(" + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")";
        for (FileRecord file : list(c, sql, SqliteRows::file, chunk.toArray())) {
          byId.put(file.fileId(), file);
        }
      }
      return ids.stream().map(byId::get).filter(Objects::nonNull).toList();
    });
  }

  @Override
  public List<String> tables() {
    return store.read("tables", "all tables", c -> list(c, SELECT_TABLES, rs -> rs.getString(1)));
  }

  @Override
  public TableStatus tableStatus(String table) {
    return store.read("tableStatus", "table " + table, c -> {
      Map<PartitionState, Long> partitions = new EnumMap<>(PartitionState.class);
      for (Map.Entry<String, Long> count : counts(c, COUNT_PARTITIONS_BY_STATE, table).entrySet()) {
        partitions.put(PartitionState.fromCode(count.getKey()), count.getValue());
      }
      Map<FileState, Long> files = new EnumMap<>(FileState.class);
      for (Map.Entry<String, Long> count : counts(c, COUNT_FILES_BY_STATE, table).entrySet()) {
        files.put(FileState.fromCode(count.getKey()), count.getValue());
      }
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
    });
  }

  // --- operator commands: replay, backfill, reconcile -----------------------------------------

  private static final String SELECT_PARTITIONS_OF_TABLE =
      "SELECT * FROM " + q(PARTITIONS) + " WHERE " + q(TABLE) + " = ? ORDER BY " + q(PARTITION);
  private static final String SELECT_FILES_OF_PARTITION =
      "SELECT * FROM " + q(FILES) + " WHERE " + q(TABLE) + " = ? AND " + q(PARTITION) + " = ? ORDER BY "
          + q(URI) + ", " + q(GENERATION);
  // Reopened files forget their batch, as released ones do: only CLAIMED and later states carry one.
  private static final String REOPEN_FILES =
      "UPDATE " + q(FILES) + " SET " + q(STATE) + " = " + sqlString(FileState.RECORDED.code()) + ", "
          + q(BATCH_ID) + " = NULL, " + q(BATCH_POSITION) + " = NULL WHERE " + q(TABLE) + " = ? AND "
          + q(PARTITION) + " = ? AND " + q(STATE) + " = " + sqlString(FileState.INGESTED.code());

  @Override
  public List<PartitionRecord> partitions(String table) {
    return store.read("partitions", "table " + table,
        c -> list(c, SELECT_PARTITIONS_OF_TABLE, SqliteRows::partition, table));
  }

  @Override
  public List<FileRecord> filesOfPartition(String table, String partition) {
    return store.read("filesOfPartition", "partition " + table + "/" + partition,
        c -> list(c, SELECT_FILES_OF_PARTITION, SqliteRows::file, table, partition));
  }

  @Override
  public PartitionRecord reopenPartition(String table, String partition) {
    String key = "partition " + table + "/" + partition;
    return store.write("reopenPartition", key, c -> {
      String partitionId = LedgerSchema.partitionId(table, partition);
      PartitionRecord stored = selectPartition(c, partitionId).orElseThrow(
          () -> new IllegalArgumentException("Cannot reopen partition " + table + "/" + partition + ": no such partition"));
      if (stored.state() == PartitionState.READY) {
        return stored;
      }
      States.requireOneOf("Cannot reopen partition " + table + "/" + partition, stored.state(),
          EnumSet.of(PartitionState.INGESTED, PartitionState.READY));
      int reopened = update(c, REOPEN_FILES, table, partition);
      long now = now();
      update(c, PARTITION_READY, now, now, partitionId);
      LOG.info("Reopened partition {}/{}: {} ingested file(s) to load again", table, partition, reopened);
      return requirePartition(c, table, partition);
    });
  }

  @Override
  public List<QuarantinedMessage> quarantinedMessages() {
    return store.read("quarantinedMessages", "all messages", c -> list(c, SELECT_QUARANTINED, SqliteRows::quarantined));
  }

  // --- operator commands: retry, inspect, quarantine ----------------------------------------------

  @Override
  public PartitionRecord retryPartition(String table, String partition) {
    return store.write("retryPartition", "partition " + table + "/" + partition, c -> {
      String action = "Cannot retry partition " + table + "/" + partition;
      PartitionRecord stored = selectPartition(c, LedgerSchema.partitionId(table, partition))
          .orElseThrow(() -> new IllegalArgumentException(action + ": no such partition"));
      return retry(c, stored, action);
    });
  }

  @Override
  public List<PartitionRecord> retryBatch(String batchId) {
    return store.write("retryBatch", "batch " + batchId, c -> {
      String action = "Cannot retry batch " + batchId;
      BatchRecord batch = requireBatch(c, batchId, action);
      States.requireOneOf(action, batch.state(), EnumSet.of(BatchState.FAILED));
      List<PartitionRecord> retried = new ArrayList<>();
      for (String token : batch.partitions()) {
        Optional<PartitionRecord> stored = selectPartition(c, LedgerSchema.partitionId(batch.table(), token));
        if (stored.isPresent() && PartitionState.RETRYABLE.contains(stored.get().state())) {
          retried.add(retry(c, stored.get(), action));
        }
      }
      LOG.info("Retry of failed batch {} of table {} re-queued partitions {}", batchId, batch.table(),
          retried.stream().map(PartitionRecord::partition).toList());
      return retried;
    });
  }

  @Override
  public BatchRecord reviveBatch(String batchId) {
    return store.write("reviveBatch", "batch " + batchId, c -> {
      String action = "Cannot revive batch " + batchId;
      BatchRecord batch = requireBatch(c, batchId, action);
      States.requireTransition(action, batch.state(), BatchState.PLANNED, BatchState::next);
      // Every check before the first write: a refusal changes nothing.
      List<Integer> claimed = new ArrayList<>();
      for (int position = 0; position < batch.fileIds().size(); position++) {
        String fileId = batch.fileIds().get(position);
        FileRecord file = selectFile(c, fileId)
            .orElseThrow(() -> new IllegalStateException(action + ": its file " + fileId + " is missing from the ledger"));
        if (States.requireRevivable(action, fileId, file.uri(), file.state())) {
          claimed.add(position);
        }
      }
      for (String token : batch.partitions()) {
        PartitionRecord partition = requirePartition(c, batch.table(), token);
        States.requireRevivable(action, batch.table(), token, partition.state());
      }
      long now = now();
      // Already expired: recovery's takeOverExpiredLease accepts it at once.
      update(c, BATCH_REVIVED, now - 1, now, batchId);
      for (int position : claimed) {
        update(c, CLAIM_FILE, batchId, position, batch.fileIds().get(position));
      }
      for (String token : batch.partitions()) {
        update(c, PARTITION_REVIVED, batchId, now, LedgerSchema.partitionId(batch.table(), token));
      }
      LOG.info("Revived batch {} of table {}: {} file(s) and partitions {} claimed again for a relaunch", batchId,
          batch.table(), claimed.size(), batch.partitions());
      return requireBatch(c, batchId, action);
    });
  }

  /** FAILED to READY (or READY kept) with the attempts reset; the last error stays for inspect. */
  private PartitionRecord retry(Connection c, PartitionRecord partition, String action) throws SQLException {
    States.requireOneOf(action, partition.state(), PartitionState.RETRYABLE);
    long now = now();
    Long readyAt = partition.state() == PartitionState.FAILED ? now : partition.readyAt().map(Instant::toEpochMilli).orElse(now);
    update(c, PARTITION_RETRIED, readyAt, now, LedgerSchema.partitionId(partition.table(), partition.partition()));
    return requirePartition(c, partition.table(), partition.partition());
  }

  @Override
  public FileRecord releaseFile(String fileId) {
    return store.write("releaseFile", "file " + fileId, c -> {
      FileRecord file = selectFile(c, fileId).orElseThrow(
          () -> new IllegalArgumentException("Cannot release file " + fileId + ": no such file"));
      States.requireOneOf("Cannot release file " + fileId + " (" + file.uri() + ") from the quarantine",
          file.state(), EnumSet.of(FileState.QUARANTINED));
      update(c, RELEASE_QUARANTINED_FILE, fileId);
      PartitionRecord partition = requirePartition(c, file.table(), file.partition());
      if (partition.state() == PartitionState.INGESTED) {
        // Like a late file: the partition is READY again for just this file.
        long now = now();
        update(c, PARTITION_READY, now, now, LedgerSchema.partitionId(file.table(), file.partition()));
      }
      LOG.info("Released file {} of table {} from the quarantine", file.uri(), file.table());
      return selectFile(c, fileId).orElseThrow();
    });
  }

  @Override
  public boolean releaseMessage(String messageId) {
    return store.write("releaseMessage", "message " + messageId, c -> update(c, DELETE_QUARANTINED, messageId) > 0);
  }

  @Override
  public List<FileRecord> quarantinedFiles() {
    return store.read("quarantinedFiles", "all files", c -> list(c, SELECT_QUARANTINED_FILES, SqliteRows::file));
  }

  @Override
  public List<FileRecord> filesNamed(String bucket, String name) {
    return store.read("filesNamed", "object " + bucket + "/" + name,
        c -> list(c, SELECT_FILES_NAMED, SqliteRows::file, bucket, name));
  }

  @Override
  public List<BatchRecord> batchesOfPartition(String table, String partition) {
    return store.read("batchesOfPartition", "partition " + table + "/" + partition,
        c -> list(c, SELECT_BATCHES_OF_PARTITION, SqliteRows::batch, table, partition));
  }

  @Override
  public Optional<String> unavailableBecause() {
    try {
      // A committed write, not a read: a file that reads but cannot be written (read-only, disk
      // full) fails every push, and health must say so.
      store.write("probe", dbFile().toString(), c -> {
        try (PreparedStatement statement = c.prepareStatement(
            "INSERT OR REPLACE INTO " + SqliteSchema.q(PROBE) + " (\"id\", " + SqliteSchema.q(UPDATED_AT) + ") VALUES (1, ?)")) {
          statement.setLong(1, now());
          statement.executeUpdate();
        }
        return null;
      });
      return Optional.empty();
    } catch (RuntimeException e) {
      LOG.warn("The SQLite ledger {} cannot take a write: {}", dbFile(), e.toString());
      return Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  @Override
  public void close() {
    store.close();
  }

  // --- statements -------------------------------------------------------------------------------

  private long now() {
    return clock.millis();
  }

  /** Sortable by creation second, unique by its random part. */
  private String newBatchId() {
    byte[] random = new byte[4];
    RANDOM.nextBytes(random);
    return BATCH_ID_TIME.format(clock.instant()) + "-" + HexFormat.of().formatHex(random);
  }

  private static Optional<FileRecord> selectFile(Connection c, String fileId) throws SQLException {
    return list(c, SELECT_FILE, SqliteRows::file, fileId).stream().findFirst();
  }

  private static Optional<PartitionRecord> selectPartition(Connection c, String partitionId) throws SQLException {
    return list(c, SELECT_PARTITION, SqliteRows::partition, partitionId).stream().findFirst();
  }

  private static PartitionRecord requirePartition(Connection c, String table, String partition) throws SQLException {
    return selectPartition(c, LedgerSchema.partitionId(table, partition)).orElseThrow(
        () -> new IllegalStateException("Partition " + table + "/" + partition + " is missing from the ledger"));
  }

  private static Optional<BatchRecord> selectBatch(Connection c, String batchId) throws SQLException {
    return list(c, SELECT_BATCH, SqliteRows::batch, batchId).stream().findFirst();
  }

  private static BatchRecord requireBatch(Connection c, String batchId, String action) throws SQLException {
    return selectBatch(c, batchId).orElseThrow(() -> new IllegalArgumentException(action + ": no such batch"));
  }

  private static void insertPartition(Connection c, String table, String partition, String prefix,
      PartitionState state, boolean markerSeen, long now) throws SQLException {
    update(c, INSERT_PARTITION, LedgerSchema.partitionId(table, partition), table, partition, prefix,
        state.code(), markerSeen ? 1 : 0, state == PartitionState.READY ? now : null, now);
  }

  private static void releasePartition(Connection c, BatchRecord batch, String partition, PartitionState next,
      int attempts, String lastError, Long readyAt, long now) throws SQLException {
    int updated = update(c, RELEASE_PARTITION, next.code(), attempts, lastError, readyAt, now,
        LedgerSchema.partitionId(batch.table(), partition), batch.batchId());
    if (updated == 0) {
      LOG.warn("Partition {} of table {} is no longer claimed by batch {}; left as it is",
          partition, batch.table(), batch.batchId());
    }
  }

  /** READY partitions of the table, partition id to token, in token order. */
  private static Map<String, String> readyPartitions(Connection c, String table) throws SQLException {
    Map<String, String> ready = new LinkedHashMap<>();
    try (PreparedStatement select = c.prepareStatement(SELECT_READY_PARTITIONS)) {
      bind(select, table);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          ready.put(rs.getString(PARTITION_ID), rs.getString(PARTITION));
        }
      }
    }
    return ready;
  }

  private static int countPending(Connection c, String table, String partition) throws SQLException {
    return list(c, COUNT_PENDING, rs -> rs.getInt(1), table, partition).get(0);
  }

  private static void selectPending(Connection c, String table, String partition, int limit,
      List<String> fileIds, List<String> eventIds) throws SQLException {
    try (PreparedStatement select = c.prepareStatement(SELECT_PENDING)) {
      bind(select, table, partition, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          fileIds.add(rs.getString(FILE_ID));
          eventIds.add(rs.getString(EVENT_ID));
        }
      }
    }
  }

  private static void requireAllUpdated(int[] counts, String what, String batchId) {
    for (int count : counts) {
      if (count != 1) {
        // Impossible under the write lock; a partial claim must never commit.
        throw new IllegalStateException("Claiming " + what + " for batch " + batchId + " changed " + count + " rows");
      }
    }
  }

  private static Map<String, Long> counts(Connection c, String sql, Object... parameters) throws SQLException {
    Map<String, Long> counts = new HashMap<>();
    try (PreparedStatement select = c.prepareStatement(sql)) {
      bind(select, parameters);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          counts.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return counts;
  }

  @FunctionalInterface
  private interface Row<T> {
    T read(ResultSet rs) throws SQLException;
  }

  private static <T> List<T> list(Connection c, String sql, Row<T> row, Object... parameters) throws SQLException {
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

  private static boolean exists(Connection c, String sql, Object... parameters) throws SQLException {
    return !list(c, sql, rs -> Boolean.TRUE, parameters).isEmpty();
  }

  private static int update(Connection c, String sql, Object... parameters) throws SQLException {
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

  /** A state code as an SQL literal; codes are fixed lowercase words, never user input. */
  private static String sqlString(String code) {
    return "'" + code + "'";
  }
}
