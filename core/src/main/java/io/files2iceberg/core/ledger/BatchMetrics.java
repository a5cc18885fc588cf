package io.files2iceberg.core.ledger;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * What one batch did. Durations in milliseconds; {@code lagMillis} runs from the oldest event of
 * the batch to its commit. {@code rowsDeleted} counts the stored rows that change-data deletes
 * removed ({@code load.cdc}).
 *
 * <p>One codec for every place that stores or reports them (the SQLite ledger's JSON, the Firestore
 * ledger's map, the job's report): {@link #toMap} and {@link #fromMap}, keyed by {@link Field}.
 */
public record BatchMetrics(
    long files,
    long bytes,
    long rowsRead,
    long rowsFiltered,
    long rowsInserted,
    long rowsUpdated,
    long rowsUnchanged,
    long rowsRejected,
    long readMillis,
    long mergeMillis,
    long commitMillis,
    long lagMillis,
    long rowsDeleted) {

  public static final BatchMetrics EMPTY = new BatchMetrics(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** Metrics of a batch that deleted no row. */
  public BatchMetrics(long files, long bytes, long rowsRead, long rowsFiltered, long rowsInserted, long rowsUpdated,
      long rowsUnchanged, long rowsRejected, long readMillis, long mergeMillis, long commitMillis, long lagMillis) {
    this(files, bytes, rowsRead, rowsFiltered, rowsInserted, rowsUpdated, rowsUnchanged, rowsRejected, readMillis,
        mergeMillis, commitMillis, lagMillis, 0);
  }

  /** The metrics' fields, in the record's order, with the key each is stored and reported under. */
  public enum Field {
    FILES("files", BatchMetrics::files),
    BYTES("bytes", BatchMetrics::bytes),
    ROWS_READ("rowsRead", BatchMetrics::rowsRead),
    ROWS_FILTERED("rowsFiltered", BatchMetrics::rowsFiltered),
    ROWS_INSERTED("rowsInserted", BatchMetrics::rowsInserted),
    ROWS_UPDATED("rowsUpdated", BatchMetrics::rowsUpdated),
    ROWS_UNCHANGED("rowsUnchanged", BatchMetrics::rowsUnchanged),
    ROWS_REJECTED("rowsRejected", BatchMetrics::rowsRejected),
    READ_MILLIS("readMillis", BatchMetrics::readMillis),
    MERGE_MILLIS("mergeMillis", BatchMetrics::mergeMillis),
    COMMIT_MILLIS("commitMillis", BatchMetrics::commitMillis),
    LAG_MILLIS("lagMillis", BatchMetrics::lagMillis),
    ROWS_DELETED("rowsDeleted", BatchMetrics::rowsDeleted);

    private final String key;
    private final ToLongFunction<BatchMetrics> value;

    Field(String key, ToLongFunction<BatchMetrics> value) {
      this.key = key;
      this.value = value;
    }

    public String key() {
      return key;
    }

    public long of(BatchMetrics metrics) {
      return value.applyAsLong(metrics);
    }
  }

  /** Each field's key to its value, in {@link Field} order. */
  public Map<String, Long> toMap() {
    Map<String, Long> map = new LinkedHashMap<>();
    for (Field field : Field.values()) {
      map.put(field.key(), field.of(this));
    }
    return map;
  }

  /**
   * The metrics a map of {@link Field} keys holds (as {@link #toMap} wrote it, or read back as JSON
   * or a document); a key it does not have is 0, one it has besides is ignored.
   *
   * @throws IllegalArgumentException naming the key whose value is not a number
   */
  public static BatchMetrics fromMap(Map<String, ?> values) {
    long[] v = new long[Field.values().length];
    for (Field field : Field.values()) {
      Object value = values.get(field.key());
      if (value != null && !(value instanceof Number)) {
        throw new IllegalArgumentException("Metric '" + field.key() + "' is not a number: " + value);
      }
      v[field.ordinal()] = value == null ? 0 : ((Number) value).longValue();
    }
    return new BatchMetrics(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12]);
  }
}
