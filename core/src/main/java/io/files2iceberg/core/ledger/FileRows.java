package io.files2iceberg.core.ledger;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the job counted of one file's rows in the batch that loaded it, as Snowpipe's COPY_HISTORY
 * reports per file. Set on the file's record when its batch commits, from the job's result; a file
 * loaded before the job counted per file, or whose batch was settled without the job's result
 * (recovery found it in the table), has none: unknown, never 0.
 *
 * <p>One codec for every place that stores or reports them (the SQLite ledger's columns, the
 * Firestore ledger's fields, the job's report): {@link #toMap} and {@link #fromMap}, keyed by the
 * {@link LedgerSchema} names.
 *
 * @param read every row the job read from the file
 * @param rejected its bad records, which went to {@code <table>__rejected} ({@code
 *     transform.on-bad-record = reject})
 * @param rescued its rows that carry a value in {@code transform.rescued-data-column}
 * @param ignoredColumns its columns (and fields of struct columns) the table does not have that
 *     were not loaded ({@code load.schema-evolution = none} without a rescued data column)
 * @param expectationsFailed by expectation name ({@code quality.expectations}), its rows that
 *     violated the expectation, whatever the action; only expectations with a violation are here,
 *     so an empty map says that every row met every expectation (or that none was set)
 */
public record FileRows(long read, long rejected, long rescued, long ignoredColumns,
    Map<String, Long> expectationsFailed) {

  public FileRows {
    if (read < 0 || rejected < 0 || rescued < 0 || ignoredColumns < 0) {
      throw new IllegalArgumentException("Row counts cannot be negative: read " + read + ", rejected " + rejected
          + ", rescued " + rescued + ", ignored columns " + ignoredColumns);
    }
    Map<String, Long> failed = new TreeMap<>();
    expectationsFailed.forEach((name, count) -> {
      if (count < 0) {
        throw new IllegalArgumentException("Expectation " + name + " cannot fail " + count + " rows");
      }
      if (count > 0) {
        failed.put(name, count);
      }
    });
    expectationsFailed = Collections.unmodifiableMap(failed);
  }

  /** A file that violated no expectation. */
  public FileRows(long read, long rejected, long rescued, long ignoredColumns) {
    this(read, rejected, rescued, ignoredColumns, Map.of());
  }

  /** A file whose columns were all loaded (or rescued). */
  public FileRows(long read, long rejected, long rescued) {
    this(read, rejected, rescued, 0);
  }

  /**
   * The counts under {@link LedgerSchema#ROWS_READ}, {@link LedgerSchema#ROWS_REJECTED}, {@link
   * LedgerSchema#ROWS_RESCUED}, {@link LedgerSchema#COLUMNS_IGNORED}.
   */
  public Map<String, Long> toMap() {
    Map<String, Long> map = new LinkedHashMap<>();
    map.put(LedgerSchema.ROWS_READ, read);
    map.put(LedgerSchema.ROWS_REJECTED, rejected);
    map.put(LedgerSchema.ROWS_RESCUED, rescued);
    map.put(LedgerSchema.COLUMNS_IGNORED, ignoredColumns);
    return map;
  }

  /**
   * {@link #expectationsFailed} as a JSON object's text, for stores that keep it as one column
   * ({@link LedgerSchema#EXPECTATIONS_FAILED}); null when empty.
   */
  public String expectationsFailedJson() {
    if (expectationsFailed.isEmpty()) {
      return null;
    }
    StringBuilder json = new StringBuilder("{");
    expectationsFailed.forEach((name, count) -> json.append(json.length() > 1 ? "," : "").append('"').append(name)
        .append("\":").append(count));
    return json.append('}').toString();
  }

  /**
   * The map {@link #expectationsFailedJson} wrote; empty for null or blank.
   *
   * @throws IllegalArgumentException when it is not such an object
   */
  public static Map<String, Long> expectationsFailedFromJson(String json) {
    Map<String, Long> failed = new LinkedHashMap<>();
    if (json == null || json.isBlank()) {
      return failed;
    }
    Matcher all = JSON_COUNTS.matcher(json);
    if (!all.matches()) {
      throw new IllegalArgumentException("Expectation counts are not a JSON object of names to counts: " + json);
    }
    Matcher entry = JSON_ENTRY.matcher(json);
    while (entry.find()) {
      failed.put(entry.group(1), Long.parseLong(entry.group(2)));
    }
    return failed;
  }

  /** This file's counts with {@code expectationsFailed} replaced. */
  public FileRows withExpectationsFailed(Map<String, Long> failed) {
    return new FileRows(read, rejected, rescued, ignoredColumns, failed);
  }

  private static final String ENTRY = "\\s*\"([A-Za-z0-9_]+)\"\\s*:\\s*([0-9]+)\\s*";
  private static final Pattern JSON_COUNTS = Pattern.compile("\\s*\\{(?:" + ENTRY + "(?:," + ENTRY + ")*)?\\}\\s*");
  private static final Pattern JSON_ENTRY = Pattern.compile(ENTRY);

  /**
   * The counts a map (a document, a JSON object, a row read as a map) holds; empty when it has no
   * {@link LedgerSchema#ROWS_READ} (a record written before files were counted). A missing
   * rescued count is 0 (a file read without a rescued data column rescues nothing), and so is a
   * missing ignored columns count (a file loaded before they were counted).
   *
   * @throws IllegalArgumentException naming the key whose value is not a number
   */
  public static Optional<FileRows> fromMap(Map<String, ?> values) {
    if (values.get(LedgerSchema.ROWS_READ) == null) {
      return Optional.empty();
    }
    Object failed = values.get(LedgerSchema.EXPECTATIONS_FAILED);
    Map<String, Long> expectations = new LinkedHashMap<>();
    if (failed instanceof Map<?, ?> map) {
      map.forEach((name, count) -> {
        if (!(count instanceof Number number)) {
          throw new IllegalArgumentException("File row count '" + LedgerSchema.EXPECTATIONS_FAILED + "." + name
              + "' is not a number: " + count);
        }
        expectations.put(name.toString(), number.longValue());
      });
    } else if (failed instanceof String json) {
      expectations.putAll(expectationsFailedFromJson(json));
    } else if (failed != null) {
      throw new IllegalArgumentException("File row count '" + LedgerSchema.EXPECTATIONS_FAILED
          + "' is not an object: " + failed);
    }
    return Optional.of(new FileRows(number(values, LedgerSchema.ROWS_READ), number(values, LedgerSchema.ROWS_REJECTED),
        number(values, LedgerSchema.ROWS_RESCUED), number(values, LedgerSchema.COLUMNS_IGNORED), expectations));
  }

  private static long number(Map<String, ?> values, String key) {
    Object value = values.get(key);
    if (value == null) {
      return 0;
    }
    if (!(value instanceof Number number)) {
      throw new IllegalArgumentException("File row count '" + key + "' is not a number: " + value);
    }
    return number.longValue();
  }
}
