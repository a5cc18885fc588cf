package io.files2iceberg.batcher.maintain;

import com.google.api.gax.paging.Page;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.batcher.engine.ManifestStore;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.storage.GcsUri;
import io.files2iceberg.core.storage.StorageClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code maintain}'s pruning of the files batches leave behind, which nothing else deletes: in
 * {@code <metadata.path>/batches/} ({@link ManifestStore#folder}) each batch's manifest {@code
 * <batchId>.json} and its attempts' results {@code <batchId>-attempt<N>.result.json}, and in the
 * local launcher's log folder ({@link LocalSparkLauncher#logFolder}) each attempt's {@code .log}
 * and {@code .pid}. Only files with exactly those names are ever deleted; anything else in the
 * folders (temp files, other names, sub-folders) is left alone.
 *
 * <p>A batch's files go once the batch is settled for good and its last change is before the
 * cutoff ({@link #isSettledBefore}): COMMITTED in the ledger with its {@code updatedAt} before the
 * cutoff, or no longer in the ledger at all (pruned after its commit, or a {@code full} or {@code
 * backfill} load the ledger never held) with every one of its files last written before it. A
 * PLANNED, RUNNING or FAILED batch keeps its files whatever their age: recovery reads the latest
 * attempt's result before relaunching, {@code retry} revives a FAILED batch under its own id, and
 * {@code inspect} shows its attempts.
 *
 * <p>What {@link MaintenanceGuard} protects needs none of these files: it keeps snapshots (the
 * batch-id markers a re-run's snapshot walk looks for in the table), not manifests. The COMMITTED
 * batches the ledger still keeps ({@code extract.keep-checkpoints}) are never launched again, and
 * every launch, a relaunch of a recovered or revived batch included, writes its manifest anew from
 * the ledger before the job reads it ({@code Launch.start}). So a kept COMMITTED batch's files go by
 * age like any other settled batch's; {@code inspect} of such a batch then lists its attempts
 * without their results.
 *
 * <p>On {@code gs://}, each object is deleted with its listed generation as a precondition, so an
 * object written again since the listing is not deleted. A file that cannot be deleted is
 * reported with its location and the others are still tried.
 */
public final class BatchFilePruning {
  /** {@code BatchIds}' format: {@code [kind-]yyyyMMdd'T'HHmmss-8hex}. */
  private static final String BATCH_ID = "(?:[a-z]+-)?[0-9]{8}T[0-9]{6}-[0-9a-f]{8}";
  private static final String ATTEMPT = "-attempt[1-9][0-9]*";
  /** In {@code batches/}: the manifest, or an attempt's result. */
  static final Pattern BESIDE_MANIFEST = Pattern.compile("(" + BATCH_ID + ")(?:\\.json|" + ATTEMPT + "\\.result\\.json)");
  /** In the log folder: an attempt's log or pid file. */
  static final Pattern IN_LOG_FOLDER = Pattern.compile("(" + BATCH_ID + ")" + ATTEMPT + "\\.(?:log|pid)");

  /**
   * What pruning did on one table.
   *
   * @param settledBefore the cutoff: batches whose last change is before it lost their files
   * @param deleted the files deleted (on a dry run, the files that would have been)
   * @param failed each file (or folder, or the ledger) that could not be deleted (listed, read), with why
   */
  public record Pruned(String table, boolean dryRun, Instant settledBefore, int deleted, Map<String, String> failed) {
    public Pruned {
      failed = Collections.unmodifiableMap(new LinkedHashMap<>(failed));
    }
  }

  /** A file of a batch as listed: where it is, when it was last written, its GCS generation (0 locally). */
  record Found(String batchId, String location, Instant updated, long generation) {}

  private BatchFilePruning() {}

  /**
   * Whether the files of a batch may go: settled for good ({@code COMMITTED}, or not in the ledger)
   * and last changed before the cutoff.
   *
   * @param batch the ledger's record, empty when the ledger no longer (or never) held the batch
   * @param lastWritten when the newest of the batch's files was last written: the last change of a
   *     batch the ledger does not hold
   */
  static boolean isSettledBefore(Optional<BatchRecord> batch, Instant lastWritten, Instant cutoff) {
    if (batch.isEmpty()) {
      return lastWritten.isBefore(cutoff);
    }
    return batch.get().state() == BatchState.COMMITTED && batch.get().updatedAt().isBefore(cutoff);
  }

  /**
   * Deletes the files of the table's batches settled before {@code cutoff}; with {@code dryRun},
   * only counts them. Never throws for a file, a folder or the ledger: each failure is in the result.
   *
   * @param fallbackLogs where the local launcher logs a profile whose metadata path is not local
   * @param storage the deployment's {@code storage.*}, for a {@code gs://} metadata path
   */
  public static Pruned prune(Ledger ledger, TableProfile profile, Path fallbackLogs, StorageSettings storage,
      Instant cutoff, boolean dryRun) {
    Map<String, String> failed = new LinkedHashMap<>();
    Map<String, List<Found>> byBatch = new TreeMap<>();
    String batches = ManifestStore.folder(profile);
    List<Found> found = new ArrayList<>();
    try {
      found.addAll(GcsUri.is(batches) ? listGcs(StorageClients.shared(storage), GcsUri.folder(batches))
          : listLocal(Path.of(batches), BESIDE_MANIFEST));
    } catch (IOException | RuntimeException e) {
      failed.put(batches, "cannot list: " + e.getMessage());
    }
    Path logs = LocalSparkLauncher.logFolder(profile, fallbackLogs);
    try {
      found.addAll(listLocal(logs, IN_LOG_FOLDER));
    } catch (IOException | RuntimeException e) {
      failed.put(logs.toString(), "cannot list: " + e.getMessage());
    }
    found.forEach(file -> byBatch.computeIfAbsent(file.batchId(), id -> new ArrayList<>()).add(file));
    int deleted = 0;
    for (Map.Entry<String, List<Found>> batch : byBatch.entrySet()) {
      Optional<BatchRecord> record;
      try {
        record = ledger.batch(batch.getKey());
      } catch (LedgerUnavailableException e) {
        // The ledger cannot say which batches are settled: nothing more is deleted this run.
        failed.put("the ledger", "cannot read batch " + batch.getKey() + ": " + e.getMessage());
        break;
      }
      Instant lastWritten = batch.getValue().stream().map(Found::updated).max(Comparator.naturalOrder())
          .orElseThrow();
      if (!isSettledBefore(record, lastWritten, cutoff)) {
        continue;
      }
      for (Found file : batch.getValue()) {
        if (dryRun) {
          deleted++;
          continue;
        }
        try {
          if (delete(file, storage)) {
            deleted++;
          }
        } catch (IOException | RuntimeException e) {
          failed.put(file.location(), "cannot delete: " + e.getMessage());
        }
      }
    }
    return new Pruned(profile.table(), dryRun, cutoff, deleted, failed);
  }

  /** The batch files directly in a local folder; none when it does not exist. */
  private static List<Found> listLocal(Path folder, Pattern names) throws IOException {
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    List<Found> found = new ArrayList<>();
    try (Stream<Path> children = Files.list(folder)) {
      for (Path path : (Iterable<Path>) children::iterator) {
        Matcher name = names.matcher(path.getFileName().toString());
        if (!name.matches()) {
          continue;
        }
        BasicFileAttributes attributes;
        try {
          attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue;
        }
        if (attributes.isRegularFile()) {
          found.add(new Found(name.group(1), path.toString(), attributes.lastModifiedTime().toInstant(), 0));
        }
      }
    }
    return found;
  }

  /** The batch objects directly in a {@code gs://} folder, each with its live generation and update time. */
  private static List<Found> listGcs(Storage storage, GcsUri folder) {
    List<Found> found = new ArrayList<>();
    Page<Blob> page = storage.list(folder.bucket(), Storage.BlobListOption.prefix(folder.path()),
        Storage.BlobListOption.currentDirectory());
    while (page != null) {
      for (Blob blob : page.getValues()) {
        Matcher name = BESIDE_MANIFEST.matcher(blob.getName().substring(folder.path().length()));
        if (blob.isDirectory() || blob.getGeneration() == null || !name.matches()) {
          continue;
        }
        // An object without an update time counts as written now: kept.
        Instant updated = blob.getUpdateTimeOffsetDateTime() != null
            ? blob.getUpdateTimeOffsetDateTime().toInstant() : Instant.MAX;
        found.add(new Found(name.group(1), new GcsUri(folder.bucket(), blob.getName()).toString(), updated,
            blob.getGeneration()));
      }
      page = page.hasNextPage() ? page.getNextPage() : null;
    }
    return found;
  }

  /**
   * Deletes one file; false when it was gone already or, on {@code gs://}, written again since it
   * was listed (its generation no longer matches: a new object, not this batch's, is kept).
   */
  static boolean delete(Found file, StorageSettings storage) throws IOException {
    if (!GcsUri.is(file.location())) {
      return Files.deleteIfExists(Path.of(file.location()));
    }
    GcsUri object = GcsUri.parse(file.location());
    try {
      return StorageClients.shared(storage).delete(BlobId.of(object.bucket(), object.path()),
          Storage.BlobSourceOption.generationMatch(file.generation()));
    } catch (StorageException e) {
      if (e.getCode() == 412) {
        return false;
      }
      throw e;
    }
  }
}
