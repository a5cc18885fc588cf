package io.files2iceberg.ledger.firestore;

import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.TableChange;
import static io.files2iceberg.core.ledger.LedgerSchema.ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_CLASS;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_FILE;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.FILE_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.LAUNCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.LEASE_UNTIL;
import static io.files2iceberg.core.ledger.LedgerSchema.MESSAGE_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.METRICS;
import static io.files2iceberg.core.ledger.LedgerSchema.OBJECT_URI;
import static io.files2iceberg.core.ledger.LedgerSchema.OUTCOME_UNKNOWN;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS_FIELD;
import static io.files2iceberg.core.ledger.LedgerSchema.RAW_PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RECEIVED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLED_FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING_MAX_ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.SNAPSHOT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.SUPERSEDING;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.MAX_DOCUMENT_BYTES;
import static io.files2iceberg.ledger.firestore.FirestoreLedger.MAX_RAW_PAYLOAD_CHARS;
import static io.files2iceberg.ledger.firestore.FirestoreStore.data;

import com.google.api.core.ApiFuture;
import com.google.cloud.firestore.DocumentReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.FieldMask;
import com.google.cloud.firestore.FieldValue;
import com.google.cloud.firestore.Query;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import com.google.cloud.firestore.QuerySnapshot;
import com.google.cloud.firestore.Transaction;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.store.Settling;
import io.files2iceberg.core.ledger.store.StoreTransaction;
import io.files2iceberg.core.ledger.store.StoredBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Firestore transaction as the ledger service sees it (or, without one, reads outside any):
 * documents read into records, records written over the documents they were read from (so fields
 * the record does not hold, a batch's settling marks, stay), new ones created. Firestore reruns
 * the transaction when a document it read changed before its commit.
 */
final class FirestoreTransaction extends FirestoreListings implements StoreTransaction {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreTransaction.class);
  private static final List<String> SETTLING_CODES =
      List.of(FileState.CLAIMED.code(), FileState.INGESTED.code(), FileState.RECORDED.code());
  /** A batch document without its file and event ids (10,000 ids are most of its megabyte). */
  private static final FieldMask WITHOUT_LISTS = FieldMask.of(BATCH_ID, TABLE, STATE, PARTITIONS_FIELD, ATTEMPTS,
      LAUNCHES, OUTCOME_UNKNOWN, LEASE_UNTIL, SNAPSHOT_ID, METRICS, ERROR, ERROR_CLASS, ERROR_FILE, CREATED_AT,
      UPDATED_AT, SETTLING, SETTLED_FILES, SETTLING_MAX_ATTEMPTS, SUPERSEDING);
  private static final List<String> SETTLING_FIELDS = List.of(SETTLING, SETTLED_FILES, SETTLING_MAX_ATTEMPTS, SUPERSEDING);

  /** A document read failed: carried out of the service's work to {@link FirestoreRetry} as it was. */
  static final class Failed extends RuntimeException {
    Failed(Exception cause) {
      super(cause);
    }
  }

  private final FirestoreStore store;
  private final Transaction t;
  /** The documents this transaction read, by path (absent ones as empty). */
  private final Map<String, Optional<Map<String, Object>>> read = new HashMap<>();

  FirestoreTransaction(FirestoreStore store, Transaction t) {
    super(store);
    this.store = store;
    this.t = t;
  }

  // --- reads -------------------------------------------------------------------------------------

  private static <T> T get(ApiFuture<T> future) {
    try {
      return future.get();
    } catch (ExecutionException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new Failed(e);
    }
  }

  /**
   * The documents that exist, in the order of {@code refs}: those this transaction read already
   * from what it read, the others in one call per commit's worth.
   */
  private List<Map<String, Object>> documents(List<DocumentReference> refs) {
    List<DocumentReference> unread = refs.stream().filter(ref -> !read.containsKey(ref.getPath())).distinct().toList();
    List<ApiFuture<List<DocumentSnapshot>>> reads = new ArrayList<>();
    for (int from = 0; from < unread.size(); from += FirestoreLedger.MAX_WRITES_PER_COMMIT) {
      DocumentReference[] chunk = unread.subList(from, Math.min(unread.size(), from + FirestoreLedger.MAX_WRITES_PER_COMMIT))
          .toArray(DocumentReference[]::new);
      reads.add(t == null ? store.db.getAll(chunk) : t.getAll(chunk));
    }
    for (ApiFuture<List<DocumentSnapshot>> future : reads) {
      for (DocumentSnapshot snapshot : get(future)) {
        read.put(snapshot.getReference().getPath(), FirestoreStore.optional(snapshot));
      }
    }
    return refs.stream().flatMap(ref -> read.get(ref.getPath()).stream()).map(HashMap::new)
        .map(doc -> (Map<String, Object>) doc).toList();
  }

  @Override
  public void readAhead(List<String> fileIds, Map<String, List<String>> partitionsByTable) {
    List<DocumentReference> refs = new ArrayList<>(fileIds.stream().map(store.files::document).toList());
    partitionsByTable.forEach((table, tokens) -> tokens.forEach(token -> refs.add(store.partitionRef(table, token))));
    documents(refs);
  }

  private Optional<Map<String, Object>> document(DocumentReference ref) {
    List<Map<String, Object>> found = documents(List.of(ref));
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  private List<Map<String, Object>> query(Query query) {
    QuerySnapshot snapshot = get(t == null ? query.get() : t.get(query));
    List<Map<String, Object>> found = new ArrayList<>();
    for (QueryDocumentSnapshot doc : snapshot.getDocuments()) {
      read.put(doc.getReference().getPath(), Optional.of(data(doc)));
      found.add(data(doc));
    }
    return found;
  }

  @Override
  public Optional<FileRecord> file(String fileId) {
    return document(store.files.document(fileId)).map(FirestoreDocuments::file);
  }

  @Override
  public List<FileRecord> files(List<String> fileIds) {
    return documents(fileIds.stream().map(store.files::document).toList()).stream()
        .map(FirestoreDocuments::file).toList();
  }

  @Override
  public Optional<PartitionRecord> partition(String table, String partition) {
    return document(store.partitionRef(table, partition)).map(FirestoreDocuments::partition);
  }

  @Override
  public List<PartitionRecord> partitions(String table, List<String> partitions) {
    return documents(partitions.stream().map(token -> store.partitionRef(table, token)).toList()).stream()
        .map(FirestoreDocuments::partition).toList();
  }

  @Override
  public Optional<StoredBatch> batch(String batchId) {
    return document(store.batches.document(batchId)).map(FirestoreTransaction::storedBatch);
  }

  /** Read through a field mask, and not kept as the document to write over: it lacks the lists. */
  @Override
  public Optional<StoredBatch> batchWithoutLists(String batchId) {
    DocumentReference[] ref = {store.batches.document(batchId)};
    DocumentSnapshot snapshot = get(t == null ? store.db.getAll(ref, WITHOUT_LISTS) : t.getAll(ref, WITHOUT_LISTS))
        .get(0);
    return FirestoreStore.optional(snapshot).map(doc -> {
      doc.put(FILE_IDS, List.of());
      doc.put(EVENT_IDS, List.of());
      return storedBatch(doc);
    });
  }

  private static StoredBatch storedBatch(Map<String, Object> doc) {
    return new StoredBatch(FirestoreDocuments.batch(doc),
        Optional.ofNullable((String) doc.get(SETTLING)).map(code -> new Settling(FileState.fromCode(code),
            (int) FirestoreDocuments.settledFiles(doc), (int) FirestoreDocuments.settlingMaxAttempts(doc),
            FirestoreDocuments.strings(doc, SUPERSEDING))));
  }

  @Override
  public List<PartitionRecord> partitionsIn(String table, PartitionState state, int limit) {
    return query(limited(LedgerQuery.PARTITIONS_IN_STATE.on(store.partitions, table, state.code()), limit)).stream()
        .map(FirestoreDocuments::partition).toList();
  }

  @Override
  public List<FileRecord> filesIn(String table, String partition, FileState state, int limit) {
    return query(limited(LedgerQuery.PENDING_FILES.on(store.files, table, partition, state.code()), limit)).stream()
        .map(FirestoreDocuments::file).toList();
  }

  @Override
  public boolean hasBatchIn(String table, Set<BatchState> states) {
    return !query(LedgerQuery.BATCHES_IN_STATES.on(store.batches, table, states.stream().map(BatchState::code)
        .sorted().toList()).limit(1)).isEmpty();
  }

  @Override
  public List<String> batchesOwing(String table) {
    return query(LedgerQuery.BATCHES_SETTLING.on(store.batches, table, SETTLING_CODES)).stream()
        .map(doc -> (String) doc.get(LedgerSchema.BATCH_ID)).toList();
  }

  @Override
  public List<BatchRecord> batchesIn(String table, BatchState state) {
    LedgerQuery shape = state == BatchState.COMMITTED ? LedgerQuery.BATCHES_IN_STATE_BY_COMMITTED_AT
        : LedgerQuery.BATCHES_IN_STATE_BY_UPDATED_AT;
    return query(shape.on(store.batches, table, state.code())).stream().map(FirestoreDocuments::batch).toList();
  }

  @Override
  public Optional<QuarantinedMessage> message(String messageId) {
    return document(messageRef(messageId)).map(FirestoreDocuments::quarantined);
  }

  @Override
  public Optional<TableChange> change(String changeId) {
    return document(store.changes.document(changeId)).map(FirestoreDocuments::change);
  }

  private DocumentReference messageRef(String messageId) {
    return store.quarantine.document(LedgerSchema.quarantineId(messageId));
  }

  // --- writes ------------------------------------------------------------------------------------

  /** The document as read in this transaction (a copy to write over), or empty when it was not there. */
  private Optional<Map<String, Object>> stored(DocumentReference ref) {
    return read.getOrDefault(ref.getPath(), Optional.empty()).map(HashMap::new);
  }

  /** Writes {@code doc} over the stored document, or creates it when none was read. */
  private void write(DocumentReference ref, Map<String, Object> doc) {
    if (read.getOrDefault(ref.getPath(), Optional.empty()).isPresent()) {
      t.set(ref, doc);
    } else {
      t.create(ref, doc);
    }
  }

  @Override
  public FileRecord createFile(FileRecord file) {
    Map<String, Object> doc = FirestoreDocuments.file(file);
    t.create(store.files.document(file.fileId()), doc);
    return FirestoreDocuments.file(doc);
  }

  @Override
  public FileRecord putFile(FileRecord file) {
    return putFile(file, null);
  }

  @Override
  public FileRecord putFile(FileRecord file, int position) {
    return putFile(file, Integer.valueOf(position));
  }

  private FileRecord putFile(FileRecord file, Integer position) {
    DocumentReference ref = store.files.document(file.fileId());
    Map<String, Object> doc = FirestoreDocuments.put(stored(ref).orElseThrow(() -> new IllegalStateException(
        "File " + ref.getPath() + " was written without being read first")), file, position);
    t.set(ref, doc);
    return FirestoreDocuments.file(doc);
  }

  @Override
  public PartitionRecord putPartition(PartitionRecord partition) {
    DocumentReference ref = store.partitionRef(partition);
    Map<String, Object> doc = FirestoreDocuments.put(stored(ref).orElseGet(HashMap::new), partition);
    write(ref, doc);
    return FirestoreDocuments.partition(doc);
  }

  @Override
  public BatchRecord putBatch(BatchRecord batch) {
    return putBatch(batch, null);
  }

  @Override
  public BatchRecord putBatch(BatchRecord batch, Optional<Settling> settling) {
    DocumentReference ref = store.batches.document(batch.batchId());
    Map<String, Object> doc = FirestoreDocuments.put(stored(ref).orElseGet(HashMap::new), batch);
    if (settling != null) { // null: what the stored document owes stays
      SETTLING_FIELDS.forEach(doc::remove);
      settling.ifPresent(owed -> doc.putAll(settlingFields(owed)));
    }
    long size = FirestoreDocuments.storedSize(ref.getPath(), doc);
    if (size > MAX_DOCUMENT_BYTES) {
      throw new IllegalStateException("Cannot write batch " + batch.batchId() + " of table " + batch.table()
          + " (partitions " + batch.partitions() + "): its document " + ref.getPath() + " would hold " + size
          + " bytes (" + batch.fileIds().size() + " file and event ids), over Firestore's limit of 1 MiB per"
          + " document; lower max-batch-size, or, for ingestion-type last (which loads the newest partition"
          + " whole), land the partition in fewer files");
    }
    write(ref, doc);
    return FirestoreDocuments.batch(doc);
  }

  private static Map<String, Object> settlingFields(Settling owed) {
    Map<String, Object> fields = new HashMap<>();
    fields.put(SETTLING, owed.target().code());
    fields.put(SETTLED_FILES, (long) owed.settledFiles());
    if (owed.maxAttempts() > 0) {
      fields.put(SETTLING_MAX_ATTEMPTS, (long) owed.maxAttempts());
    }
    if (!owed.superseding().isEmpty()) {
      fields.put(SUPERSEDING, owed.superseding());
    }
    return fields;
  }

  @Override
  public void putSettling(String batchId, Optional<Settling> settling) {
    Map<String, Object> fields = new HashMap<>();
    SETTLING_FIELDS.forEach(field -> fields.put(field, FieldValue.delete()));
    settling.ifPresent(owed -> fields.putAll(settlingFields(owed)));
    t.update(store.batches.document(batchId), fields);
  }

  @Override
  public void deleteBatch(String batchId) {
    t.delete(store.batches.document(batchId));
  }

  /** Its payload cut to {@value FirestoreLedger#MAX_RAW_PAYLOAD_CHARS} characters to fit one document. */
  @Override
  public void putMessage(QuarantinedMessage message) {
    String payload = message.rawPayload();
    if (payload.length() > MAX_RAW_PAYLOAD_CHARS) {
      LOG.warn("Quarantined message {}: keeping the first {} of its {} characters",
          message.messageId(), MAX_RAW_PAYLOAD_CHARS, payload.length());
      payload = payload.substring(0, MAX_RAW_PAYLOAD_CHARS);
    }
    Map<String, Object> doc = new HashMap<>();
    doc.put(MESSAGE_ID, message.messageId());
    doc.put(REASON, message.reason());
    doc.put(RAW_PAYLOAD, payload);
    FirestoreDocuments.putOrClear(doc, OBJECT_URI, message.objectUri());
    doc.put(RECEIVED_AT, FirestoreDocuments.timestamp(message.receivedAt()));
    t.create(messageRef(message.messageId()), doc);
  }

  @Override
  public List<ChangeEvent> pendingEvents(int limit) {
    return query(limited(LedgerQuery.PENDING_EVENTS.on(store.outbox), limit)).stream()
        .map(FirestoreDocuments::event).toList();
  }

  @Override
  public void putEvent(ChangeEvent event) {
    t.set(store.outbox.document(event.eventId()), FirestoreDocuments.event(event));
  }

  @Override
  public void deleteEvent(String eventId) {
    t.delete(store.outbox.document(eventId));
  }

  @Override
  public TableChange putChange(TableChange change) {
    t.set(store.changes.document(change.changeId()), FirestoreDocuments.change(change));
    return change;
  }

  @Override
  public void deleteMessage(String messageId) {
    t.delete(messageRef(messageId));
  }
}
