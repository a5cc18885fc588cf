package io.files2iceberg.core.ledger.store;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerListings;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A store's reads: records by id, and queries by table, state and time. Orders are part of the
 * contract: partitions by token, a partition's files by URI then generation, batches oldest first.
 */
public interface StoreReads extends LedgerListings {

  /** No bound on a query's rows. */
  int ALL = -1;

  Optional<FileRecord> file(String fileId);

  /**
   * Reads these files and partitions (by table) in one round trip where the store can, so that
   * the reads of them that follow in this transaction cost none: a notification's file and its
   * partition. Nothing by default.
   */
  default void readAhead(List<String> fileIds, Map<String, List<String>> partitionsByTable) {}

  /** The stored files of these ids, in the order of {@code fileIds}; unknown ids are left out. */
  List<FileRecord> files(List<String> fileIds);

  Optional<PartitionRecord> partition(String table, String partition);

  /** The stored partitions of the table with these tokens, in the order of {@code partitions}. */
  List<PartitionRecord> partitions(String table, List<String> partitions);

  /** A batch with what it still owes, if anything. */
  Optional<StoredBatch> batch(String batchId);

  /**
   * A batch without its file and event id lists (empty in its record) where the store can leave
   * them out (most of a large batch's document), else whole: for a caller that has the lists
   * already (they never change once claimed).
   */
  default Optional<StoredBatch> batchWithoutLists(String batchId) {
    return batch(batchId);
  }

  /** The table's partitions in one state, by token, at most {@code limit} ({@link #ALL}: every one). */
  List<PartitionRecord> partitionsIn(String table, PartitionState state, int limit);

  /** A partition's files in one state, by URI then generation, at most {@code limit} ({@link #ALL}). */
  List<FileRecord> filesIn(String table, String partition, FileState state, int limit);

  /** Whether the table has a batch in one of these states. */
  boolean hasBatchIn(String table, Set<BatchState> states);

  /** The ids of the table's batches that owe writes ({@link StoredBatch#settling()}), oldest first. */
  List<String> batchesOwing(String table);

  /** The table's batches in one state, oldest first. */
  List<BatchRecord> batchesIn(String table, BatchState state);

  Optional<QuarantinedMessage> message(String messageId);

  /** PLANNED or RUNNING batches of every table whose lease ended before {@code now}, oldest lease first. */
  List<BatchRecord> expiredLeases(Instant now);

}
