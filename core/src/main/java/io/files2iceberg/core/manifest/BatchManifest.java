package io.files2iceberg.core.manifest;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the batcher hands the Spark job: one batch, its resolved table profile and exactly the files
 * to read, in the order that breaks ties. Written as JSON by {@link BatchManifestCodec}.
 *
 * @param version the format version, {@link #CURRENT_VERSION}
 * @param batchId the ledger's batch id; it also marks the Iceberg snapshot
 * @param deployment the deployment's settings; the job opens the ledger they name
 * @param mode the profile's ingestion type for this run
 * @param saveCheckpoint whether the job commits the checkpoint in the ledger (false for backfills
 *     and for mode {@code full})
 */
public record BatchManifest(
    int version,
    String batchId,
    TableProfile profile,
    Deployment deployment,
    IngestionType mode,
    boolean saveCheckpoint,
    Instant createdAt,
    List<ManifestFile> files) {

  /** The format version this build writes: the deployment apart from the profile. */
  public static final int CURRENT_VERSION = 2;

  /** The first format version, still read: the profile carried the deployment's sections. */
  public static final int PROFILE_DEPLOYMENT_VERSION = 1;

  public BatchManifest {
    Objects.requireNonNull(batchId, "batchId");
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(createdAt, "createdAt");
    files = List.copyOf(files);
  }

  /** A manifest of the current version for a batch claimed from the ledger. */
  public static BatchManifest of(
      String batchId,
      TableProfile profile,
      Deployment deployment,
      IngestionType mode,
      boolean saveCheckpoint,
      Instant createdAt,
      List<FileRecord> files) {
    return new BatchManifest(
        CURRENT_VERSION,
        batchId,
        profile,
        deployment,
        mode,
        saveCheckpoint,
        createdAt,
        files.stream().map(ManifestFile::of).toList());
  }

  /** The qualified Iceberg table. */
  public String table() {
    return profile.table();
  }

  /** The event ids of the batch's files, in file order: the checkpoint. */
  public List<String> eventIds() {
    return files.stream().map(ManifestFile::eventId).toList();
  }
}
