package io.files2iceberg.sparkjob.maintain;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one maintenance run did to an existing table (or, with {@code dryRun}, would do): its
 * result line, {@code {"files2iceberg-maintain":{...}}}, carries every field.
 *
 * @param olderThan the expiry bound the protection rule chose (at or before the retention cutoff)
 * @param expiredSnapshotIds the snapshots expired (dry run: that would be), oldest first
 * @param compaction binpack's rewrite of data files (absent when not asked for, or when the sort took its place)
 * @param sort the rewrite in the table's order, or why it was skipped
 * @param positionDeletes {@code rewrite_position_delete_files}: delete files rewritten and added
 * @param manifests {@code rewrite_manifests}: manifests rewritten and added, their bytes
 * @param deletedFiles data, delete and manifest files the expiry deleted (0 in a dry run)
 * @param orphans {@code remove_orphan_files}, run after the expiry
 */
record MaintainReport(
    String table,
    boolean dryRun,
    Instant retentionCutoff,
    Instant olderThan,
    int retainLast,
    List<ProtectedSnapshot> protectedSnapshots,
    List<String> notInTable,
    Optional<Rewritten> compaction,
    Optional<SortOutcome> sort,
    Optional<Rewritten> positionDeletes,
    Optional<Rewritten> manifests,
    List<Long> expiredSnapshotIds,
    long deletedFiles,
    int snapshotsBefore,
    int snapshotsAfter,
    Optional<OrphansRemoved> orphans) implements MaintainOutcome {

  /** The most orphan file names a result lists (the count is always whole). */
  static final int ORPHANS_LISTED = 100;

  /**
   * One rewrite action: files (data files, delete files or manifests) rewritten and added, the
   * bytes rewritten, and the {@code replace} snapshot it committed (none when it had nothing to do).
   * In a dry run, {@code rewrittenFiles} counts what the action would take, by an estimate: for
   * data files, the files under 75% of the target in partitions with at least min-input-files of
   * them (and at least 2); for delete files, the position delete files the table has; for
   * manifests, the data manifests of the current snapshot.
   */
  record Rewritten(long rewrittenFiles, long addedFiles, long rewrittenBytes, Optional<Long> snapshotId) {
    void describe(ObjectNode node) {
      node.put("rewrittenFiles", rewrittenFiles);
      node.put("addedFiles", addedFiles);
      node.put("rewrittenBytes", rewrittenBytes);
      if (snapshotId.isPresent()) {
        node.put("snapshotId", snapshotId.get());
      } else {
        node.putNull("snapshotId");
      }
    }
  }

  /** {@code --sort} on one table: the rewrite in its order, or why there was none. */
  sealed interface SortOutcome permits Sorted, SortSkipped {
    void describe(ObjectNode node);
  }

  /**
   * @param order the order as Iceberg prints it, such as {@code id ASC NULLS FIRST} or {@code zorder(a, b)}
   * @param from where the order came from: {@code maintain.sort-by}, {@code maintain.z-order-by} or {@code table}
   */
  record Sorted(String order, String from, Rewritten rewrite) implements SortOutcome {
    @Override
    public void describe(ObjectNode node) {
      node.put("order", order);
      node.put("from", from);
      rewrite.describe(node);
    }
  }

  /** The table has no order to sort by: {@code skipped} says what to set. */
  record SortSkipped(String reason) implements SortOutcome {
    @Override
    public void describe(ObjectNode node) {
      node.put("skipped", reason);
    }
  }

  /**
   * {@code remove_orphan_files} over the table's location.
   *
   * @param olderThan only files last modified before this were candidates
   * @param removedFiles how many were deleted (in a dry run: would be)
   * @param files the first {@value #ORPHANS_LISTED} of them
   */
  record OrphansRemoved(Instant olderThan, long removedFiles, List<String> files) {
    OrphansRemoved {
      files = List.copyOf(files);
    }

    void describe(ObjectNode node) {
      node.put("olderThan", olderThan.toString());
      node.put("removedFiles", removedFiles);
      var listed = node.putArray("files");
      files.forEach(listed::add);
    }
  }

  @Override
  public void describe(ObjectNode body) {
    body.put("retentionCutoff", retentionCutoff.toString());
    body.put("olderThan", olderThan.toString());
    body.put("retainLast", retainLast);
    var protectedArray = body.putArray("protected");
    for (ProtectedSnapshot p : protectedSnapshots) {
      ObjectNode node = protectedArray.addObject();
      node.put("batchId", p.batchId());
      node.put("snapshotId", p.snapshotId());
      node.put("committedAt", p.committedAt().toString());
      node.put("reason", p.reason());
    }
    var missing = body.putArray("notInTable");
    notInTable.forEach(missing::add);
    compaction.ifPresentOrElse(c -> c.describe(body.putObject("compaction")), () -> body.putNull("compaction"));
    sort.ifPresentOrElse(s -> s.describe(body.putObject("sort")), () -> body.putNull("sort"));
    positionDeletes.ifPresentOrElse(r -> r.describe(body.putObject("positionDeletes")),
        () -> body.putNull("positionDeletes"));
    manifests.ifPresentOrElse(r -> r.describe(body.putObject("manifests")), () -> body.putNull("manifests"));
    var expired = body.putArray("expiredSnapshots");
    expiredSnapshotIds.forEach(expired::add);
    body.put("deletedFiles", deletedFiles);
    body.put("snapshotsBefore", snapshotsBefore);
    body.put("snapshotsAfter", snapshotsAfter);
    orphans.ifPresentOrElse(o -> o.describe(body.putObject("orphanFiles")), () -> body.putNull("orphanFiles"));
  }
}
