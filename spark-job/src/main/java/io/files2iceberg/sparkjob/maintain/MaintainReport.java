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
 * @param deletedFiles data, delete and manifest files the expiry deleted (0 in a dry run)
 */
record MaintainReport(
    String table,
    boolean dryRun,
    Instant retentionCutoff,
    Instant olderThan,
    int retainLast,
    List<ProtectedSnapshot> protectedSnapshots,
    List<String> notInTable,
    Optional<Compacted> compaction,
    List<Long> expiredSnapshotIds,
    long deletedFiles,
    int snapshotsBefore,
    int snapshotsAfter) implements MaintainOutcome {

  /**
   * The compaction: in a dry run, {@code rewrittenFiles} counts the small files binpack would take
   * (files under 75% of the target, in partitions with at least min-input-files of them, and
   * at least 2).
   */
  record Compacted(long rewrittenFiles, long addedFiles, long rewrittenBytes, Optional<Long> snapshotId) {}

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
    if (compaction.isPresent()) {
      Compacted c = compaction.get();
      ObjectNode node = body.putObject("compaction");
      node.put("rewrittenFiles", c.rewrittenFiles());
      node.put("addedFiles", c.addedFiles());
      node.put("rewrittenBytes", c.rewrittenBytes());
      if (c.snapshotId().isPresent()) {
        node.put("snapshotId", c.snapshotId().get());
      } else {
        node.putNull("snapshotId");
      }
    } else {
      body.putNull("compaction");
    }
    var expired = body.putArray("expiredSnapshots");
    expiredSnapshotIds.forEach(expired::add);
    body.put("deletedFiles", deletedFiles);
    body.put("snapshotsBefore", snapshotsBefore);
    body.put("snapshotsAfter", snapshotsAfter);
  }
}
