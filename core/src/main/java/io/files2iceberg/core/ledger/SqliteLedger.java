package io.files2iceberg.core.ledger;

import static io.files2iceberg.core.ledger.SqliteQueries.COUNT_FILES_BY_STATE;
import static io.files2iceberg.core.ledger.SqliteQueries.COUNT_PARTITIONS_BY_STATE;
import static io.files2iceberg.core.ledger.SqliteQueries.DELETE_QUARANTINED;
import static io.files2iceberg.core.ledger.SqliteQueries.HAS_IN_FLIGHT;
import static io.files2iceberg.core.ledger.SqliteQueries.INSERT_QUARANTINED;
import static io.files2iceberg.core.ledger.SqliteQueries.OLDEST_READY_AT;
import static io.files2iceberg.core.ledger.SqliteQueries.PRUNE_COMMITTED;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_BATCHES_OF_PARTITION;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_EXPIRED;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_FAILED_BATCHES;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_FAILED_PARTITIONS;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_FILES_NAMED;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_FILES_OF_PARTITION;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_FILES_OF_PRUNED_BATCH;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_IN_FLIGHT;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_LAST_COMMITTED;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_PARTITIONS_OF_TABLE;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_PENDING;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_QUARANTINED;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_QUARANTINED_FILES;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_READY_PARTITIONS;
import static io.files2iceberg.core.ledger.SqliteQueries.SELECT_TABLES;
import static io.files2iceberg.core.ledger.SqliteQueries.WRITE_PROBE;
import static io.files2iceberg.core.ledger.SqliteQueries.selectBatch;
import static io.files2iceberg.core.ledger.SqliteQueries.countPending;
import static io.files2iceberg.core.ledger.SqliteQueries.counts;
import static io.files2iceberg.core.ledger.SqliteQueries.exists;
import static io.files2iceberg.core.ledger.SqliteQueries.selectFile;
import static io.files2iceberg.core.ledger.SqliteQueries.files;
import static io.files2iceberg.core.ledger.SqliteQueries.insertFile;
import static io.files2iceberg.core.ledger.SqliteQueries.list;
import static io.files2iceberg.core.ledger.SqliteQueries.selectPartition;
import static io.files2iceberg.core.ledger.SqliteQueries.requireBatch;
import static io.files2iceberg.core.ledger.SqliteQueries.requireFile;
import static io.files2iceberg.core.ledger.SqliteQueries.requirePartition;
import static io.files2iceberg.core.ledger.SqliteQueries.update;
import static io.files2iceberg.core.ledger.SqliteQueries.writeBatch;
import static io.files2iceberg.core.ledger.SqliteQueries.writeFile;
import static io.files2iceberg.core.ledger.SqliteQueries.writeFiles;
import static io.files2iceberg.core.ledger.SqliteQueries.writePartition;

import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.NewestClaimWalk;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded ledger: one SQLite file (WAL mode) that the listener, the batcher and the Spark job
 * open at the same time, each from several threads. A port: every decision is the rules' ({@code
 * core.ledger.rules}); this class reads the records a call needs and writes the ones the rules
 * return, in one transaction.
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
      Instant now = now();
      Optional<PartitionRecord> partition = selectPartition(c, command.table(), command.partition());
      Optional<PartitionRecord> moved = PartitionRules.onFileRecorded(partition, command, now);
      if (moved.isPresent()) {
        writePartition(c, moved.get());
      }
      insertFile(c, FileRules.recorded(command, now));
      return new FileRecorded(true, selectFile(c, fileId).orElseThrow(), requirePartition(c, command.table(), command.partition()));
    });
  }

  @Override
  public PartitionRecord markReady(MarkReady command) {
    String key = "partition " + command.table() + "/" + command.partition();
    return store.write("markReady", key, c -> {
      Optional<PartitionRecord> stored = selectPartition(c, command.table(), command.partition());
      boolean pending = stored.filter(p -> p.state() == PartitionState.INGESTED).isPresent()
          && countPending(c, command.table(), command.partition()) > 0;
      Optional<PartitionRecord> moved = PartitionRules.onMarker(stored, command, pending, now());
      if (moved.isPresent()) {
        writePartition(c, moved.get());
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
      Instant now = now();
      ClaimWalk walk = new ClaimWalk(command.maxFiles());
      List<PartitionRecord> claimed = new ArrayList<>();
      List<FileRecord> files = new ArrayList<>();
      for (PartitionRecord ready : list(c, SELECT_READY_PARTITIONS, SqliteRows::partition, table)) {
        ClaimWalk.Step step = walk.offer(countPending(c, table, ready.partition()));
        if (step.action() == ClaimWalk.Action.STOP) {
          break;
        } else if (step.action() == ClaimWalk.Action.SETTLE) {
          // Nothing to load (its files were quarantined, or a marker without data files).
          writePartition(c, PartitionRules.settled(ready, now));
        } else {
          files.addAll(list(c, SELECT_PENDING, SqliteRows::file, table, ready.partition(), step.files()));
          claimed.add(ready);
        }
        if (walk.isDone()) {
          break;
        }
      }
      if (claimed.isEmpty()) {
        return Optional.empty();
      }
      BatchRecord batch = insertClaim(c, table, claimed, files, command.lease(), now);
      LOG.info("Claimed batch {} of table {}: {} files in partitions {}", batch.batchId(), table, files.size(),
          batch.partitions());
      return Optional.of(batch);
    });
  }

  @Override
  public Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    String table = command.table();
    return store.write("claimNewestPartition", "table " + table, c -> {
      if (exists(c, HAS_IN_FLIGHT, table)) {
        return Optional.empty();
      }
      Instant now = now();
      List<PartitionRecord> ready = new ArrayList<>(list(c, SELECT_READY_PARTITIONS, SqliteRows::partition, table));
      Collections.reverse(ready); // newest token first
      NewestClaimWalk walk = new NewestClaimWalk();
      PartitionRecord claimed = null;
      List<FileRecord> files = List.of();
      List<String> superseded = new ArrayList<>();
      for (PartitionRecord partition : ready) {
        boolean pending = !walk.hasTaken() && countPending(c, table, partition.partition()) > 0;
        switch (walk.offer(pending)) {
          case SETTLE -> writePartition(c, PartitionRules.settled(partition, now));
          case SUPERSEDE -> {
            writePartition(c, PartitionRules.superseded(partition, now));
            superseded.add(partition.partition());
          }
          case TAKE -> {
            claimed = partition;
            files = list(c, SELECT_PENDING, SqliteRows::file, table, partition.partition(), -1);
          }
        }
      }
      if (claimed == null) {
        return Optional.empty();
      }
      BatchRecord batch = insertClaim(c, table, List.of(claimed), files, command.lease(), now);
      Collections.sort(superseded);
      LOG.info("Claimed batch {} of table {}: {} files of the newest partition {}; superseded {}", batch.batchId(),
          table, files.size(), claimed.partition(), superseded);
      return Optional.of(new NewestPartitionClaimed(batch, superseded));
    });
  }

  /** The claim's writes: files and partitions CLAIMED by a new batch, and the batch PLANNED. */
  private BatchRecord insertClaim(Connection c, String table, List<PartitionRecord> partitions, List<FileRecord> files,
      Duration lease, Instant now) throws SQLException {
    String batchId = newBatchId();
    writeFiles(c, files.stream().map(file -> FileRules.claimed(file, batchId)).toList(),
        IntStream.range(0, files.size()).boxed().toList());
    for (PartitionRecord partition : partitions) {
      writePartition(c, PartitionRules.claimed(partition, batchId, now));
    }
    writeBatch(c, BatchRules.planned(batchId, table, partitions.stream().map(PartitionRecord::partition).toList(),
        files.stream().map(FileRecord::fileId).toList(), files.stream().map(FileRecord::eventId).toList(), lease, now));
    return requireBatch(c, batchId, "claim");
  }

  @Override
  public BatchRecord markRunning(String batchId, Duration lease) {
    Objects.requireNonNull(lease, "lease");
    return store.write("markRunning", "batch " + batchId, c -> {
      String action = "Cannot mark batch " + batchId + " running";
      writeBatch(c, BatchRules.running(requireBatch(c, batchId, action), lease, now()));
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

  private BatchRecord newLease(String operation, String action, String batchId, Duration lease, boolean onlyExpired) {
    Objects.requireNonNull(lease, "lease");
    return store.write(operation, "batch " + batchId, c -> {
      writeBatch(c, BatchRules.leased(requireBatch(c, batchId, action), lease, onlyExpired, action, now()));
      return requireBatch(c, batchId, action);
    });
  }

  @Override
  public BatchCommitted commitBatch(CommitBatch command) {
    String batchId = command.batchId();
    return store.write("commitBatch", "batch " + batchId, c -> {
      String action = "Cannot commit batch " + batchId;
      BatchRecord batch = requireBatch(c, batchId, action);
      Instant now = now();
      Optional<BatchRecord> committed = BatchRules.committed(batch, command, now);
      if (committed.isEmpty()) {
        return new BatchCommitted(batch, true);
      }
      writeBatch(c, committed.get());
      writeFiles(c, files(c, batch.fileIds()).stream().flatMap(f -> FileRules.afterCommit(f, batchId).stream()).toList(),
          null);
      for (String token : batch.partitions()) {
        boolean pending = countPending(c, batch.table(), token) > 0;
        release(c, batch, token, p -> PartitionRules.afterCommit(p, batchId, pending, now));
      }
      LOG.info("Committed batch {} of table {} with snapshot {}", batchId, batch.table(), command.snapshotId());
      return new BatchCommitted(requireBatch(c, batchId, action), false);
    });
  }

  @Override
  public BatchRecord failBatch(FailBatch command) {
    String batchId = command.batchId();
    return store.write("failBatch", "batch " + batchId, c -> {
      String action = "Cannot fail batch " + batchId;
      BatchRecord batch = requireBatch(c, batchId, action);
      Instant now = now();
      writeBatch(c, BatchRules.failed(batch, command, now));
      writeFiles(c, files(c, batch.fileIds()).stream().flatMap(f -> FileRules.afterFailure(f, batchId).stream()).toList(),
          null);
      for (String token : batch.partitions()) {
        release(c, batch, token,
            p -> PartitionRules.afterFailure(p, batchId, command.error(), command.maxAttempts(), now)).ifPresent(p -> {
              if (p.state() == PartitionState.FAILED) {
                LOG.warn("Partition {} of table {} FAILED after {} attempts (batch {}): {}", token, batch.table(),
                    p.attempts(), batchId, command.error());
              }
            });
      }
      LOG.warn("Failed batch {} of table {}: {}", batchId, batch.table(), command.error());
      return requireBatch(c, batchId, action);
    });
  }

  /** Writes what a commit or failure does to one of the batch's partitions, if it still holds it. */
  private static Optional<PartitionRecord> release(Connection c, BatchRecord batch, String token,
      java.util.function.Function<PartitionRecord, Optional<PartitionRecord>> rule) throws SQLException {
    Optional<PartitionRecord> released = selectPartition(c, batch.table(), token).flatMap(rule);
    if (released.isEmpty()) {
      LOG.warn("Partition {} of table {} is no longer claimed by batch {}; left as it is", token, batch.table(),
          batch.batchId());
    } else {
      writePartition(c, released.get());
    }
    return released;
  }

  @Override
  public List<BatchRecord> findExpiredLeases() {
    return store.read("findExpiredLeases", "all tables", c -> list(c, SELECT_EXPIRED, SqliteRows::batch, clock.millis()));
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
      FileRecord file = FileRules.quarantined(requireFile(c, fileId, "Cannot quarantine file "), reason);
      writeFile(c, file);
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
      Optional<FileRecord> leftOut = FileRules.leftOut(requireFile(c, fileId, action), target, reason, action);
      if (leftOut.isPresent()) {
        FileRecord file = leftOut.get();
        writeFile(c, file);
        LOG.warn("File {} generation {} of table {} is {}: {}", file.uri(), file.generation(), file.table(), target,
            reason);
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
    return store.read("batch", "batch " + batchId, c -> SqliteQueries.selectBatch(c, batchId));
  }

  @Override
  public Optional<PartitionRecord> partition(String table, String partition) {
    return store.read("partition", "partition " + table + "/" + partition,
        c -> SqliteQueries.selectPartition(c, table, partition));
  }

  @Override
  public Optional<FileRecord> file(String fileId) {
    return store.read("file", "file " + fileId, c -> SqliteQueries.selectFile(c, fileId));
  }

  @Override
  public List<FileRecord> filesOfBatch(String batchId) {
    return store.read("filesOfBatch", "batch " + batchId, c -> {
      Optional<BatchRecord> batch = SqliteQueries.selectBatch(c, batchId);
      // Pruned: its files still carry the batch id and their position in it. Else the batch row's
      // list, which also covers a FAILED batch, whose files were released.
      return batch.isEmpty() ? list(c, SELECT_FILES_OF_PRUNED_BATCH, SqliteRows::file, batchId)
          : files(c, batch.get().fileIds());
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
    });
  }

  // --- operator commands: replay, backfill, reconcile -----------------------------------------

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
    return store.write("reopenPartition", "partition " + table + "/" + partition, c -> {
      PartitionRecord stored = SqliteQueries.selectPartition(c, table, partition).orElseThrow(() ->
          new IllegalArgumentException("Cannot reopen partition " + table + "/" + partition + ": no such partition"));
      Optional<PartitionRecord> reopened = PartitionRules.reopened(stored, now());
      if (reopened.isEmpty()) {
        return stored;
      }
      List<FileRecord> files = list(c, SELECT_FILES_OF_PARTITION, SqliteRows::file, table, partition).stream()
          .flatMap(file -> FileRules.reopened(file).stream()).toList();
      writeFiles(c, files, null);
      writePartition(c, reopened.get());
      LOG.info("Reopened partition {}/{}: {} ingested file(s) to load again", table, partition, files.size());
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
      PartitionRecord stored = SqliteQueries.selectPartition(c, table, partition)
          .orElseThrow(() -> new IllegalArgumentException(action + ": no such partition"));
      writePartition(c, PartitionRules.retried(stored, action, now()));
      return requirePartition(c, table, partition);
    });
  }

  @Override
  public List<PartitionRecord> retryBatch(String batchId) {
    return store.write("retryBatch", "batch " + batchId, c -> {
      String action = "Cannot retry batch " + batchId;
      BatchRecord batch = requireBatch(c, batchId, action);
      BatchRules.requireRetryable(batch, action);
      List<PartitionRecord> retried = new ArrayList<>();
      for (String token : batch.partitions()) {
        Optional<PartitionRecord> stored = SqliteQueries.selectPartition(c, batch.table(), token)
            .filter(p -> PartitionState.RETRYABLE.contains(p.state()));
        if (stored.isPresent()) {
          writePartition(c, PartitionRules.retried(stored.get(), action, now()));
          retried.add(requirePartition(c, batch.table(), token));
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
      Instant now = now();
      BatchRecord revived = BatchRules.revived(batch, action, now);
      // Every check before the first write: a refusal changes nothing.
      List<FileRecord> stored = files(c, batch.fileIds());
      List<FileRecord> claimed = new ArrayList<>();
      List<Integer> positions = new ArrayList<>();
      for (int position = 0; position < batch.fileIds().size(); position++) {
        String fileId = batch.fileIds().get(position);
        FileRecord file = stored.stream().filter(f -> f.fileId().equals(fileId)).findFirst().orElseThrow(
            () -> new IllegalStateException(action + ": its file " + fileId + " is missing from the ledger"));
        int at = position;
        FileRules.revived(file, batchId, action).ifPresent(f -> {
          claimed.add(f);
          positions.add(at);
        });
      }
      List<PartitionRecord> partitions = new ArrayList<>();
      for (String token : batch.partitions()) {
        partitions.add(PartitionRules.revived(requirePartition(c, batch.table(), token), batchId, action, now));
      }
      writeBatch(c, revived);
      writeFiles(c, claimed, positions);
      for (PartitionRecord partition : partitions) {
        writePartition(c, partition);
      }
      LOG.info("Revived batch {} of table {}: {} file(s) and partitions {} claimed again for a relaunch", batchId,
          batch.table(), claimed.size(), batch.partitions());
      return requireBatch(c, batchId, action);
    });
  }

  @Override
  public FileRecord releaseFile(String fileId) {
    return store.write("releaseFile", "file " + fileId, c -> {
      FileRecord file = FileRules.released(requireFile(c, fileId, "Cannot release file "));
      writeFile(c, file);
      // Like a late file: an INGESTED partition is READY again for just this file.
      Optional<PartitionRecord> moved = PartitionRules.onFileReleased(requirePartition(c, file.table(), file.partition()), now());
      if (moved.isPresent()) {
        writePartition(c, moved.get());
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
      store.write("probe", dbFile().toString(), c -> update(c, WRITE_PROBE, clock.millis()));
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

  private Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }

  /** Sortable by creation second, unique by its random part. */
  private String newBatchId() {
    byte[] random = new byte[4];
    RANDOM.nextBytes(random);
    return BATCH_ID_TIME.format(clock.instant()) + "-" + HexFormat.of().formatHex(random);
  }
}
