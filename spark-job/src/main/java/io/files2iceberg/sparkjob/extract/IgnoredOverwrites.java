package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Extract.OnOverwrite;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code extract.on-overwrite = ignore}: a file of the batch whose object (same bucket and name)
 * has another generation INGESTED is a rewrite of loaded data; it is left out and marked IGNORED
 * with the reason. Decided here, when the batch is read, and not by the listener: only now is it
 * known that the older generation was loaded (and not SUPERSEDED, which would leave the rows
 * nowhere). Without a ledger (a listed batch) nothing is known about older generations, and
 * nothing is left out.
 */
public final class IgnoredOverwrites {
  private static final Logger LOG = LoggerFactory.getLogger(IgnoredOverwrites.class);

  private final OnOverwrite policy;
  private final Optional<Ledger> ledger;

  public IgnoredOverwrites(OnOverwrite policy, Optional<Ledger> ledger) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
  }

  /** Loads every file: {@code reload}, or no ledger to ask. */
  public static IgnoredOverwrites none() {
    return new IgnoredOverwrites(OnOverwrite.RELOAD, Optional.empty());
  }

  /** Whether the file is left out; if so, the ledger has it IGNORED with the reason. */
  public boolean isIgnored(LoadBatch batch, ManifestFile file) {
    if (policy != OnOverwrite.IGNORE || ledger.isEmpty()) {
      return false;
    }
    Ledger l = ledger.get();
    Optional<FileRecord> record = l.file(file.fileId());
    if (record.isEmpty()) {
      return false;
    }
    Optional<FileRecord> loaded = l.filesNamed(record.get().bucket(), record.get().name()).stream()
        .filter(other -> other.generation() != file.generation() && other.state() == FileState.INGESTED)
        .reduce((first, second) -> second);
    if (loaded.isEmpty()) {
      return false;
    }
    String reason = "generation " + loaded.get().generation() + " of the object is INGESTED"
        + " (extract.on-overwrite = ignore)";
    LOG.info("Table {} batch {}: generation {} of {} is IGNORED: {}", batch.table(), batch.batchId(),
        file.generation(), file.uri(), reason);
    l.ignoreFile(file.fileId(), reason);
    return true;
  }
}
