package io.files2iceberg.ledger.firestore;

import io.files2iceberg.core.ledger.TableChange;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_POSITION;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.ledger.firestore.FirestoreStore.batchList;
import static io.files2iceberg.ledger.firestore.FirestoreStore.data;
import static io.files2iceberg.ledger.firestore.FirestoreStore.optional;
import static io.files2iceberg.ledger.firestore.FirestoreStore.records;

import com.google.api.core.ApiFuture;
import com.google.cloud.firestore.AggregateQuerySnapshot;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.Query;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerListings;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.TableStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Firestore store's listings for the operator and for status: queries outside transactions,
 * each shape one of {@link LedgerQuery}'s. Run within the store's retries ({@link FirestoreStore#read}).
 */
abstract class FirestoreListings implements LedgerListings {
  static final List<String> IN_FLIGHT = List.of(BatchState.PLANNED.code(), BatchState.RUNNING.code());
  private static final int FAILED_BATCHES_SHOWN = 10;

  final FirestoreStore store;

  FirestoreListings(FirestoreStore store) {
    this.store = store;
  }

  @Override
  public List<FileRecord> filesOfBatch(String batchId) {
    DocumentReference ref = store.batches.document(batchId);
    return read("filesOfBatch", ref.getPath(), () -> {
      Optional<Map<String, Object>> batch = optional(ref.get().get());
      if (batch.isEmpty()) {
        // Pruned: its files still carry the batch (by key) and their position in it.
        List<Map<String, Object>> found = new ArrayList<>();
        for (QueryDocumentSnapshot doc : LedgerQuery.FILES_OF_BATCH.on(store.files, LedgerSchema.batchKey(batchId))
            .get().get()) {
          Map<String, Object> file = data(doc);
          if (batchId.equals(file.get(BATCH_ID))) {
            found.add(file);
          }
        }
        found.sort(Comparator.comparingLong(file -> ((Number) file.get(BATCH_POSITION)).longValue()));
        return found.stream().map(FirestoreDocuments::file).toList();
      }
      // The batch document's list also covers a FAILED batch, whose files were released.
      List<FileRecord> result = new ArrayList<>();
      List<String> fileIds = FirestoreDocuments.batch(batch.get()).fileIds();
      if (!fileIds.isEmpty()) {
        for (DocumentSnapshot doc : store.db.getAll(fileIds.stream().map(store.files::document)
            .toArray(DocumentReference[]::new)).get()) {
          optional(doc).map(FirestoreDocuments::file).ifPresent(result::add);
        }
      }
      return result;
    });
  }

  @Override
  public List<String> tables() {
    return read("tables", store.partitions.getPath(), () -> {
      // One indexed read per table: the first partition whose table sorts after the last one seen.
      List<String> tables = new ArrayList<>();
      String last = "";
      while (true) {
        List<QueryDocumentSnapshot> next =
            LedgerQuery.TABLE_AFTER.on(store.partitions, last).limit(1).get().get().getDocuments();
        if (next.isEmpty()) {
          return tables;
        }
        last = next.get(0).getString(TABLE);
        tables.add(last);
      }
    });
  }

  @Override
  public TableStatus tableStatus(String table) {
    return read("tableStatus", store.partitions.getPath() + " (table " + table + ")", () -> {
      // Counts are aggregation queries (billed per index entry read, no document read).
      Map<PartitionState, ApiFuture<AggregateQuerySnapshot>> partitionCounts = new EnumMap<>(PartitionState.class);
      for (PartitionState state : PartitionState.values()) {
        partitionCounts.put(state, LedgerQuery.PARTITION_COUNT.on(store.partitions, table, state.code()).count().get());
      }
      Map<FileState, ApiFuture<AggregateQuerySnapshot>> fileCounts = new EnumMap<>(FileState.class);
      for (FileState state : FileState.values()) {
        fileCounts.put(state, LedgerQuery.FILE_COUNT.on(store.files, table, state.code()).count().get());
      }
      Map<PartitionState, Long> partitionsByState = new EnumMap<>(PartitionState.class);
      for (Map.Entry<PartitionState, ApiFuture<AggregateQuerySnapshot>> count : partitionCounts.entrySet()) {
        long value = count.getValue().get().getCount();
        if (value > 0) {
          partitionsByState.put(count.getKey(), value);
        }
      }
      Map<FileState, Long> filesByState = new EnumMap<>(FileState.class);
      for (Map.Entry<FileState, ApiFuture<AggregateQuerySnapshot>> count : fileCounts.entrySet()) {
        long value = count.getValue().get().getCount();
        if (value > 0) {
          filesByState.put(count.getKey(), value);
        }
      }
      List<BatchRecord> inFlight =
          batchList(LedgerQuery.BATCHES_IN_STATES_BY_CREATED_AT.on(store.batches, table, IN_FLIGHT));
      Optional<BatchRecord> lastCommitted = batchList(LedgerQuery.BATCHES_IN_STATE_BY_COMMITTED_AT
          .on(store.batches, table, BatchState.COMMITTED.code()).limit(1)).stream().findFirst();
      Optional<Instant> oldestReadyAt = LedgerQuery.PARTITIONS_IN_STATE_BY_READY_AT
          .on(store.partitions, table, PartitionState.READY.code()).limit(1).get().get().getDocuments().stream()
          .findFirst().map(doc -> FirestoreDocuments.partition(data(doc))).flatMap(PartitionRecord::readyAt);
      List<PartitionRecord> failedPartitions = records(LedgerQuery.PARTITIONS_IN_STATE
          .on(store.partitions, table, PartitionState.FAILED.code()), FirestoreDocuments::partition);
      List<BatchRecord> failedBatches = batchList(LedgerQuery.BATCHES_IN_STATE_BY_UPDATED_AT
          .on(store.batches, table, BatchState.FAILED.code()).limit(FAILED_BATCHES_SHOWN));
      return new TableStatus(table, Collections.unmodifiableMap(partitionsByState),
          Collections.unmodifiableMap(filesByState), inFlight, lastCommitted, oldestReadyAt, failedPartitions,
          failedBatches);
    });
  }

  @Override
  public List<BatchRecord> batchesSettledSince(String table, Instant since) {
    return read("batchesSettledSince", store.batches.getPath() + " (table " + table + " since " + since + ")",
        () -> {
          List<BatchRecord> found = new ArrayList<>();
          for (BatchState state : List.of(BatchState.COMMITTED, BatchState.FAILED)) {
            found.addAll(batchList(LedgerQuery.BATCHES_IN_STATE_UPDATED_SINCE.on(store.batches, table, state.code(),
                FirestoreDocuments.timestamp(since.toEpochMilli()))));
          }
          found.sort(Comparator.comparing(BatchRecord::updatedAt).thenComparing(BatchRecord::batchId).reversed());
          return found;
        });
  }

  /** {@code StoreReads#expiredLeases}. */
  public List<BatchRecord> expiredLeases(Instant now) {
    return read("findExpiredLeases", store.batches.getPath(), () -> batchList(LedgerQuery.EXPIRED_LEASES
        .on(store.batches, IN_FLIGHT, FirestoreDocuments.timestamp(now.toEpochMilli()))));
  }

  @Override
  public List<PartitionRecord> partitions(String table) {
    return read("partitions", store.partitions.getPath() + " (table " + table + ")", () -> {
      List<PartitionRecord> found = new ArrayList<>(
          records(LedgerQuery.PARTITIONS_OF_TABLE.on(store.partitions, table), FirestoreDocuments::partition));
      found.sort(Comparator.comparing(PartitionRecord::partition));
      return found;
    });
  }

  @Override
  public List<FileRecord> filesOfPartition(String table, String partition) {
    return read("filesOfPartition", store.files.getPath() + " (" + table + "/" + partition + ")", () -> {
      List<FileRecord> found = new ArrayList<>(
          records(LedgerQuery.FILES_OF_PARTITION.on(store.files, table, partition), FirestoreDocuments::file));
      found.sort(Comparator.comparing(FileRecord::uri).thenComparingLong(FileRecord::generation));
      return found;
    });
  }

  @Override
  public List<TableChange> changes(String table) {
    return read("changes", store.changes.getPath() + " (table " + table + ")", () -> {
      List<TableChange> found = new ArrayList<>(
          records(LedgerQuery.CHANGES_OF_TABLE.on(store.changes, table), FirestoreDocuments::change));
      found.sort(Comparator.comparing(TableChange::createdAt).thenComparing(TableChange::changeId));
      return found;
    });
  }

  @Override
  public List<QuarantinedMessage> quarantinedMessages() {
    return read("quarantinedMessages", store.quarantine.getPath(), () -> {
      // Rare and operator-facing: read whole and sorted here, so receivedAt needs no index.
      List<QuarantinedMessage> messages = new ArrayList<>(records(store.quarantine, FirestoreDocuments::quarantined));
      messages.sort(Comparator.comparing(QuarantinedMessage::receivedAt).thenComparing(QuarantinedMessage::messageId));
      return messages;
    });
  }

  @Override
  public List<FileRecord> quarantinedFiles() {
    return read("quarantinedFiles", store.files.getPath(), () -> {
      List<FileRecord> found = new ArrayList<>(records(
          LedgerQuery.FILES_IN_STATE.on(store.files, FileState.QUARANTINED.code()), FirestoreDocuments::file));
      found.sort(Comparator.comparing(FileRecord::table).thenComparing(FileRecord::partition)
          .thenComparing(FileRecord::uri).thenComparingLong(FileRecord::generation));
      return found;
    });
  }

  @Override
  public List<FileRecord> filesToClean(String table, Instant ingestedBefore, int limit) {
    return read("filesToClean", store.files.getPath() + " (table " + table + " loaded before " + ingestedBefore + ")",
        () -> records(limited(LedgerQuery.FILES_TO_CLEAN.on(store.files, table, FileState.INGESTED.code(),
            LedgerSchema.LANDING_PRESENT, FirestoreDocuments.timestamp(ingestedBefore.toEpochMilli())), limit),
            FirestoreDocuments::file));
  }

  @Override
  public List<FileRecord> filesBeingCleaned(String table, int limit) {
    return read("filesBeingCleaned", store.files.getPath() + " (table " + table + ")",
        () -> records(limited(LedgerQuery.FILES_BEING_CLEANED.on(store.files, table, true), limit),
            FirestoreDocuments::file));
  }

  /** At most {@code limit} documents; a negative limit ({@code StoreReads.ALL}) is every one. */
  static Query limited(Query query, int limit) {
    return limit < 0 ? query : query.limit(limit);
  }

  @Override
  public List<FileRecord> filesNamed(String bucket, String name) {
    return read("filesNamed", store.files.getPath() + " (" + bucket + "/" + name + ")",
        () -> records(LedgerQuery.FILES_NAMED.on(store.files, bucket, name), FirestoreDocuments::file));
  }

  @Override
  public List<BatchRecord> batches(String table) {
    return read("batches", store.batches.getPath() + " (table " + table + ")", () -> {
      List<BatchRecord> found = new ArrayList<>(batchList(LedgerQuery.BATCHES_OF_TABLE.on(store.batches, table)));
      found.sort(Comparator.comparing(BatchRecord::createdAt).thenComparing(BatchRecord::batchId));
      return found;
    });
  }

  @Override
  public List<BatchRecord> batchesOfPartition(String table, String partition) {
    return read("batchesOfPartition", store.batches.getPath() + " (" + table + "/" + partition + ")", () -> {
      List<BatchRecord> found = new ArrayList<>();
      for (BatchRecord batch : batchList(LedgerQuery.BATCHES_OF_TABLE.on(store.batches, table))) {
        if (batch.partitions().contains(partition)) {
          found.add(batch);
        }
      }
      found.sort(Comparator.comparing(BatchRecord::createdAt).thenComparing(BatchRecord::batchId));
      return found;
    });
  }

  /** Runs a listing's reads; a failed one is carried out to the store's retries as it was. */
  private static <T> T read(String operation, String path, FirestoreRetry.Work<T> work) {
    try {
      return work.run();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new FirestoreTransaction.Failed(e);
    }
  }
}
