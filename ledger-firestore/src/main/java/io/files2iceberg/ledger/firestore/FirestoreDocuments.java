package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.OUTCOME;
import static io.files2iceberg.core.ledger.LedgerSchema.ACTOR;
import static io.files2iceberg.core.ledger.LedgerSchema.HOLD;
import static io.files2iceberg.core.ledger.LedgerSchema.UNDONE_CHANGES;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.TO_SNAPSHOT;
import static io.files2iceberg.core.ledger.LedgerSchema.FROM_SNAPSHOT;
import static io.files2iceberg.core.ledger.LedgerSchema.KIND;
import static io.files2iceberg.core.ledger.LedgerSchema.CHANGE_ID;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.TableChange;
import static io.files2iceberg.core.ledger.LedgerSchema.ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_KEY;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_POSITION;
import static io.files2iceberg.core.ledger.LedgerSchema.BUCKET;
import static io.files2iceberg.core.ledger.LedgerSchema.COMMITTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_CLASS;
import static io.files2iceberg.core.ledger.LedgerSchema.ERROR_FILE;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_IDS;
import static io.files2iceberg.core.ledger.LedgerSchema.EVENT_TIME;
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
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS_FIELD;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITION_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.PREFIX;
import static io.files2iceberg.core.ledger.LedgerSchema.QUARANTINE_REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RAW_PAYLOAD;
import static io.files2iceberg.core.ledger.LedgerSchema.READY_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.REASON;
import static io.files2iceberg.core.ledger.LedgerSchema.RECEIVED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.RECORDED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_READ;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_REJECTED;
import static io.files2iceberg.core.ledger.LedgerSchema.ROWS_RESCUED;
import static io.files2iceberg.core.ledger.LedgerSchema.COLUMNS_IGNORED;
import static io.files2iceberg.core.ledger.LedgerSchema.EXPECTATIONS_FAILED;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLED_FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING_MAX_ATTEMPTS;
import static io.files2iceberg.core.ledger.LedgerSchema.SIZE;
import static io.files2iceberg.core.ledger.LedgerSchema.SNAPSHOT_ID;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.URI;

import com.google.cloud.Timestamp;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Documents of the Firestore ledger to contract records and back. Field names come from {@code
 * LedgerSchema}; states are their codes; times are Firestore timestamps to the millisecond (the
 * clock's precision in both ledgers); integers are 64-bit; lists are arrays; metrics a map keyed by
 * {@link BatchMetrics.Field} ({@link BatchMetrics#toMap}, as the SQLite ledger's JSON). An absent
 * optional value is a missing field, or null once it had a value.
 *
 * <p>Documents are handled as whole maps: a transaction reads a document, changes its map and
 * writes it back whole, so the record a call returns is the one a later read returns.
 */
final class FirestoreDocuments {
  private FirestoreDocuments() {}

  // --- to records ------------------------------------------------------------------------------

  static FileRecord file(Map<String, Object> doc) {
    return new FileRecord(
        string(doc, FILE_ID),
        string(doc, TABLE),
        string(doc, PARTITION),
        string(doc, BUCKET),
        string(doc, NAME),
        number(doc, GENERATION),
        string(doc, URI),
        number(doc, SIZE),
        string(doc, EVENT_ID),
        instant(doc, EVENT_TIME),
        optionalNumber(doc, OVERWROTE_GENERATION),
        FileState.fromCode(string(doc, STATE)),
        optionalString(doc, BATCH_ID),
        optionalString(doc, QUARANTINE_REASON),
        instant(doc, RECORDED_AT),
        optionalNumber(doc, SNAPSHOT_ID),
        FileRows.fromMap(doc),
        optionalInstant(doc, LedgerSchema.INGESTED_AT),
        LedgerSchema.cleaned(string(doc, FILE_ID), optionalString(doc, LedgerSchema.LANDING).orElse(null),
            optionalString(doc, LedgerSchema.ARCHIVE_URI), optionalNumber(doc, LedgerSchema.ARCHIVE_GENERATION),
            optionalInstant(doc, LedgerSchema.CLEANED_AT), optionalInstant(doc, LedgerSchema.REMOVED_AT)));
  }

  static PartitionRecord partition(Map<String, Object> doc) {
    return new PartitionRecord(
        string(doc, TABLE),
        string(doc, PARTITION),
        optionalString(doc, PREFIX),
        PartitionState.fromCode(string(doc, STATE)),
        Boolean.TRUE.equals(doc.get(MARKER_SEEN)),
        optionalString(doc, BATCH_ID),
        (int) number(doc, ATTEMPTS),
        optionalString(doc, LAST_ERROR),
        optionalInstant(doc, READY_AT),
        instant(doc, UPDATED_AT));
  }

  static BatchRecord batch(Map<String, Object> doc) {
    return new BatchRecord(
        string(doc, BATCH_ID),
        string(doc, TABLE),
        BatchState.fromCode(string(doc, STATE)),
        requiredStrings(doc, PARTITIONS_FIELD),
        requiredStrings(doc, FILE_IDS),
        requiredStrings(doc, EVENT_IDS),
        (int) number(doc, ATTEMPTS),
        (int) launches(doc),
        outcomeUnknown(doc),
        optionalInstant(doc, LEASE_UNTIL),
        optionalNumber(doc, SNAPSHOT_ID),
        Optional.ofNullable(doc.get(METRICS)).map(value -> metrics(cast(value, Map.class, METRICS))),
        optionalString(doc, ERROR),
        optionalString(doc, ERROR_CLASS)
            .map(errorClass -> new FailureCause(errorClass, optionalString(doc, ERROR_FILE))),
        instant(doc, CREATED_AT),
        instant(doc, UPDATED_AT));
  }

  static QuarantinedMessage quarantined(Map<String, Object> doc) {
    return new QuarantinedMessage(
        string(doc, MESSAGE_ID),
        string(doc, REASON),
        string(doc, RAW_PAYLOAD),
        optionalString(doc, OBJECT_URI),
        instant(doc, RECEIVED_AT));
  }

  static TableChange change(Map<String, Object> doc) {
    return new TableChange(
        string(doc, CHANGE_ID),
        string(doc, TABLE),
        TableChange.ChangeKind.fromCode(string(doc, KIND)),
        TableChange.ChangeState.fromCode(string(doc, STATE)),
        optionalNumber(doc, FROM_SNAPSHOT),
        optionalNumber(doc, TO_SNAPSHOT),
        strings(doc, BATCH_IDS),
        strings(doc, UNDONE_CHANGES),
        strings(doc, PARTITIONS_FIELD),
        cast(require(doc, HOLD), Boolean.class, HOLD),
        string(doc, ACTOR),
        optionalString(doc, REASON),
        optionalString(doc, OUTCOME),
        instant(doc, CREATED_AT),
        instant(doc, UPDATED_AT));
  }

  static ChangeEvent event(Map<String, Object> doc) {
    return new ChangeEvent(string(doc, EVENT_ID), string(doc, TABLE), string(doc, LedgerSchema.CHANGE),
        string(doc, LedgerSchema.PAYLOAD), instant(doc, CREATED_AT));
  }

  // --- to documents ----------------------------------------------------------------------------

  /** A change event's document in the outbox. */
  static Map<String, Object> event(ChangeEvent e) {
    Map<String, Object> doc = new HashMap<>();
    doc.put(EVENT_ID, e.eventId());
    doc.put(TABLE, e.table());
    doc.put(LedgerSchema.CHANGE, e.change());
    doc.put(LedgerSchema.PAYLOAD, e.payload());
    doc.put(CREATED_AT, timestamp(e.createdAt()));
    return doc;
  }

  /** An operator's change's document. */
  static Map<String, Object> change(TableChange c) {
    Map<String, Object> doc = new HashMap<>();
    doc.put(CHANGE_ID, c.changeId());
    doc.put(TABLE, c.table());
    doc.put(KIND, c.kind().code());
    doc.put(STATE, c.state().code());
    c.fromSnapshot().ifPresent(id -> doc.put(FROM_SNAPSHOT, id));
    c.toSnapshot().ifPresent(id -> doc.put(TO_SNAPSHOT, id));
    doc.put(BATCH_IDS, c.batchIds());
    doc.put(UNDONE_CHANGES, c.undoneChanges());
    doc.put(PARTITIONS_FIELD, c.partitions());
    doc.put(HOLD, c.hold());
    doc.put(ACTOR, c.actor());
    c.reason().ifPresent(r -> doc.put(REASON, r));
    c.outcome().ifPresent(o -> doc.put(OUTCOME, o));
    doc.put(CREATED_AT, timestamp(c.createdAt()));
    doc.put(UPDATED_AT, timestamp(c.updatedAt()));
    return doc;
  }

  /** A new file's document. */
  static Map<String, Object> file(FileRecord f) {
    Map<String, Object> doc = new HashMap<>();
    doc.put(FILE_ID, f.fileId());
    doc.put(TABLE, f.table());
    doc.put(PARTITION, f.partition());
    doc.put(BUCKET, f.bucket());
    doc.put(NAME, f.name());
    doc.put(GENERATION, f.generation());
    doc.put(URI, f.uri());
    doc.put(SIZE, f.size());
    doc.put(EVENT_ID, f.eventId());
    doc.put(EVENT_TIME, timestamp(f.eventTime()));
    putOrClear(doc, OVERWROTE_GENERATION, f.overwroteGeneration());
    doc.put(RECORDED_AT, timestamp(f.recordedAt()));
    return put(doc, f, null);
  }

  /**
   * Writes what a transition changes of a file into its document: its state, batch (with the
   * batch's key) and reason, and its {@code position} in its batch (null: kept, or cleared with the
   * batch).
   */
  static Map<String, Object> put(Map<String, Object> doc, FileRecord f, Integer position) {
    doc.put(STATE, f.state().code());
    putOrClear(doc, BATCH_ID, f.batchId());
    putOrClear(doc, BATCH_KEY, f.batchId().map(LedgerSchema::batchKey));
    if (f.batchId().isEmpty()) {
      putOrClear(doc, BATCH_POSITION, Optional.empty());
    } else if (position != null) {
      doc.put(BATCH_POSITION, (long) position);
    }
    putOrClear(doc, QUARANTINE_REASON, f.quarantineReason());
    // The load rides on the file's own write (its move to INGESTED): no write of its own.
    putOrClear(doc, SNAPSHOT_ID, f.snapshotId());
    for (String field : List.of(ROWS_READ, ROWS_REJECTED, ROWS_RESCUED, COLUMNS_IGNORED)) {
      putOrClear(doc, field, f.rows().map(rows -> rows.toMap().get(field)));
    }
    // A map of expectation names to counts; absent (cleared) when the file violated none.
    putOrClear(doc, EXPECTATIONS_FAILED, f.rows().map(FileRows::expectationsFailed).filter(failed -> !failed.isEmpty())
        .map(HashMap::new));
    // Landing cleanup. The landing and the pending removal are written on every write, so that
    // cleanup's queries (equalities on them) find every file written since version 10; a document
    // written before has neither, nor a load time, and is never a candidate.
    putOrClear(doc, LedgerSchema.INGESTED_AT, f.ingestedAt().map(FirestoreDocuments::timestamp));
    doc.put(LedgerSchema.LANDING, LedgerSchema.landing(f));
    putOrClear(doc, LedgerSchema.ARCHIVE_URI, f.cleaned().flatMap(CleanedObject::archiveUri));
    putOrClear(doc, LedgerSchema.ARCHIVE_GENERATION, f.cleaned().flatMap(CleanedObject::archiveGeneration));
    putOrClear(doc, LedgerSchema.CLEANED_AT, f.cleaned().map(c -> timestamp(c.cleanedAt())));
    putOrClear(doc, LedgerSchema.REMOVED_AT, f.cleaned().flatMap(CleanedObject::removedAt)
        .map(FirestoreDocuments::timestamp));
    doc.put(LedgerSchema.REMOVAL_PENDING, f.cleaned().filter(c -> c.removedAt().isEmpty()).isPresent());
    return doc;
  }

  /** A partition's document: {@code doc} (the stored one, or empty) with the record's fields. */
  static Map<String, Object> put(Map<String, Object> doc, PartitionRecord p) {
    doc.put(PARTITION_ID, LedgerSchema.partitionId(p.table(), p.partition()));
    doc.put(TABLE, p.table());
    doc.put(PARTITION, p.partition());
    putOrClear(doc, PREFIX, p.prefix());
    doc.put(STATE, p.state().code());
    doc.put(MARKER_SEEN, p.markerSeen());
    putOrClear(doc, BATCH_ID, p.batchId());
    doc.put(ATTEMPTS, (long) p.attempts());
    putOrClear(doc, LAST_ERROR, p.lastError());
    putOrClear(doc, READY_AT, p.readyAt().map(FirestoreDocuments::timestamp));
    doc.put(UPDATED_AT, timestamp(p.updatedAt()));
    return doc;
  }

  /**
   * A batch's document: {@code doc} (the stored one, or empty; the settling fields it has stay)
   * with the record's fields; its commit time is set once, when it is COMMITTED.
   */
  static Map<String, Object> put(Map<String, Object> doc, BatchRecord b) {
    doc.put(BATCH_ID, b.batchId());
    doc.put(TABLE, b.table());
    doc.put(STATE, b.state().code());
    doc.put(PARTITIONS_FIELD, b.partitions());
    doc.put(FILE_IDS, b.fileIds());
    doc.put(EVENT_IDS, b.eventIds());
    doc.put(ATTEMPTS, (long) b.attempts());
    doc.put(LAUNCHES, (long) b.launches());
    doc.put(OUTCOME_UNKNOWN, b.outcomeUnknown());
    putOrClear(doc, LEASE_UNTIL, b.leaseUntil().map(FirestoreDocuments::timestamp));
    putOrClear(doc, SNAPSHOT_ID, b.snapshotId());
    putOrClear(doc, METRICS, b.metrics().map(FirestoreDocuments::metrics));
    putOrClear(doc, ERROR, b.error());
    putOrClear(doc, ERROR_CLASS, b.cause().map(FailureCause::errorClass));
    putOrClear(doc, ERROR_FILE, b.cause().flatMap(FailureCause::file));
    doc.put(CREATED_AT, timestamp(b.createdAt()));
    doc.put(UPDATED_AT, timestamp(b.updatedAt()));
    if (b.state() == BatchState.COMMITTED && doc.get(COMMITTED_AT) == null) {
      doc.put(COMMITTED_AT, timestamp(b.updatedAt()));
    }
    return doc;
  }

  static Timestamp timestamp(long epochMillis) {
    return Timestamp.ofTimeMicroseconds(Math.multiplyExact(epochMillis, 1000L));
  }

  static Timestamp timestamp(Instant instant) {
    return timestamp(instant.toEpochMilli());
  }

  static Map<String, Object> metrics(BatchMetrics metrics) {
    return new LinkedHashMap<>(metrics.toMap());
  }

  /**
   * Puts the value; an absent value clears a field the document has (to null: documents are
   * written whole, and a field missing from the new map must not survive on a store that merges)
   * and adds none.
   */
  static void putOrClear(Map<String, Object> doc, String field, Optional<?> value) {
    if (value.isPresent()) {
      doc.put(field, value.get());
    } else if (doc.containsKey(field)) {
      doc.put(field, null);
    }
  }

  /**
   * An estimate of the stored size of a document (Firestore's rule: the document name, then per
   * field its name plus 1 and the value: strings their UTF-8 bytes plus 1, numbers, timestamps and
   * booleans 8, arrays and maps the sum of their values), to refuse one that would exceed 1 MiB
   * before the write does.
   */
  static long storedSize(String documentPath, Map<String, Object> doc) {
    long size = utf8(documentPath) + 1 + 16;
    for (Map.Entry<String, Object> field : doc.entrySet()) {
      size += utf8(field.getKey()) + 1 + valueSize(field.getValue());
    }
    return size;
  }

  private static long valueSize(Object value) {
    if (value instanceof String text) {
      return utf8(text) + 1;
    }
    if (value instanceof List<?> list) {
      return list.stream().mapToLong(FirestoreDocuments::valueSize).sum();
    }
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream()
          .mapToLong(entry -> utf8(String.valueOf(entry.getKey())) + 1 + valueSize(entry.getValue()))
          .sum();
    }
    return 8;
  }

  private static long utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  // --- field access ----------------------------------------------------------------------------

  @SuppressWarnings("unchecked")
  private static BatchMetrics metrics(Map<?, ?> map) {
    try {
      return BatchMetrics.fromMap((Map<String, ?>) map);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("Stored metrics are not readable: " + map, e);
    }
  }

  private static String string(Map<String, Object> doc, String field) {
    return cast(require(doc, field), String.class, field);
  }

  private static Optional<String> optionalString(Map<String, Object> doc, String field) {
    return Optional.ofNullable(doc.get(field)).map(value -> cast(value, String.class, field));
  }

  /** {@link io.files2iceberg.core.ledger.LedgerSchema#SETTLED_FILES}: 0 when absent. */
  static long settledFiles(Map<String, Object> batch) {
    return optionalNumber(batch, SETTLED_FILES).orElse(0L);
  }

  /** {@link io.files2iceberg.core.ledger.LedgerSchema#SETTLING_MAX_ATTEMPTS}: 1 when absent. */
  static long settlingMaxAttempts(Map<String, Object> batch) {
    return optionalNumber(batch, SETTLING_MAX_ATTEMPTS).orElse(1L);
  }

  /** What one string of a list adds to its document's {@link #storedSize}. */
  static long listedBytes(String value) {
    return value == null ? 0 : utf8(value) + 1;
  }

  /**
   * Whether a batch gave up with an unknown outcome; a document written before the flag was stored
   * has it when its error says so ({@link LedgerSchema#legacyOutcomeUnknown}).
   */
  static boolean outcomeUnknown(Map<String, Object> batch) {
    Object flag = batch.get(OUTCOME_UNKNOWN);
    if (flag == null) {
      return LedgerSchema.legacyOutcomeUnknown(optionalString(batch, ERROR).orElse(null));
    }
    return cast(flag, Boolean.class, OUTCOME_UNKNOWN);
  }

  /** A batch's launches; a document written before they were counted has as many as attempts. */
  static long launches(Map<String, Object> batch) {
    return optionalNumber(batch, LAUNCHES).orElseGet(() -> number(batch, ATTEMPTS));
  }

  private static long number(Map<String, Object> doc, String field) {
    return cast(require(doc, field), Number.class, field).longValue();
  }

  private static Optional<Long> optionalNumber(Map<String, Object> doc, String field) {
    return Optional.ofNullable(doc.get(field)).map(value -> cast(value, Number.class, field).longValue());
  }

  private static Instant instant(Map<String, Object> doc, String field) {
    return toInstant(cast(require(doc, field), Timestamp.class, field));
  }

  private static Optional<Instant> optionalInstant(Map<String, Object> doc, String field) {
    return Optional.ofNullable(doc.get(field)).map(value -> toInstant(cast(value, Timestamp.class, field)));
  }

  /** A list of strings; empty when the field is absent. */
  static List<String> strings(Map<String, Object> doc, String field) {
    return doc.get(field) == null ? List.of() : requiredStrings(doc, field);
  }

  private static List<String> requiredStrings(Map<String, Object> doc, String field) {
    List<?> values = cast(require(doc, field), List.class, field);
    List<String> strings = new ArrayList<>(values.size());
    for (Object value : values) {
      strings.add(cast(value, String.class, field));
    }
    return strings;
  }

  private static Instant toInstant(Timestamp timestamp) {
    return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
  }

  private static Object require(Map<String, Object> doc, String field) {
    Object value = doc.get(field);
    if (value == null) {
      throw new IllegalStateException("Ledger document has no field '" + field + "': " + doc.keySet());
    }
    return value;
  }

  private static <T> T cast(Object value, Class<T> type, String field) {
    if (!type.isInstance(value)) {
      throw new IllegalStateException("Ledger field '" + field + "' holds a " + value.getClass().getSimpleName()
          + ", expected " + type.getSimpleName());
    }
    return type.cast(value);
  }
}
