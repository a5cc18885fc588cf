package io.files2iceberg.core.ledger.sqlite;

import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.countPending;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.hasInFlight;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.pendingCounts;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.insertFiles;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.pendingFiles;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.pendingSizes;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.readyPartitions;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.releasePartition;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.requireBatch;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.requireFile;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.requirePartition;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.selectBatch;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.selectFile;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.selectFiles;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.selectPartition;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.writeBatch;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.writeFile;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.writeFiles;
import static io.files2iceberg.core.ledger.sqlite.SqliteQueries.writePartition;

import io.files2iceberg.core.ledger.BatchCommitted;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.NewestClaimWalk;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import io.files2iceberg.core.ledger.rules.RecordingWalk;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
 * <p>Every method is one SQLite transaction, or a part of one: within a process, the ledger's
 * writes go through one writer (a thread with its own connection) that commits the writes of
 * concurrent callers together, each in a savepoint of its own, and returns to each caller only
 * once the group has committed (see {@code SqliteStore}); reads run on connections of their own.
 * Every write takes the write lock first ({@code BEGIN IMMEDIATE}), then reads the current state,
 * checks it and writes. So writers from all processes are serialized and no check is ever made
 * against a state another writer has changed since. A write lock held by another process longer
 * than the busy timeout (10 s) surfaces as {@link LedgerUnavailableException}.
 *
 * <p>Times come from the injected {@link Clock} and are kept to the millisecond.
 */
public final class SqliteLedger implements Ledger {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteLedger.class);

  /** Files recorded per unit of work of {@link #recordFiles}. */
  static final int FILES_PER_WRITE = 1_000;

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

  /** Write transactions this ledger committed since it opened (for tests and metrics). */
  long writeTransactions() {
    return store.writeTransactions();
  }

  @Override
  public FileRecorded recordFile(RecordFile command) {
    return store.write("recordFile", "file " + command.fileId() + " (" + command.uri() + ")",
        c -> record(c, List.of(command))).get(0);
  }

  /**
   * A unit of work per {@value #FILES_PER_WRITE} files, all handed to the writer at once: they
   * share its group transactions with each other and with concurrent writes.
   */
  @Override
  public List<FileRecorded> recordFiles(List<RecordFile> commands) {
    List<SqliteStore.Unit<List<FileRecorded>>> units = new ArrayList<>();
    for (int from = 0; from < commands.size(); from += FILES_PER_WRITE) {
      List<RecordFile> chunk = List.copyOf(commands.subList(from, Math.min(commands.size(), from + FILES_PER_WRITE)));
      String key = chunk.size() + " files from " + chunk.get(0).uri() + " to " + chunk.get(chunk.size() - 1).uri();
      units.add(store.submit("recordFiles", key, c -> record(c, chunk)));
    }
    List<FileRecorded> recorded = new ArrayList<>(commands.size());
    RuntimeException failure = null;
    for (SqliteStore.Unit<List<FileRecorded>> unit : units) {
      // Each unit is awaited, so none is still pending when the call returns.
      try {
        recorded.addAll(store.await(unit));
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return recorded;
  }

  /** Records the files in the caller's transaction, as {@link RecordingWalk} decides. */
  private List<FileRecorded> record(Connection c, List<RecordFile> commands) throws SQLException {
    Map<String, FileRecord> stored = new HashMap<>();
    List<FileRecord> known = commands.size() == 1 ? selectFile(c, commands.get(0).fileId()).stream().toList()
        : selectFiles(c, commands.stream().map(RecordFile::fileId).distinct().toList());
    for (FileRecord file : known) {
      stored.put(file.fileId(), file);
    }
    Map<String, Optional<PartitionRecord>> read = new HashMap<>();
    for (RecordFile command : commands) {
      readPartition(c, read, command.table(), command.partition());
    }
    for (FileRecord file : stored.values()) {
      readPartition(c, read, file.table(), file.partition());
    }
    Map<String, PartitionRecord> partitions = new HashMap<>();
    read.forEach((id, partition) -> partition.ifPresent(p -> partitions.put(id, p)));
    RecordingWalk.Plan plan = RecordingWalk.plan(commands, stored, partitions, now());
    for (PartitionRecord partition : plan.partitions()) {
      writePartition(c, partition);
    }
    insertFiles(c, plan.created());
    // As stored (times to the millisecond), as a later read returns them.
    Map<String, FileRecord> created = new HashMap<>();
    for (FileRecord file : plan.created()) {
      created.put(file.fileId(), SqliteRows.asStored(file));
    }
    return plan.recorded().stream()
        .map(r -> created.containsKey(r.file().fileId())
            ? new FileRecorded(r.isNew(), created.get(r.file().fileId()), r.partition()) : r)
        .toList();
  }

  private static void readPartition(Connection c, Map<String, Optional<PartitionRecord>> read, String table,
      String partition) throws SQLException {
    String id = LedgerSchema.partitionId(table, partition);
    if (!read.containsKey(id)) {
      read.put(id, selectPartition(c, table, partition));
    }
  }

  @Override
  public PartitionRecord markReady(MarkReady command) {
    String key = "partition " + command.table() + "/" + command.partition();
    return store.write("markReady", key, c -> {
      Optional<PartitionRecord> stored = selectPartition(c, command.table(), command.partition());
      boolean pending = stored.filter(p -> p.state() == PartitionState.INGESTED).isPresent()
          && countPending(c, command.table(), command.partition()) > 0;
      writePartition(c, PartitionRules.onMarker(stored, command, pending, now()));
      return requirePartition(c, command.table(), command.partition());
    });
  }

  @Override
  public Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    String table = command.table();
    if (!hasReady("claimPartitions", table)) {
      return Optional.empty();
    }
    return store.write("claimPartitions", "table " + table, c -> {
      if (command.exclusive() && hasInFlight(c, table)) {
        return Optional.empty();
      }
      Instant now = now();
      ClaimWalk.Plan plan = command.maxBytes() == ClaimWalk.NO_BYTE_CAP
          ? ClaimWalk.plan(readyPartitions(c, table), pendingCounts(c, table), command.maxFiles())
          : ClaimWalk.plan(readyPartitions(c, table), pendingSizes(c, table), command.maxFiles(), command.maxBytes());
      for (PartitionRecord settled : plan.settled()) {
        // Nothing to load (its files were quarantined, or a marker without data files).
        writePartition(c, PartitionRules.settled(settled, now));
      }
      if (plan.taken().isEmpty()) {
        return Optional.empty();
      }
      List<PartitionRecord> claimed = plan.taken().stream().map(ClaimWalk.Take::partition).toList();
      List<FileRecord> files = new ArrayList<>();
      for (ClaimWalk.Take take : plan.taken()) {
        files.addAll(pendingFiles(c, table, take.partition().partition(), take.files()));
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
    if (!hasReady("claimNewestPartition", table)) {
      return Optional.empty();
    }
    return store.write("claimNewestPartition", "table " + table, c -> {
      if (hasInFlight(c, table)) {
        return Optional.empty();
      }
      Instant now = now();
      NewestClaimWalk.Plan plan = NewestClaimWalk.plan(readyPartitions(c, table), pendingCounts(c, table).keySet());
      for (PartitionRecord settled : plan.settled()) {
        writePartition(c, PartitionRules.settled(settled, now));
      }
      for (PartitionRecord older : plan.superseded()) {
        writePartition(c, PartitionRules.superseded(older, now));
      }
      if (plan.taken().isEmpty()) {
        return Optional.empty();
      }
      PartitionRecord claimed = plan.taken().get();
      List<FileRecord> files = pendingFiles(c, table, claimed.partition(), -1);
      List<String> superseded = plan.superseded().stream().map(PartitionRecord::partition).toList();
      BatchRecord batch = insertClaim(c, table, List.of(claimed), files, command.lease(), now);
      LOG.info("Claimed batch {} of table {}: {} files of the newest partition {}; superseded {}", batch.batchId(),
          table, files.size(), claimed.partition(), superseded);
      return Optional.of(new NewestPartitionClaimed(batch, superseded));
    });
  }

  /**
   * Whether the table has a READY partition, read outside the writer's queue: a batcher's turn
   * claims every table and most have nothing READY, so such a claim no longer takes a place in the
   * group transactions the listener's writes share. One that becomes READY just after is claimed
   * by the next turn; the claim's own transaction reads again whatever it takes.
   */
  private boolean hasReady(String operation, String table) {
    return store.read(operation, "table " + table, c -> SqliteQueries.hasReady(c, table));
  }

  /** The claim's writes: files and partitions CLAIMED by a new batch, and the batch PLANNED. */
  private BatchRecord insertClaim(Connection c, String table, List<PartitionRecord> partitions, List<FileRecord> files,
      Duration lease, Instant now) throws SQLException {
    String batchId = BatchRules.newBatchId(clock.instant());
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
      writeFiles(c, FileRules.afterCommit(selectFiles(c, batch.fileIds()), batchId, command.snapshotId(),
          command.fileRows()), null);
      for (String token : batch.partitions()) {
        boolean pending = countPending(c, batch.table(), token) > 0;
        releasePartition(c, batch, token, p -> PartitionRules.afterCommit(p, batchId, pending, now));
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
      writeFiles(c, FileRules.afterFailure(selectFiles(c, batch.fileIds()), batchId), null);
      for (String token : batch.partitions()) {
        releasePartition(c, batch, token, p -> PartitionRules.afterFailure(p, batchId, command.error(), command.maxAttempts(), now))
            .filter(p -> p.state() == PartitionState.FAILED).ifPresent(p -> LOG.info(
                "Partition {} of table {} FAILED (batch {})", token, batch.table(), batchId));
      }
      // The error itself is the batcher's to log, once.
      LOG.info("Failed batch {} of table {}", batchId, batch.table());
      return requireBatch(c, batchId, action);
    });
  }

  @Override
  public List<BatchRecord> findExpiredLeases() {
    return store.read("findExpiredLeases", "all tables", c -> SqliteQueries.expired(c, clock.millis()));
  }

  @Override
  public int pruneCommitted(String table, int keep) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep must not be negative, was " + keep);
    }
    return store.write("pruneCommitted", "table " + table, c -> {
      int deleted = SqliteQueries.pruneCommitted(c, table, keep);
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
    store.write("quarantineMessage", "message " + message.messageId(), c -> SqliteQueries.insertQuarantined(c, message));
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
    return store.read("filesOfBatch", "batch " + batchId, c -> SqliteQueries.filesOfBatch(c, batchId));
  }

  @Override
  public List<String> tables() {
    return store.read("tables", "all tables", SqliteQueries::tables);
  }

  @Override
  public TableStatus tableStatus(String table) {
    return store.read("tableStatus", "table " + table, c -> SqliteQueries.tableStatus(c, table));
  }

  // --- operator commands: replay, backfill, reconcile -----------------------------------------

  @Override
  public List<PartitionRecord> partitions(String table) {
    return store.read("partitions", "table " + table, c -> SqliteQueries.partitions(c, table));
  }

  @Override
  public List<FileRecord> filesOfPartition(String table, String partition) {
    return store.read("filesOfPartition", "partition " + table + "/" + partition,
        c -> SqliteQueries.filesOfPartition(c, table, partition));
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
      List<FileRecord> files = SqliteQueries.filesOfPartition(c, table, partition).stream()
          .flatMap(file -> FileRules.reopened(file).stream()).toList();
      writeFiles(c, files, null);
      writePartition(c, reopened.get());
      LOG.info("Reopened partition {}/{}: {} ingested file(s) to load again", table, partition, files.size());
      return requirePartition(c, table, partition);
    });
  }

  @Override
  public List<QuarantinedMessage> quarantinedMessages() {
    return store.read("quarantinedMessages", "all messages", SqliteQueries::quarantinedMessages);
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
      List<FileRules.Placed> claimed = FileRules.revived(batch, selectFiles(c, batch.fileIds()), action);
      List<PartitionRecord> partitions = new ArrayList<>();
      for (String token : batch.partitions()) {
        partitions.add(PartitionRules.revived(requirePartition(c, batch.table(), token), batchId, action, now));
      }
      writeBatch(c, revived);
      writeFiles(c, claimed);
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
      writePartition(c, PartitionRules.onFileReleased(requirePartition(c, file.table(), file.partition()), now()));
      LOG.info("Released file {} of table {} from the quarantine", file.uri(), file.table());
      return selectFile(c, fileId).orElseThrow();
    });
  }

  @Override
  public boolean releaseMessage(String messageId) {
    return store.write("releaseMessage", "message " + messageId, c -> SqliteQueries.deleteQuarantined(c, messageId));
  }

  @Override
  public List<FileRecord> quarantinedFiles() {
    return store.read("quarantinedFiles", "all files", SqliteQueries::quarantinedFiles);
  }

  @Override
  public List<FileRecord> filesNamed(String bucket, String name) {
    return store.read("filesNamed", "object " + bucket + "/" + name, c -> SqliteQueries.filesNamed(c, bucket, name));
  }

  @Override
  public List<BatchRecord> batchesOfPartition(String table, String partition) {
    return store.read("batchesOfPartition", "partition " + table + "/" + partition,
        c -> SqliteQueries.batchesOfPartition(c, table, partition));
  }

  @Override
  public List<BatchRecord> batches(String table) {
    return store.read("batches", "table " + table, c -> SqliteQueries.batchesOfTable(c, table));
  }

  @Override
  public List<BatchRecord> batchesSettledSince(String table, Instant since) {
    return store.read("batchesSettledSince", "table " + table + " since " + since,
        c -> SqliteQueries.settledSince(c, table, since));
  }

  @Override
  public Optional<String> unavailableBecause() {
    try {
      // A committed write, not a read: a file that reads but cannot be written (read-only, disk
      // full) fails every push, and health must say so.
      store.write("probe", dbFile().toString(), c -> SqliteQueries.writeProbe(c, clock.millis()));
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
}
