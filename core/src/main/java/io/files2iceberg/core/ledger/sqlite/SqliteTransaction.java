package io.files2iceberg.core.ledger.sqlite;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.ledger.store.Settling;
import io.files2iceberg.core.ledger.store.StoreTransaction;
import io.files2iceberg.core.ledger.store.StoredBatch;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A SQLite transaction (or a savepoint of the writer's group transaction, or a read transaction)
 * as the ledger service sees it: {@link SqliteQueries}' statements on one connection. SQLite commits
 * any number of writes at once, so no batch ever owes any.
 */
final class SqliteTransaction implements StoreTransaction {

  /** A statement's {@link SQLException}, carried out of the service's work to the store unchanged. */
  static final class Failed extends RuntimeException {
    Failed(SQLException cause) {
      super(cause);
    }

    SQLException sql() {
      return (SQLException) getCause();
    }
  }

  @FunctionalInterface
  private interface Statement<T> {
    T run() throws SQLException;
  }

  private final Connection c;

  SqliteTransaction(Connection c) {
    this.c = c;
  }

  @FunctionalInterface
  private interface Update {
    void run() throws SQLException;
  }

  private static void update(Update update) {
    sql(() -> {
      update.run();
      return null;
    });
  }

  private static <T> T sql(Statement<T> statement) {
    try {
      return statement.run();
    } catch (SQLException e) {
      throw new Failed(e);
    }
  }

  @Override
  public Optional<FileRecord> file(String fileId) {
    return sql(() -> SqliteQueries.selectFile(c, fileId));
  }

  @Override
  public List<FileRecord> files(List<String> fileIds) {
    return sql(() -> SqliteQueries.selectFiles(c, fileIds));
  }

  @Override
  public Optional<PartitionRecord> partition(String table, String partition) {
    return sql(() -> SqliteQueries.selectPartition(c, table, partition));
  }

  @Override
  public List<PartitionRecord> partitions(String table, List<String> partitions) {
    List<PartitionRecord> stored = new ArrayList<>();
    for (String partition : partitions) {
      partition(table, partition).ifPresent(stored::add);
    }
    return stored;
  }

  @Override
  public Optional<StoredBatch> batch(String batchId) {
    return sql(() -> SqliteQueries.selectBatch(c, batchId)).map(b -> new StoredBatch(b, Optional.empty()));
  }

  @Override
  public List<PartitionRecord> partitionsIn(String table, PartitionState state, int limit) {
    return sql(() -> SqliteQueries.partitionsIn(c, table, state, limit));
  }

  @Override
  public List<FileRecord> filesIn(String table, String partition, FileState state, int limit) {
    return sql(() -> SqliteQueries.filesIn(c, table, partition, state, limit));
  }

  @Override
  public boolean hasBatchIn(String table, Set<BatchState> states) {
    return sql(() -> SqliteQueries.hasBatchIn(c, table, states));
  }

  @Override
  public List<String> batchesOwing(String table) {
    return List.of();
  }

  @Override
  public List<BatchRecord> batchesIn(String table, BatchState state) {
    return sql(() -> SqliteQueries.batchesIn(c, table, state));
  }

  @Override
  public Optional<QuarantinedMessage> message(String messageId) {
    return sql(() -> SqliteQueries.quarantined(c, messageId));
  }

  @Override
  public Optional<TableChange> change(String changeId) {
    return sql(() -> SqliteQueries.change(c, changeId));
  }

  @Override
  public List<TableChange> changes(String table) {
    return sql(() -> SqliteQueries.changes(c, table));
  }

  @Override
  public List<FileRecord> filesOfBatch(String batchId) {
    return sql(() -> SqliteQueries.filesOfBatch(c, batchId));
  }

  @Override
  public List<String> tables() {
    return sql(() -> SqliteQueries.tables(c));
  }

  @Override
  public TableStatus tableStatus(String table) {
    return sql(() -> SqliteQueries.tableStatus(c, table));
  }

  @Override
  public List<PartitionRecord> partitions(String table) {
    return sql(() -> SqliteQueries.partitions(c, table));
  }

  @Override
  public List<FileRecord> filesOfPartition(String table, String partition) {
    return sql(() -> SqliteQueries.filesOfPartition(c, table, partition));
  }

  @Override
  public List<QuarantinedMessage> quarantinedMessages() {
    return sql(() -> SqliteQueries.quarantinedMessages(c));
  }

  @Override
  public List<FileRecord> quarantinedFiles() {
    return sql(() -> SqliteQueries.quarantinedFiles(c));
  }

  @Override
  public List<FileRecord> filesNamed(String bucket, String name) {
    return sql(() -> SqliteQueries.filesNamed(c, bucket, name));
  }

  @Override
  public List<FileRecord> filesToClean(String table, Instant ingestedBefore, int limit) {
    return sql(() -> SqliteQueries.filesToClean(c, table, ingestedBefore, limit));
  }

  @Override
  public List<FileRecord> filesBeingCleaned(String table, int limit) {
    return sql(() -> SqliteQueries.filesBeingCleaned(c, table, limit));
  }

  @Override
  public List<BatchRecord> batchesOfPartition(String table, String partition) {
    return sql(() -> SqliteQueries.batchesOfPartition(c, table, partition));
  }

  @Override
  public List<BatchRecord> batches(String table) {
    return sql(() -> SqliteQueries.batchesOfTable(c, table));
  }

  @Override
  public List<BatchRecord> batchesSettledSince(String table, Instant since) {
    return sql(() -> SqliteQueries.settledSince(c, table, since));
  }

  @Override
  public List<BatchRecord> expiredLeases(Instant now) {
    return sql(() -> SqliteQueries.expired(c, now.toEpochMilli()));
  }

  // --- writes ------------------------------------------------------------------------------------

  @Override
  public FileRecord createFile(FileRecord file) {
    update(() -> SqliteQueries.insertFiles(c, List.of(file)));
    return SqliteRows.asStored(file);
  }

  @Override
  public FileRecord putFile(FileRecord file) {
    update(() -> SqliteQueries.writeFiles(c, List.of(file), null));
    return SqliteRows.asStored(file);
  }

  @Override
  public FileRecord putFile(FileRecord file, int position) {
    update(() -> SqliteQueries.writeFiles(c, List.of(file), List.of(position)));
    return SqliteRows.asStored(file);
  }

  @Override
  public PartitionRecord putPartition(PartitionRecord partition) {
    update(() -> SqliteQueries.writePartition(c, partition));
    return partition;
  }

  @Override
  public BatchRecord putBatch(BatchRecord batch) {
    return sql(() -> {
      SqliteQueries.writeBatch(c, batch);
      return SqliteQueries.selectBatch(c, batch.batchId()).orElseThrow();
    });
  }

  @Override
  public BatchRecord putBatch(BatchRecord batch, Optional<Settling> settling) {
    requireNothingOwed(batch.batchId(), settling);
    return putBatch(batch);
  }

  @Override
  public void putSettling(String batchId, Optional<Settling> settling) {
    requireNothingOwed(batchId, settling);
  }

  private static void requireNothingOwed(String batchId, Optional<Settling> settling) {
    if (settling.isPresent()) {
      throw new IllegalStateException("Batch " + batchId + " would owe writes, but a SQLite commit takes any number");
    }
  }

  @Override
  public void deleteBatch(String batchId) {
    update(() -> SqliteQueries.deleteBatch(c, batchId));
  }

  @Override
  public void putMessage(QuarantinedMessage message) {
    sql(() -> SqliteQueries.insertQuarantined(c, message));
  }

  @Override
  public void deleteMessage(String messageId) {
    sql(() -> SqliteQueries.deleteQuarantined(c, messageId));
  }

  @Override
  public List<ChangeEvent> pendingEvents(int limit) {
    return sql(() -> SqliteQueries.events(c, limit));
  }

  @Override
  public void putEvent(ChangeEvent event) {
    sql(() -> SqliteQueries.putEvent(c, event));
  }

  @Override
  public void deleteEvent(String eventId) {
    sql(() -> SqliteQueries.deleteEvent(c, eventId));
  }

  @Override
  public TableChange putChange(TableChange change) {
    sql(() -> SqliteQueries.putChange(c, change));
    return change;
  }
}
