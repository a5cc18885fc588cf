package io.files2iceberg.sparkjob;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.InvalidManifestException;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the job checks in and records to the ledger about its batch, besides the checkpoint. */
final class JobLedger {
  /** The job's logger: these lines are the job's. */
  private static final Logger LOG = LoggerFactory.getLogger(BatchJob.class);

  private JobLedger() {}

  /**
   * The ledger must know the batch, with exactly the manifest's files, and must not have given up
   * on it; otherwise writing would commit rows no checkpoint can ever account for.
   */
  static void requireBatch(Ledger ledger, BatchManifest manifest) {
    BatchRecord batch = ledger.batch(manifest.batchId()).orElseThrow(() -> new InvalidManifestException(
        "Invalid manifest of batch " + manifest.batchId() + ": the ledger has no such batch"));
    List<String> manifestFiles = manifest.files().stream().map(ManifestFile::fileId).toList();
    if (!batch.fileIds().equals(manifestFiles)) {
      throw new InvalidManifestException("Invalid manifest of batch " + manifest.batchId() + ": files "
          + manifestFiles + " are not the ledger's " + batch.fileIds());
    }
    if (batch.state() == BatchState.FAILED) {
      throw new BatchFailedException("the ledger has the batch FAILED (" + batch.error().orElse("no error recorded")
          + "); it is not loaded again");
    }
  }

  /** Records an unreadable file; a file already QUARANTINED (an earlier run) stays as it is. */
  static void quarantine(Ledger ledger, BatchManifest manifest, QuarantinedFile file) {
    Optional<FileRecord> stored = ledger.file(file.fileId());
    if (stored.isPresent() && stored.get().state() == FileState.QUARANTINED) {
      return;
    }
    ledger.quarantineFile(file.fileId(), file.reason());
    LOG.warn("Table {} batch {}: file {} QUARANTINED: {}", manifest.table(), manifest.batchId(), file.uri(),
        file.reason());
  }
}
