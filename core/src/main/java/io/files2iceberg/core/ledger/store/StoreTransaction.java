package io.files2iceberg.core.ledger.store;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.TableChange;
import java.util.Optional;

/**
 * One transaction of a {@link LedgerStore}: its reads, then its writes, which commit together. Each
 * write returns the record as a later read returns it (times to the store's precision).
 */
public interface StoreTransaction extends StoreReads {

  /** A new file; fails when one of its id is stored. */
  FileRecord createFile(FileRecord file);

  /** A stored file's new state, batch, reason, snapshot and rows; its place in its batch kept. */
  FileRecord putFile(FileRecord file);

  /** As {@link #putFile(FileRecord)}, the file at {@code position} in its batch's order. */
  FileRecord putFile(FileRecord file, int position);

  /** Creates or overwrites a partition. */
  PartitionRecord putPartition(PartitionRecord partition);

  /** Creates or overwrites a batch, what it owes kept as stored. */
  BatchRecord putBatch(BatchRecord batch);

  /** Creates or overwrites a batch with what it owes ({@link Settling}), or nothing. */
  BatchRecord putBatch(BatchRecord batch, Optional<Settling> settling);

  /** Sets what a stored batch still owes, its record unchanged. */
  void putSettling(String batchId, Optional<Settling> settling);

  void deleteBatch(String batchId);

  /** Records a message; one of its id already stored is kept as it is. */
  void putMessage(QuarantinedMessage message);

  void deleteMessage(String messageId);

  /** Adds a change event to the outbox (the same event id again overwrites it). */
  void putEvent(ChangeEvent event);

  /** Deletes an event from the outbox; nothing when it is not there. */
  void deleteEvent(String eventId);

  /** Creates or overwrites an operator's change. */
  TableChange putChange(TableChange change);
}
