package io.files2iceberg.core.ledger;

import io.files2iceberg.core.Sha256;
import java.time.Instant;
import java.util.Optional;

/**
 * The ledger's document schema, in one place for every implementation: collection (table) names,
 * field (column) names and document ids. State codes live on the state enums.
 *
 * <p>Document ids are derived from identity, never sequential: a file is the hash of
 * {@code bucket/name#generation} (so a redelivered notification lands on the same document and an
 * overwrite with a new generation on a new one); a partition is the hash of
 * {@code table|partition}.
 */
public final class LedgerSchema {
  private LedgerSchema() {}

  /** Bumped on every incompatible change of names or encodings below. */
  public static final int VERSION = 10;

  public static final String FILES = "files";
  public static final String PARTITIONS = "partitions";
  public static final String BATCHES = "batches";
  public static final String QUARANTINE = "quarantine";
  /** Operators' changes ({@link TableChange}): rollbacks and dropped partitions. Since version 8. */
  public static final String CHANGES = "changes";
  /** Change events still to publish ({@link ChangeEvent}), by event id. Since version 9. */
  public static final String OUTBOX = "outbox";
  /** Health checks' write probe: nothing reads it. */
  public static final String PROBE = "probe";

  // files
  public static final String FILE_ID = "fileId";
  public static final String TABLE = "table";
  public static final String PARTITION = "partition";
  public static final String BUCKET = "bucket";
  public static final String NAME = "name";
  public static final String GENERATION = "generation";
  public static final String URI = "uri";
  public static final String SIZE = "size";
  public static final String EVENT_ID = "eventId";
  public static final String EVENT_TIME = "eventTime";
  public static final String OVERWROTE_GENERATION = "overwroteGeneration";
  public static final String STATE = "state";
  public static final String BATCH_ID = "batchId";
  /** The file's index in its batch's claim order, so a batch's files read back in that order. */
  public static final String BATCH_POSITION = "batchPosition";
  /**
   * Firestore: {@link #batchKey} of the file's batch, the field a batch's files are found by once
   * the batch is pruned. Batch ids grow with time, and an index on a field that only grows in the
   * files collection (the hot one) would take every claim's writes at one end; the key spreads them.
   */
  public static final String BATCH_KEY = "batchKey";
  public static final String QUARANTINE_REASON = "quarantineReason";
  public static final String RECORDED_AT = "recordedAt";
  /*
   * A file's load, written with its move to INGESTED (the same write: no document of its own):
   * the snapshot of its batch ({@link #SNAPSHOT_ID}, also a batches field) and {@link FileRows}.
   * Absent on a file recorded before version 4, or loaded without the job's per-file counts.
   */
  /** {@link FileRows#read}. */
  public static final String ROWS_READ = "rowsRead";
  /** {@link FileRows#rejected}. */
  public static final String ROWS_REJECTED = "rowsRejected";
  /** {@link FileRows#rescued}. */
  public static final String ROWS_RESCUED = "rowsRescued";
  /** {@link FileRows#ignoredColumns}; absent on a file loaded before version 6 (read as 0). */
  public static final String COLUMNS_IGNORED = "columnsIgnored";
  /**
   * {@link FileRows#expectationsFailed}: an object of expectation names to counts (SQLite: its JSON
   * text); absent on a file loaded before version 7, or that violated no expectation.
   */
  public static final String EXPECTATIONS_FAILED = "expectationsFailed";

  /*
   * Landing cleanup ({@link CleanedObject}), since version 10. A file recorded or loaded before has
   * no load time, and so is never cleaned.
   */
  /** {@link FileRecord#ingestedAt}: when the file's batch committed; absent until then. */
  public static final String INGESTED_AT = "ingestedAt";
  /**
   * Where the file's object is: {@link #LANDING_PRESENT} where it landed, else the {@link
   * CleanedObject.Action} code ({@code archived}, {@code deleted}). Written on every file write, so
   * that a store that cannot query a missing field (Firestore) finds the files cleanup may take.
   */
  public static final String LANDING = "landing";
  /** {@link #LANDING} of a file whose object cleanup has not touched. */
  public static final String LANDING_PRESENT = "present";
  /** {@link CleanedObject#archiveUri}. */
  public static final String ARCHIVE_URI = "archiveUri";
  /** {@link CleanedObject#archiveGeneration}. */
  public static final String ARCHIVE_GENERATION = "archiveGeneration";
  /** {@link CleanedObject#cleanedAt}. */
  public static final String CLEANED_AT = "cleanedAt";
  /** {@link CleanedObject#removedAt}. */
  public static final String REMOVED_AT = "removedAt";
  /**
   * Firestore: whether cleanup decided on the file and has not removed its object yet ({@link
   * CleanedObject#removedAt} empty), written on every file write: the field a resumed cleanup finds
   * such files by (a query cannot ask for a missing or null {@link #REMOVED_AT} with an order).
   */
  public static final String REMOVAL_PENDING = "removalPending";

  /**
   * A file's {@link CleanedObject} from its stored fields: empty when {@code landing} is absent
   * (a file written before version 10) or {@link #LANDING_PRESENT}.
   *
   * @throws IllegalStateException when a cleaned file lacks its cleanup time
   */
  public static Optional<CleanedObject> cleaned(String fileId, String landing,
      Optional<String> archiveUri, Optional<Long> archiveGeneration,
      Optional<Instant> cleanedAt, Optional<Instant> removedAt) {
    if (landing == null || landing.equals(LANDING_PRESENT)) {
      return Optional.empty();
    }
    return Optional.of(new CleanedObject(CleanedObject.Action.fromCode(landing), archiveUri,
        archiveGeneration, cleanedAt.orElseThrow(() -> new IllegalStateException("File " + fileId + " is "
            + landing + " without " + CLEANED_AT)), removedAt));
  }

  /** {@link #LANDING} of a file. */
  public static String landing(FileRecord file) {
    return file.cleaned().map(cleaned -> cleaned.action().code()).orElse(LANDING_PRESENT);
  }

  // partitions (also TABLE, PARTITION, STATE, BATCH_ID)
  public static final String PARTITION_ID = "partitionId";
  public static final String PREFIX = "prefix";
  public static final String MARKER_SEEN = "markerSeen";
  public static final String ATTEMPTS = "attempts";
  public static final String LAST_ERROR = "lastError";
  public static final String READY_AT = "readyAt";
  public static final String UPDATED_AT = "updatedAt";

  // batches (also BATCH_ID, TABLE, STATE, ATTEMPTS, UPDATED_AT)
  public static final String LAUNCHES = "launches";
  public static final String PARTITIONS_FIELD = "partitions";
  public static final String FILE_IDS = "fileIds";
  public static final String EVENT_IDS = "eventIds";
  public static final String LEASE_UNTIL = "leaseUntil";
  public static final String SNAPSHOT_ID = "snapshotId";
  public static final String METRICS = "metrics";
  public static final String ERROR = "error";
  /** {@link FailureCause#errorClass}: Spark's error class or the root exception's class. */
  public static final String ERROR_CLASS = "errorClass";
  /** {@link FailureCause#file}: the URI of the file at fault. */
  public static final String ERROR_FILE = "errorFile";
  /** Whether the batch gave up with an unknown outcome ({@link BatchRecord#outcomeUnknown}). */
  public static final String OUTCOME_UNKNOWN = "outcomeUnknown";
  public static final String CREATED_AT = "createdAt";
  public static final String COMMITTED_AT = "committedAt";
  /**
   * Firestore: set while a transition of the batch (claim, commit, failure, revival) that writes
   * more documents than one commit holds is being applied to its files and partitions after the
   * transaction that decided it. Holds the {@link FileState} code its files move to ({@code
   * claimed}, {@code ingested}, {@code recorded}); absent once every file and partition is moved.
   */
  public static final String SETTLING = "settling";
  /** Firestore, with {@link #SETTLING}: how many of the batch's files, in claim order, have moved. */
  public static final String SETTLED_FILES = "settledFiles";
  /** Firestore, with {@link #SETTLING} {@code recorded}: the failure's bound on partition attempts. */
  public static final String SETTLING_MAX_ATTEMPTS = "settlingMaxAttempts";
  /** Firestore, with {@link #SETTLING}: the older READY partitions a newest claim still supersedes. */
  public static final String SUPERSEDING = "superseding";

  // changes (also TABLE, STATE, PARTITIONS_FIELD, REASON, CREATED_AT, UPDATED_AT)
  public static final String CHANGE_ID = "changeId";
  public static final String KIND = "kind";
  public static final String FROM_SNAPSHOT = "fromSnapshot";
  public static final String TO_SNAPSHOT = "toSnapshot";
  public static final String BATCH_IDS = "batchIds";
  public static final String UNDONE_CHANGES = "undoneChanges";
  public static final String HOLD = "hold";
  public static final String ACTOR = "actor";
  public static final String OUTCOME = "outcome";

  // outbox (also EVENT_ID, TABLE, CREATED_AT)
  /** The event's change: {@code commit}, {@code rollback}, {@code drop-partition}. */
  public static final String CHANGE = "change";
  /** The event as JSON text. */
  public static final String PAYLOAD = "payload";

  // quarantine
  public static final String MESSAGE_ID = "messageId";
  public static final String REASON = "reason";
  public static final String RAW_PAYLOAD = "rawPayload";
  public static final String OBJECT_URI = "objectUri";
  public static final String RECEIVED_AT = "receivedAt";

  /**
   * What a batch failed before {@link #OUTCOME_UNKNOWN} was stored has in its error when it gave up
   * with an unknown outcome: a stored batch without the flag has it set exactly then.
   */
  public static final String LEGACY_OUTCOME_UNKNOWN_PHRASE = "the table may hold the batch";

  /** {@link #OUTCOME_UNKNOWN} of a batch stored without it, read from its error. */
  public static boolean legacyOutcomeUnknown(String error) {
    return error != null && error.contains(LEGACY_OUTCOME_UNKNOWN_PHRASE);
  }

  /** The file's document id: hex SHA-256 of {@code bucket/name#generation}. */
  public static String fileId(String bucket, String name, long generation) {
    return Sha256.hex(bucket + "/" + name + "#" + generation);
  }

  /** The partition's document id: hex SHA-256 of {@code table|partition}. */
  public static String partitionId(String table, String partition) {
    return Sha256.hex(table + "|" + partition);
  }

  /** {@link #BATCH_KEY}: the first 16 hex digits of the SHA-256 of the batch id. */
  public static String batchKey(String batchId) {
    return Sha256.hex(batchId).substring(0, 16);
  }

  /**
   * A quarantined message's document id: the message id when it is a plain word (Pub/Sub message
   * ids are digits), else {@code sha256-} and the hex SHA-256 of it, so that any id (slashes, dots,
   * {@code __x__}) maps to one valid document id.
   */
  public static String quarantineId(String messageId) {
    boolean plain = messageId.matches("[A-Za-z0-9_\\-]{1,128}") && !messageId.startsWith("__");
    return plain ? messageId : "sha256-" + Sha256.hex(messageId);
  }
}
