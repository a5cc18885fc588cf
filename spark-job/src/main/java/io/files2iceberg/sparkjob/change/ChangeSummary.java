package io.files2iceberg.sparkjob.change;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.ledger.ChangedPartitions;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a files2iceberg commit says about itself in its Iceberg snapshot summary, so that the
 * change feed ({@code files2iceberg changes}) and undo ({@code rollback}) still answer after the
 * ledger has pruned the batch: the partitions it changed (bounded), its row counts, and for an
 * operator's change (a dropped partition) its kind and id.
 *
 * <p>One place names these properties; the job writes them, the change feed and rollback read them.
 */
public final class ChangeSummary {
  /** The batch's partitions that changed, as a JSON array of partition tokens, sorted, cut at {@link #PARTITIONS_LISTED}. */
  public static final String PARTITIONS = "files2iceberg.partitions";
  /** How many partitions changed, listed or not. */
  public static final String PARTITIONS_COUNT = "files2iceberg.partitions.count";
  /** {@code true} when {@link #PARTITIONS} lists only the first {@link #PARTITIONS_LISTED}. */
  public static final String PARTITIONS_TRUNCATED = "files2iceberg.partitions.truncated";
  /** Rows new to the table; absent from a MERGE's summary, whose inserts its own Iceberg summary tells ({@link #rows}). */
  public static final String ROWS_INSERTED = "files2iceberg.rows.inserted";
  /** Rows that replaced a stored row; absent when Iceberg's own summary of the commit tells them ({@link #rows}). */
  public static final String ROWS_UPDATED = "files2iceberg.rows.updated";
  /** Stored rows the commit deleted: {@code load.cdc} deletes, keys a snapshot lacked, a dropped partition's rows. */
  public static final String ROWS_DELETED = "files2iceberg.rows.deleted";
  /**
   * The rows a MERGE wrote. Which of them were inserts is known only once it commits (a
   * copy-on-write MERGE cannot tell an updated row from a copied one before), so its summary
   * carries these and {@link #rows} reads its counts from them and Iceberg's own summary.
   */
  public static final String ROWS_MERGED = "files2iceberg.rows.merged";
  /** {@code true} on a MERGE committed with merge-on-read: each update and delete is one position delete. */
  public static final String ROWS_MERGE_ON_READ = "files2iceberg.rows.merge-on-read";
  /** An operator's change that is not a batch: {@code drop-partition}. */
  public static final String CHANGE = "files2iceberg.change";
  /** The id of that operator's change, found in the ancestry before it is applied again. */
  public static final String CHANGE_ID = "files2iceberg.change-id";
  /** The tag on the snapshot before a risky batch: {@code files2iceberg-before-<batch id>}. */
  public static final String TAG_PREFIX = "files2iceberg-before-";

  /** Partitions listed in a summary at most ({@link ChangedPartitions#LISTED}). */
  public static final int PARTITIONS_LISTED = ChangedPartitions.LISTED;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a commit did to the table's rows. */
  public record RowCounts(long inserted, long updated, long deleted) {}

  private ChangeSummary() {}

  /** The partition properties for these partitions: count, the sorted list cut at the limit, and the cut marker. */
  public static Map<String, String> partitions(Collection<String> partitions) {
    return partitions(partitions, PARTITIONS_LISTED);
  }

  /** {@link #partitions(Collection)} with another limit, so that a test need not write 101 partitions. */
  static Map<String, String> partitions(Collection<String> partitions, int limit) {
    ChangedPartitions changed = ChangedPartitions.of(partitions, limit);
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(PARTITIONS_COUNT, Integer.toString(changed.count()));
    try {
      properties.put(PARTITIONS, JSON.writeValueAsString(changed.listed()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write partition tokens as JSON", e);
    }
    if (changed.truncated()) {
      properties.put(PARTITIONS_TRUNCATED, "true");
    }
    return properties;
  }

  /** The partitions a summary lists, empty when it lists none (a snapshot written before they were). */
  public static Optional<List<String>> listedPartitions(Map<String, String> summary) {
    String listed = summary.get(PARTITIONS);
    if (listed == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readValue(listed, new TypeReference<List<String>>() {}));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("snapshot summary " + PARTITIONS + " is not a JSON array of strings: " + listed, e);
    }
  }

  /** The row properties of a commit whose counts are known before it: every commit but a MERGE's. */
  public static Map<String, String> rows(RowCounts counts) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(ROWS_INSERTED, Long.toString(counts.inserted()));
    properties.put(ROWS_UPDATED, Long.toString(counts.updated()));
    properties.put(ROWS_DELETED, Long.toString(counts.deleted()));
    return properties;
  }

  /**
   * The row properties of a MERGE, written before it commits: the rows it writes, the rows it
   * deletes, and its updates when they are known before (copy-on-write with a precombine field or
   * {@code load.cdc}, from the split of the matched rows).
   */
  public static Map<String, String> mergeRows(long merged, long deleted, Optional<Long> updated, boolean mergeOnRead) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(ROWS_MERGED, Long.toString(merged));
    properties.put(ROWS_DELETED, Long.toString(deleted));
    updated.ifPresent(u -> properties.put(ROWS_UPDATED, Long.toString(u)));
    properties.put(ROWS_MERGE_ON_READ, Boolean.toString(mergeOnRead));
    return properties;
  }

  /**
   * What the commit did to the rows, from its summary; empty for a snapshot written before
   * files2iceberg recorded its counts. A MERGE's inserts are the records it added net of those it
   * deleted (a rewritten file's copies, position deletes) plus the rows it deleted; with
   * merge-on-read its updates are its position deletes less its deletes, else they are known
   * before the commit or are the rest of the rows it wrote.
   */
  public static Optional<RowCounts> rows(Map<String, String> summary) {
    if (summary.containsKey(ROWS_MERGED)) {
      long deleted = number(summary, ROWS_DELETED);
      long positionDeletes = number(summary, "added-position-deletes") - number(summary, "removed-position-deletes");
      long inserted = number(summary, "added-records") - number(summary, "deleted-records") - positionDeletes + deleted;
      long updated = summary.containsKey(ROWS_UPDATED) ? number(summary, ROWS_UPDATED)
          : Boolean.parseBoolean(summary.get(ROWS_MERGE_ON_READ)) ? positionDeletes - deleted
          : number(summary, ROWS_MERGED) - inserted;
      return Optional.of(new RowCounts(inserted, updated, deleted));
    }
    if (summary.containsKey(ROWS_INSERTED)) {
      return Optional.of(new RowCounts(number(summary, ROWS_INSERTED), number(summary, ROWS_UPDATED),
          number(summary, ROWS_DELETED)));
    }
    if (summary.containsKey(ROWS_DELETED)) {
      return Optional.of(new RowCounts(0, 0, number(summary, ROWS_DELETED)));
    }
    return Optional.empty();
  }

  private static long number(Map<String, String> summary, String property) {
    String value = summary.get(property);
    try {
      return value == null ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("snapshot summary " + property + " is not a whole number: " + value, e);
    }
  }

  /** The tag a risky batch leaves on the snapshot before it. */
  public static String tagBefore(String batchId) {
    return TAG_PREFIX + batchId;
  }
}
