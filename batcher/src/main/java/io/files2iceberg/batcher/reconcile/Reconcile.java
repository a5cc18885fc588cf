package io.files2iceberg.batcher.reconcile;

import io.files2iceberg.batcher.listing.ListedRecorder;
import io.files2iceberg.batcher.listing.PartitionListing;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.engine.StorageListing.Found;
import io.files2iceberg.batcher.engine.StorageListing.Scan;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * {@code reconcile}: compares, for one table and a range of partitions, the objects in the bucket
 * with the files in the ledger, and reports the drift: data files the ledger never heard of (lost
 * notifications), partitions whose marker is present but that are not READY (or later), files
 * recorded whose object is gone from the bucket, and partitions READY for longer than a threshold
 * (stuck). A file landing cleanup deleted or moved ({@code load.after-ingest}) is expected to be
 * gone from where it landed; a moved file whose archive copy is gone (or another generation) is
 * drift, found by one metadata read per such file of the range. With {@code fix}, the missing files and markers are recorded as if notified; deleted and
 * stuck ones are only reported (an operator decides).
 */
public record Reconcile(StorageListing listing, Ledger ledger, Clock clock) {
  /** The event id of files and markers recorded by {@code reconcile --fix}. */
  public static final String EVENT = "reconcile";

  /**
   * The drift found, each list sorted.
   *
   * @param missingFiles URIs of data files in the bucket that the ledger does not have
   * @param markedNotReady partitions whose marker is in the bucket but which the ledger has OPEN or not at all
   * @param deletedFiles URIs of files the ledger has (not yet ingested or ingested) whose object is gone
   * @param archiveMissing files landing cleanup moved whose archive copy is gone: a reload of them would fail
   * @param stuckPartitions partitions READY since longer than the threshold, with since when
   * @param fixed whether the missing files and markers were recorded
   */
  public record Report(String table, String range, int listCalls, int objectsListed, int partitionsChecked,
      List<String> missingFiles, List<String> markedNotReady, List<String> deletedFiles, List<String> archiveMissing,
      List<String> stuckPartitions, List<String> rejected, boolean fixed) {
    /** Whether anything needs an operator. */
    public boolean hasDrift() {
      return !missingFiles.isEmpty() || !markedNotReady.isEmpty() || !deletedFiles.isEmpty()
          || !archiveMissing.isEmpty() || !stuckPartitions.isEmpty();
    }

    /**
     * Whether drift is left after this run: a fix records the missing files and markers, never
     * the gone files or the stuck partitions, which stay for an operator (and for the alert on a
     * scheduled run).
     */
    public boolean hasDriftLeft() {
      return fixed ? !deletedFiles.isEmpty() || !archiveMissing.isEmpty() || !stuckPartitions.isEmpty()
          : hasDrift();
    }
  }

  private static final Set<FileState> LEFT_OUT =
      EnumSet.of(FileState.QUARANTINED, FileState.SUPERSEDED, FileState.IGNORED, FileState.DROPPED);

  /** Compares the range and, with {@code fix} (and not {@code dryRun}), records what is missing. */
  public Report run(TableProfile profile, PartitionRange range, Duration stuckAfter, boolean fix,
      Consumer<String> progress) {
    String table = profile.table();
    int callsBefore = listing.listCalls();
    Scan scan = PartitionListing.scan(listing, ledger, profile, range);
    progress.accept("listed " + scan.data().size() + " data file(s) in " + range + " of " + table);
    List<PartitionRecord> stored = ledger.partitions(table).stream()
        .filter(p -> range.contains(p.partition())).toList();
    TreeSet<String> tokens = new TreeSet<>(scan.markers().keySet());
    scan.data().forEach(f -> tokens.add(f.partition().token()));
    stored.forEach(p -> tokens.add(p.partition()));

    Set<String> inBucket = new HashSet<>();
    Set<String> namesInBucket = new HashSet<>();
    scan.data().forEach(f -> {
      inBucket.add(f.fileId());
      namesInBucket.add(f.object().location().uri());
    });
    Set<String> inLedger = new HashSet<>();
    List<String> deleted = new ArrayList<>();
    List<String> archiveMissing = new ArrayList<>();
    for (String token : tokens) {
      for (FileRecord file : ledger.filesOfPartition(table, token)) {
        inLedger.add(file.fileId());
        // A generation replaced by a newer one is not drift; an object gone by name is, unless the
        // ledger already knows its rows are not in the table (quarantined, superseded: the job
        // found it gone; ignored: never loaded; dropped: drop-partition deleted them). A HELD
        // partition is not stuck: it waits for release on purpose.
        // A cleaned file's object is gone on purpose; a moved one's copy must be where the ledger says.
        if (file.cleaned().isPresent()) {
          CleanedObject cleaned = file.cleaned().get();
          if (cleaned.action() == CleanedObject.Action.ARCHIVED && !LEFT_OUT.contains(file.state())
              && listing.generationOf(cleaned.archiveUri().orElseThrow()).stream()
                  .noneMatch(g -> g == cleaned.archiveGeneration().orElseThrow())) {
            archiveMissing.add(file.uri() + "#" + file.generation() + " (archive " + cleaned.archiveUri().orElseThrow()
                + "#" + cleaned.archiveGeneration().orElseThrow() + ")");
          }
          continue;
        }
        if (!LEFT_OUT.contains(file.state()) && !namesInBucket.contains(file.uri())) {
          deleted.add(file.uri() + "#" + file.generation());
        }
      }
    }
    List<Found> missing = scan.data().stream().filter(f -> !inLedger.contains(f.fileId())).toList();
    Map<String, PartitionRecord> byToken = new HashMap<>();
    stored.forEach(p -> byToken.put(p.partition(), p));
    List<PartitionRef> markedNotReady = new ArrayList<>();
    for (PartitionRef marker : scan.markers().values()) {
      PartitionRecord partition = byToken.get(marker.token());
      if (partition == null || partition.state() == PartitionState.OPEN) {
        markedNotReady.add(marker);
      }
    }
    markedNotReady.sort(Comparator.comparing(PartitionRef::token));
    Instant threshold = clock.instant().minus(stuckAfter);
    List<String> stuck = stored.stream()
        .filter(p -> p.state() == PartitionState.READY && p.readyAt().map(t -> t.isBefore(threshold)).orElse(false))
        .map(p -> p.partition() + " (READY since " + p.readyAt().get() + ")")
        .toList();
    if (fix) {
      new ListedRecorder(ledger, profile, EVENT, clock, false).record(missing, markedNotReady, progress);
    }
    return new Report(table, range.toString(), listing.listCalls() - callsBefore, scan.data().size(), tokens.size(),
        missing.stream().map(f -> f.object().location().uri()).sorted().toList(),
        markedNotReady.stream().map(PartitionRef::token).toList(),
        deleted.stream().sorted().toList(), archiveMissing.stream().sorted().toList(), stuck, scan.rejected(), fix);
  }
}
