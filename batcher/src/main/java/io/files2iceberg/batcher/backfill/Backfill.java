package io.files2iceberg.batcher.backfill;

import io.files2iceberg.batcher.listing.ListedRecorder;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.engine.StorageListing.PartitionFolder;
import io.files2iceberg.batcher.engine.StorageListing.Scan;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code backfill}: the first load of a bucket that already holds many partitions. The partition
 * folders are enumerated (delimiter listings), oldest first; each complete partition is listed and
 * recorded as if notified, files before marker, so a partition whose marker the ledger has seen is
 * fully recorded. That makes it resumable: a rerun skips those partitions without listing them
 * again. The batcher then loads the READY partitions oldest first in {@code max-batch-size} steps.
 */
public record Backfill(StorageListing listing, Ledger ledger, Clock clock) {
  /** The event id of files and markers recorded by backfill. */
  public static final String EVENT = "backfill";

  /**
   * What backfill did.
   *
   * @param folders partition folders found in the range
   * @param skipped partitions the ledger already had complete (not listed again)
   * @param recordedPartitions partitions recorded by this run (READY, or OPEN while their marker is missing)
   * @param incomplete partitions without their success marker (success-file-filter on): files recorded, not READY
   * @param remaining partitions left for a later run by {@code limit}
   */
  public record Report(String table, String range, int listCalls, int folders, List<String> skipped,
      List<String> recordedPartitions, List<String> incomplete, int filesRecorded, int filesKnown, int remaining,
      List<String> rejected, boolean dryRun) {}

  /**
   * Records the range's partitions, oldest first, at most {@code limit} of them (0: all).
   */
  public Report run(TableProfile profile, PartitionRange range, int limit, boolean dryRun, Consumer<String> progress) {
    int callsBefore = listing.listCalls();
    List<PartitionFolder> folders = new ArrayList<>(listing.partitionFolders(profile).stream()
        .filter(folder -> folder.token().map(range::contains).orElse(true)).toList());
    folders.sort(Comparator.comparing((PartitionFolder f) -> f.token().orElse("")).thenComparing(PartitionFolder::prefix));
    progress.accept("found " + folders.size() + " partition folder(s) under " + profile.extract().path());
    List<String> skipped = new ArrayList<>();
    List<String> recordedPartitions = new ArrayList<>();
    List<String> incomplete = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    int filesRecorded = 0;
    int filesKnown = 0;
    int remaining = 0;
    ListedRecorder recorder = new ListedRecorder(ledger, profile, EVENT, clock, dryRun);
    for (PartitionFolder folder : folders) {
      Optional<PartitionRecord> stored = folder.token().flatMap(token -> ledger.partition(profile.table(), token));
      if (stored.isPresent() && stored.get().markerSeen()) {
        skipped.add(folder.token().get());
        continue;
      }
      if (limit > 0 && recordedPartitions.size() >= limit) {
        remaining++;
        continue;
      }
      Scan scan = listing.scan(profile, List.of(folder.prefix()));
      Scan inRange = new Scan(scan.data().stream().filter(f -> range.contains(f.partition().token())).toList(),
          scan.markers(), scan.rejected());
      rejected.addAll(scan.rejected());
      ListedRecorder.Recorded recorded = recorder.record(inRange.data(), scan.markers().values(), progress);
      filesRecorded += recorded.newFiles().size();
      filesKnown += recorded.knownFiles();
      String name = folder.token().orElse(folder.uri());
      recordedPartitions.add(name);
      if (profile.extract().batchFile().successFileFilter() && scan.markers().isEmpty()) {
        incomplete.add(name);
      }
      progress.accept("recorded " + recordedPartitions.size() + "/" + (folders.size() - skipped.size())
          + " partition(s): " + name + " (" + recorded.newFiles().size() + " new file(s))");
    }
    return new Report(profile.table(), range.toString(), listing.listCalls() - callsBefore, folders.size(), skipped,
        recordedPartitions, incomplete, filesRecorded, filesKnown, remaining, List.copyOf(rejected), dryRun);
  }
}
