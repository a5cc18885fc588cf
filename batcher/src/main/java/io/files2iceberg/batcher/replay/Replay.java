package io.files2iceberg.batcher.replay;

import io.files2iceberg.batcher.listing.ListedRecorder;
import io.files2iceberg.batcher.listing.PartitionListing;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.engine.StorageListing.Found;
import io.files2iceberg.batcher.engine.StorageListing.Scan;
import io.files2iceberg.batcher.cli.AllowMissingOption;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Load;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * {@code replay}: re-ingests chosen partitions of a table. Their objects are listed and recorded as
 * if notified (known generations are no-ops) and the complete ones marked READY, so the next batch
 * loads only what changed; with {@code force}, INGESTED partitions are reopened first, so all their
 * files load again in a new batch (MERGE keeps the table correct). Without a checkpoint ({@link
 * #listedFiles}), the ledger is left alone and the caller loads the listed files once.
 */
public record Replay(StorageListing listing, Ledger ledger, Clock clock) {
  /** The event id of files and markers recorded by replay. */
  public static final String EVENT = "replay";

  /**
   * What replay did.
   *
   * @param partitions the partitions found in the range, by token
   * @param incomplete partitions left out: no success marker (success-file-filter on)
   * @param reopened INGESTED (or DROPPED, HELD) partitions reopened by {@code --force}
   * @param left partitions {@code --force} could not reopen, with their state
   * @param recorded files new to the ledger
   * @param known files the ledger already had
   * @param readyToLoad partitions READY after the run (dry: those whose marker would be recorded),
   *     which the next batch loads; an INGESTED partition without changes stays INGESTED
   * @param rejected data files the matcher rejects (strict-pattern), with the reason
   */
  public record Report(String table, String range, int listCalls, int filesListed, List<String> partitions,
      List<String> incomplete, List<String> reopened, List<String> left, List<String> recorded, int known,
      List<String> readyToLoad, List<String> rejected, boolean dryRun) {}

  /**
   * Lists the range and records it in the ledger.
   *
   * @throws IllegalArgumentException for a table that does not load through the ledger (mode full,
   *     save-checkpoint = false), and with {@code force} for an Append table without a primary key
   *     (its partition's rows would be appended a second time)
   */
  private static final Set<PartitionState> REOPENABLE =
      EnumSet.of(PartitionState.INGESTED, PartitionState.DROPPED, PartitionState.HELD);

  public Report run(TableProfile profile, PartitionRange range, boolean force, boolean dryRun,
      Consumer<String> progress) {
    return run(profile, range, force, dryRun, AllowMissingOption.of(false), progress);
  }

  /**
   * The same; {@code force} refused, before anything changes, when a partition to reopen has
   * INGESTED or DROPPED files whose object landing cleanup deleted, unless {@code allowMissing} allows it.
   */
  public Report run(TableProfile profile, PartitionRange range, boolean force, boolean dryRun,
      AllowMissingOption allowMissing, Consumer<String> progress) {
    if (profile.extract().listsStorage()) {
      throw new IllegalArgumentException("replay: table " + profile.table() + " does not load through the ledger ("
          + profile.extract().batchFile().ingestionType().whyNotReplayed()
              .map(why -> why + "); run it with batch run-once --table")
              .orElse("save-checkpoint = false); load the partitions' files once with replay --no-checkpoint, or run"
                  + " it with batch run-once --table"));
    }
    if (force && appendsWithoutKey(profile)) {
      throw new IllegalArgumentException("replay --force: table " + profile.table() + " appends without a primary"
          + " key, so loading an ingested partition again would append its rows a second time; replay without"
          + " --force loads only the files the ledger has not seen");
    }
    int callsBefore = listing.listCalls();
    Scan scan = PartitionListing.scan(listing, ledger, profile, range);
    progress.accept("listed " + scan.data().size() + " data file(s) in " + range);
    Map<String, List<Found>> byPartition = new TreeMap<>();
    for (Found found : scan.data()) {
      byPartition.computeIfAbsent(found.partition().token(), t -> new ArrayList<>()).add(found);
    }
    TreeSet<String> partitions = new TreeSet<>(byPartition.keySet());
    partitions.addAll(scan.markers().keySet());
    boolean markersRequired = profile.extract().batchFile().successFileFilter();
    List<String> incomplete = new ArrayList<>();
    List<Found> files = new ArrayList<>();
    List<PartitionRef> markers = new ArrayList<>();
    for (String token : partitions) {
      if (markersRequired && !scan.markers().containsKey(token)) {
        incomplete.add(token);
        continue;
      }
      files.addAll(byPartition.getOrDefault(token, List.of()));
      Optional.ofNullable(scan.markers().get(token)).ifPresent(markers::add);
    }
    List<String> reopened = new ArrayList<>();
    List<String> left = new ArrayList<>();
    if (force) {
      List<FileRecord> toReload = new ArrayList<>();
      for (String token : partitions) {
        boolean reopens = !incomplete.contains(token) && ledger.partition(profile.table(), token)
            .filter(p -> REOPENABLE.contains(p.state())).isPresent();
        if (reopens) {
          toReload.addAll(ledger.filesOfPartition(profile.table(), token));
        }
      }
      Optional<String> missing = allowMissing.refusal("replay --force of table " + profile.table() + " " + range,
          AllowMissingOption.deleted(toReload));
      if (missing.isPresent()) {
        throw new IllegalArgumentException(missing.get());
      }
      // Before recording: a changed file recorded first would make the partition READY, and a
      // READY partition is not reopened, so its unchanged files would not load again.
      for (String token : partitions) {
        if (incomplete.contains(token)) {
          continue;
        }
        Optional<PartitionRecord> stored = ledger.partition(profile.table(), token);
        if (stored.isEmpty() || stored.get().state() == PartitionState.READY) {
          continue;
        }
        // INGESTED, and what an operator took out (DROPPED) or held back (HELD): all their files load again.
        if (!REOPENABLE.contains(stored.get().state())) {
          left.add(token + " (" + stored.get().state() + ")");
          continue;
        }
        if (!dryRun) {
          ledger.reopenPartition(profile.table(), token);
        }
        reopened.add(token);
      }
    }
    ListedRecorder.Recorded recorded =
        new ListedRecorder(ledger, profile, EVENT, clock, dryRun).record(files, markers, progress);
    List<String> ready = new ArrayList<>();
    for (String token : partitions) {
      Optional<PartitionState> state = ledger.partition(profile.table(), token).map(PartitionRecord::state);
      boolean loads = dryRun
          ? reopened.contains(token) || byPartition.getOrDefault(token, List.of()).stream()
              .anyMatch(f -> recorded.newFiles().contains(f.object().location().uri()))
              || (recorded.markedReady().contains(token)
                  && state.map(s -> s == PartitionState.OPEN || s == PartitionState.READY).orElse(true))
          : state.equals(Optional.of(PartitionState.READY));
      if (loads) {
        ready.add(token);
      }
    }
    return new Report(profile.table(), range.toString(), listing.listCalls() - callsBefore, scan.data().size(),
        List.copyOf(partitions), incomplete, reopened, left, recorded.newFiles(), recorded.knownFiles(),
        ready, scan.rejected(), dryRun);
  }

  /** An incremental Append table without a key: rows loaded again are rows twice. */
  private static boolean appendsWithoutKey(TableProfile profile) {
    return profile.load().primaryKey().isEmpty() && profile.load().saveMode() == Load.SaveMode.APPEND
        && !profile.extract().batchFile().ingestionType().replacesTable();
  }

  /**
   * The complete partitions' files of the range, for a load without a checkpoint.
   *
   * @throws IllegalArgumentException for an Append table without a primary key (the files' rows
   *     would be appended again, now or when the ledger loads them) and for mode full (every run
   *     loads every file; its batch replaces the table, which a replay of a range would not)
   */
  public List<ManifestFile> listedFiles(TableProfile profile, PartitionRange range) {
    if (appendsWithoutKey(profile)) {
      throw new IllegalArgumentException("replay --no-checkpoint: table " + profile.table() + " appends without a"
          + " primary key, so loading the partitions' files outside the ledger would append their rows a second"
          + " time; replay without --no-checkpoint loads only the files the ledger has not seen");
    }
    Optional<String> notReplayed = profile.extract().batchFile().ingestionType().whyNotReplayed();
    if (notReplayed.isPresent()) {
      throw new IllegalArgumentException("replay --no-checkpoint: table " + profile.table() + " has "
          + notReplayed.get() + "; run it with batch run-once --table");
    }
    return PartitionListing.scan(listing, ledger, profile, range).complete(profile).stream()
        .map(found -> found.manifestFile(EVENT)).toList();
  }
}
