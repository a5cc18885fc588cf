package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Command: load one batch. The job's input, and the context every stage after it carries along.
 *
 * @param startedAt when this run began: the batch's ingestion time and the start of its read
 * @param scope what the run caches in the session, released when the batch is done
 * @param loadedBefore files of the batch's partitions that earlier batches loaded and that this
 *     one must write again: an Overwrite of a partition writes its whole live content, not only
 *     the batch's files ({@link PartitionContent}); empty for every other write
 */
public record LoadBatch(SparkSession spark, BatchManifest manifest, Instant startedAt, BatchScope scope,
    List<ManifestFile> loadedBefore) {

  public LoadBatch {
    loadedBefore = List.copyOf(loadedBefore);
  }

  /** A batch that reads its manifest's files only. */
  public LoadBatch(SparkSession spark, BatchManifest manifest, Instant startedAt, BatchScope scope) {
    this(spark, manifest, startedAt, scope, List.of());
  }

  /**
   * What the job reads: the files loaded before (oldest first), then the manifest's files in
   * manifest order, which breaks ties between rows.
   */
  public List<ManifestFile> filesToRead() {
    List<ManifestFile> files = new ArrayList<>(loadedBefore);
    files.addAll(manifest.files());
    return files;
  }

  /** Whether the file is one of the manifest's (and not one an Overwrite reads again). */
  public boolean isBatchFile(ManifestFile file) {
    return !loadedBefore.contains(file);
  }

  public String table() {
    return manifest.table();
  }

  public String batchId() {
    return manifest.batchId();
  }

  public TableProfile profile() {
    return manifest.profile();
  }
}
