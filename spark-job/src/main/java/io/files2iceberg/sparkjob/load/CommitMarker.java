package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ExpectationCounts;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The batch id in the snapshot summary: the table's own record of which batches it holds.
 *
 * <p>Before a batch writes, the current snapshot's ancestry is walked for its id (as Flink's
 * committer looks for its checkpoint id); a batch found there is never written again. Only the
 * ancestry counts: a snapshot that was rolled back, or that lives on another branch, does not hold
 * the batch's rows any more. Table maintenance must keep the newest marker of each batch reachable
 * ({@code sparkjob.maintain} protects them).
 */
public final class CommitMarker {
  /** The summary property naming the batch a snapshot committed. */
  public static final String BATCH_ID = "files2iceberg.batch-id";
  static final String EVENT_DIGEST = "files2iceberg.event-digest";
  /** The prefix of the summary properties that count each expectation's rows (or partitions). */
  public static final String QUALITY_PREFIX = "files2iceberg.quality.";

  private CommitMarker() {}

  /** The summary properties of the batch's commit: its id and a short digest of its event ids. */
  static Map<String, String> properties(BatchManifest manifest) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(BATCH_ID, manifest.batchId());
    properties.put(EVENT_DIGEST, digest(manifest.eventIds()));
    return properties;
  }

  /**
   * The summary properties of what the batch's expectations found: {@code
   * files2iceberg.quality.<name>.failed} and {@code .passed} for each, in the profile's order.
   */
  static Map<String, String> quality(Map<String, ExpectationCounts> counts) {
    Map<String, String> properties = new LinkedHashMap<>();
    counts.forEach((name, found) -> {
      properties.put(QUALITY_PREFIX + name + ".failed", Long.toString(found.failed()));
      properties.put(QUALITY_PREFIX + name + ".passed", Long.toString(found.passed()));
    });
    return properties;
  }

  /** The newest snapshot in the current ancestry that carries the batch id. */
  public static Optional<Snapshot> find(Table table, String batchId) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return Optional.empty();
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      if (batchId.equals(snapshot.summary().get(BATCH_ID))) {
        return Optional.of(snapshot);
      }
    }
    return Optional.empty();
  }

  /** The first 16 hex digits of SHA-256 over the event ids, one per line, in file order. */
  static String digest(List<String> eventIds) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String eventId : eventIds) {
        sha.update(eventId.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
