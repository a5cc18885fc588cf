package io.files2iceberg.core.ledger.service;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.StoreReads;
import io.files2iceberg.core.ledger.store.Subject;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The ledger's reads that change nothing: each one of the store's reads, outside any write. */
abstract class LedgerLookups implements Ledger {
  protected final LedgerStore store;

  LedgerLookups(LedgerStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  @Override
  public Optional<BatchRecord> batch(String batchId) {
    return read("batch", Subject.batch(batchId), r -> r.batch(batchId).map(b -> b.batch()));
  }

  @Override
  public Optional<PartitionRecord> partition(String table, String partition) {
    return read("partition", Subject.partition(table, partition), r -> r.partition(table, partition));
  }

  @Override
  public Optional<FileRecord> file(String fileId) {
    return read("file", Subject.file(fileId), r -> r.file(fileId));
  }

  @Override
  public List<FileRecord> filesOfBatch(String batchId) {
    return read("filesOfBatch", Subject.batch(batchId), r -> r.filesOfBatch(batchId));
  }

  @Override
  public List<String> tables() {
    return read("tables", Subject.other("all tables"), StoreReads::tables);
  }

  @Override
  public TableStatus tableStatus(String table) {
    return read("tableStatus", Subject.table(table), r -> r.tableStatus(table));
  }

  @Override
  public List<TableChange> changes(String table) {
    return read("changes", Subject.table(table), reads -> reads.changes(table));
  }

  @Override
  public Optional<TableChange> change(String changeId) {
    return read("change", Subject.other("change " + changeId), reads -> reads.change(changeId));
  }

  @Override
  public List<ChangeEvent> pendingEvents(int limit) {
    return read("pendingEvents", Subject.other("the outbox"), reads -> reads.pendingEvents(limit));
  }

  @Override
  public List<QuarantinedMessage> quarantinedMessages() {
    return read("quarantinedMessages", Subject.other("all messages"), StoreReads::quarantinedMessages);
  }

  @Override
  public List<PartitionRecord> partitions(String table) {
    return read("partitions", Subject.table(table), r -> r.partitions(table));
  }

  @Override
  public List<FileRecord> filesOfPartition(String table, String partition) {
    return read("filesOfPartition", Subject.partition(table, partition), r -> r.filesOfPartition(table, partition));
  }

  @Override
  public List<FileRecord> quarantinedFiles() {
    return read("quarantinedFiles", Subject.other("all files"), StoreReads::quarantinedFiles);
  }

  @Override
  public List<FileRecord> filesToClean(String table, Instant ingestedBefore, int limit) {
    return read("filesToClean", Subject.table(table), r -> r.filesToClean(table, ingestedBefore, limit));
  }

  @Override
  public List<FileRecord> filesBeingCleaned(String table, int limit) {
    return read("filesBeingCleaned", Subject.table(table), r -> r.filesBeingCleaned(table, limit));
  }

  @Override
  public List<FileRecord> filesNamed(String bucket, String name) {
    return read("filesNamed", Subject.other("object " + bucket + "/" + name), r -> r.filesNamed(bucket, name));
  }

  @Override
  public List<BatchRecord> batchesOfPartition(String table, String partition) {
    return read("batchesOfPartition", Subject.partition(table, partition),
        r -> r.batchesOfPartition(table, partition));
  }

  @Override
  public List<BatchRecord> batches(String table) {
    return read("batches", Subject.table(table), r -> r.batches(table));
  }

  @Override
  public List<BatchRecord> batchesSettledSince(String table, Instant since) {
    return read("batchesSettledSince", Subject.table(table, "since " + since), r -> r.batchesSettledSince(table, since));
  }

  <T> T read(String operation, Subject subject, LedgerStore.Reading<T> reading) {
    return store.read(operation, subject, reading);
  }
}
