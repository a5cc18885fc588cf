package io.files2iceberg.sparkjob.maintain;

import io.files2iceberg.sparkjob.load.CommitMarker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The rule that keeps exactly-once intact under snapshot expiry.
 *
 * <p>A job that runs a batch again walks the current snapshot's ancestry for the batch's marker
 * ({@link CommitMarker#find}); expiring a snapshot breaks the parent chain at that point, so a
 * marker behind it is no longer found and the batch would be written twice. So for every batch
 * that may still be looked up, the newest snapshot of the ancestry carrying its id is protected,
 * and with it everything newer in the ancestry: expiry only removes snapshots strictly older than
 * {@code olderThan = min(retention cutoff, oldest protected snapshot's commit time)}, and always
 * keeps the current snapshot ({@code retain_last >= 1}).
 *
 * <p>The batches that may be looked up again are named by the caller from the ledger (batches in
 * flight whose lease expired, FAILED batches), plus the newest {@code protectNewest} other markers
 * of the ancestry: the COMMITTED batches the ledger still keeps, whose manifests a re-run would
 * find in the table. A named batch the table does not hold needs no protection: its job writes it.
 */
final class SnapshotProtection {
  private SnapshotProtection() {}

  /**
   * What to keep.
   *
   * @param protectedSnapshots one per batch found, oldest first
   * @param notInTable named batches the ancestry does not hold
   * @param olderThan expire only snapshots committed before this instant
   */
  record Plan(List<ProtectedSnapshot> protectedSnapshots, List<String> notInTable, Instant olderThan) {}

  static Plan plan(Table table, Instant retentionCutoff, Map<String, String> named, int protectNewest) {
    Map<String, ProtectedSnapshot> found = new LinkedHashMap<>();
    Set<String> notInTable = new LinkedHashSet<>(named.keySet());
    Snapshot current = table.currentSnapshot();
    int newestLeft = protectNewest;
    if (current != null) {
      // Newest first: the first snapshot met with a batch id is that batch's newest marker.
      for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
        String batchId = snapshot.summary().get(CommitMarker.BATCH_ID);
        if (batchId == null || found.containsKey(batchId)) {
          continue;
        }
        String reason = named.get(batchId);
        if (reason == null && newestLeft > 0) {
          newestLeft--;
          reason = "one of the " + protectNewest + " newest batches in the table (the ledger keeps "
              + "extract.keep-checkpoints committed batches)";
        }
        if (reason != null) {
          found.put(batchId, new ProtectedSnapshot(batchId, snapshot.snapshotId(),
              Instant.ofEpochMilli(snapshot.timestampMillis()), reason));
          notInTable.remove(batchId);
        }
      }
    }
    List<ProtectedSnapshot> oldestFirst = new ArrayList<>(found.values());
    oldestFirst.sort((a, b) -> a.committedAt().compareTo(b.committedAt()));
    Optional<Instant> oldestProtected = oldestFirst.stream().map(ProtectedSnapshot::committedAt).findFirst();
    Instant olderThan = oldestProtected.filter(t -> t.isBefore(retentionCutoff)).orElse(retentionCutoff);
    return new Plan(List.copyOf(oldestFirst), List.copyOf(notInTable), olderThan);
  }
}
