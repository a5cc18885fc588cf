package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an Overwrite of a partition (and a batch of mode {@code last}, which replaces the table
 * with its partition) must write: the partition's whole live content, not only the batch's files. A partition is loaded in more than one batch whenever a late file re-opens it or
 * {@code max-batch-size} splits it; replacing it with the later batch's files alone would delete
 * the rows of the files loaded before. So such a batch also reads, from the ledger, every file of
 * its partitions that an earlier batch loaded (INGESTED): the live content is those files plus the
 * batch's own, with one generation per object (the newest; an older one is gone from storage).
 * Quarantined, superseded and ignored files are not live.
 *
 * <p>Claims are exclusive per table, so no other batch changes these partitions while this one
 * runs.
 */
public final class PartitionContent {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionContent.class);

  private PartitionContent() {}

  /**
   * The files of the batch's partitions loaded by earlier batches, partition by partition in the
   * ledger's order (URI, then generation); empty unless the batch overwrites its partitions, or
   * without a ledger (a backfill lists each partition whole).
   */
  public static List<ManifestFile> loadedBefore(BatchManifest manifest, Optional<Ledger> ledger) {
    if (ledger.isEmpty() || !IcebergLoad.overwritesPartitions(manifest.profile().load(), manifest.mode())) {
      return List.of();
    }
    Set<String> partitions = new LinkedHashSet<>();
    Set<String> inBatch = new LinkedHashSet<>();
    for (ManifestFile file : manifest.files()) {
      partitions.add(file.partition());
      inBatch.add(file.fileId());
    }
    List<ManifestFile> loaded = new ArrayList<>();
    for (String partition : partitions) {
      List<FileRecord> loadedFiles = ledger.get().filesOfPartition(manifest.table(), partition).stream()
          .filter(file -> file.state() == FileState.INGESTED && !inBatch.contains(file.fileId()))
          .toList();
      // Their rows are in the partition the batch rewrites whole: one whose object landing cleanup
      // deleted cannot be read again, and leaving it out would drop its rows without a word.
      List<String> deleted = loadedFiles.stream()
          .filter(file -> file.cleaned().filter(c -> c.action() == CleanedObject.Action.DELETED).isPresent())
          .map(FileRecord::uri)
          .toList();
      if (!deleted.isEmpty()) {
        throw new BatchFailedException("load.save-mode = Overwrite rewrites partition " + partition + " whole, but"
            + " landing cleanup deleted the object(s) of " + deleted.size() + " file(s) loaded before, whose rows"
            + " cannot be read again: " + String.join(", ", deleted) + "; nothing was committed (a table whose"
            + " partitions are overwritten needs load.after-ingest.action = move or keep)");
      }
      // An archived one is read from its archive (ManifestFile.of).
      List<ManifestFile> again = loadedFiles.stream().map(ManifestFile::of).toList();
      if (!again.isEmpty()) {
        LOG.info("Table {} batch {}: Overwrite of partition {} also reads the {} file(s) loaded before: {}",
            manifest.table(), manifest.batchId(), partition, again.size(),
            again.stream().map(ManifestFile::uri).toList());
      }
      loaded.addAll(again);
    }
    return loaded;
  }
}
