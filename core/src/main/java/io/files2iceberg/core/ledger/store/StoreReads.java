package io.files2iceberg.core.ledger.store;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerListings;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.TableStatus;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
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

  /**
   * The stored partitions of the table with these tokens, in the order of {@code partitions}. One
   * read a token by default; a store that can read them in one round trip does.
   */
  default List<PartitionRecord> partitions(String table, List<String> partitions) {
    return partitions.stream().flatMap(token -> partition(table, token).stream()).toList();
  }

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

  Optional<TableChange> change(String changeId);

  /** The table's changes in one state, oldest first. */
  default List<TableChange> changesIn(String table, TableChange.ChangeState state) {
    return changes(table).stream().filter(c -> c.state() == state).toList();
  }

  /** The outbox's events of every table, oldest first (then by event id), at most {@code limit} ({@link #ALL}). */
  List<ChangeEvent> pendingEvents(int limit);

  /** PLANNED or RUNNING batches of every table whose lease ended before {@code now}, oldest lease first. */
  List<BatchRecord> expiredLeases(Instant now);

  /** By default from every file of the table, read whole: a store that indexes load times reads fewer. */
  @Override
  default List<FileRecord> filesToClean(String table, Instant ingestedBefore, int limit) {
    return filesOfTable(table)
        .filter(f -> f.state() == FileState.INGESTED && f.cleaned().isEmpty()
            && f.ingestedAt().filter(at -> at.isBefore(ingestedBefore)).isPresent())
        .sorted(Comparator.comparing((FileRecord f) -> f.ingestedAt().orElseThrow()).thenComparing(FileRecord::fileId))
        .limit(limit == ALL ? Long.MAX_VALUE : limit)
        .toList();
  }

  /** By default from every file of the table, read whole. */
  @Override
  default List<FileRecord> filesBeingCleaned(String table, int limit) {
    return filesOfTable(table)
        .filter(f -> f.cleaned().filter(c -> c.removedAt().isEmpty()).isPresent())
        .sorted(Comparator.comparing((FileRecord f) -> f.cleaned().orElseThrow().cleanedAt())
            .thenComparing(FileRecord::fileId))
        .limit(limit == ALL ? Long.MAX_VALUE : limit)
        .toList();
  }

  private java.util.stream.Stream<FileRecord> filesOfTable(String table) {
    return partitions(table).stream().flatMap(p -> filesOfPartition(table, p.partition()).stream());
  }

  /** By default the table's batches, filtered: a store that indexes a batch's partitions reads fewer. */
  @Override
  default List<BatchRecord> batchesOfPartition(String table, String partition) {
    return batches(table).stream().filter(b -> b.partitions().contains(partition)).toList();
  }

  /**
   * By default from the table's partitions, their files and its batches, read whole: a store that
   * can count by state without reading every record does.
   */
  @Override
  default TableStatus tableStatus(String table) {
    List<PartitionRecord> partitions = partitions(table);
    Map<PartitionState, Long> partitionsByState = new EnumMap<>(PartitionState.class);
    Map<FileState, Long> filesByState = new EnumMap<>(FileState.class);
    for (PartitionRecord partition : partitions) {
      partitionsByState.merge(partition.state(), 1L, Long::sum);
      filesOfPartition(table, partition.partition()).forEach(f -> filesByState.merge(f.state(), 1L, Long::sum));
    }
    List<BatchRecord> batches = batches(table);
    Comparator<BatchRecord> newestSettledFirst =
        Comparator.comparing(BatchRecord::updatedAt).thenComparing(BatchRecord::batchId).reversed();
    return new TableStatus(table, partitionsByState, filesByState,
        batches.stream().filter(b -> b.state().isInFlight()).toList(),
        batches.stream().filter(b -> b.state() == BatchState.COMMITTED).min(newestSettledFirst),
        partitions.stream().filter(p -> p.state() == PartitionState.READY).flatMap(p -> p.readyAt().stream())
            .min(Comparator.naturalOrder()),
        partitions.stream().filter(p -> p.state() == PartitionState.FAILED).toList(),
        batches.stream().filter(b -> b.state() == BatchState.FAILED).sorted(newestSettledFirst).limit(10).toList());
  }

}
