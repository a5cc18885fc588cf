package io.files2iceberg.sparkjob.change;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

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
  public static final String ROWS_INSERTED = "files2iceberg.rows.inserted";
  public static final String ROWS_UPDATED = "files2iceberg.rows.updated";
  public static final String ROWS_DELETED = "files2iceberg.rows.deleted";
  /** An operator's change that is not a batch: {@code drop-partition}. */
  public static final String CHANGE = "files2iceberg.change";
  /** The id of that operator's change, found in the ancestry before it is applied again. */
  public static final String CHANGE_ID = "files2iceberg.change-id";
  /** The tag on the snapshot before a risky batch: {@code files2iceberg-before-<batch id>}. */
  public static final String TAG_PREFIX = "files2iceberg-before-";

  /** Partitions listed in a summary at most; a snapshot summary lives in every metadata file. */
  public static final int PARTITIONS_LISTED = 100;

  private static final ObjectMapper JSON = new ObjectMapper();

  private ChangeSummary() {}

  /** The partition properties for these partitions: count, the sorted list cut at the limit, and the cut marker. */
  public static Map<String, String> partitions(Collection<String> partitions) {
    TreeSet<String> sorted = new TreeSet<>(partitions);
    List<String> listed = new ArrayList<>(sorted).subList(0, Math.min(sorted.size(), PARTITIONS_LISTED));
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(PARTITIONS_COUNT, Integer.toString(sorted.size()));
    try {
      properties.put(PARTITIONS, JSON.writeValueAsString(listed));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write partition tokens as JSON", e);
    }
    if (listed.size() < sorted.size()) {
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

  /** The tag a risky batch leaves on the snapshot before it. */
  public static String tagBefore(String batchId) {
    return TAG_PREFIX + batchId;
  }
}
