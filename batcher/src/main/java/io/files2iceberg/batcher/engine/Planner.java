package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.ledger.BatchIds;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.BatchFile.IngestionType.ClaimLimits;
import io.files2iceberg.core.profile.BatchFile.IngestionType.Claimed;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Plans one table's batches: claims in the ledger, by mode ({@code incremental} claims READY
 * partitions, oldest first, up to {@code max-batch-size} files; {@code last} claims the newest
 * READY partition whole and supersedes the older ones), or files listed from storage into batches
 * the ledger never sees (mode {@code full}, and any mode with {@code save-checkpoint = false});
 * and the manifest of each batch.
 */
final class Planner {

  private final Ledger ledger;
  private final TableProfile profile;
  private final Deployment deployment;
  private final String table;
  private final StorageListing listing;
  private final Clock clock;
  private final RunEvents events;

  Planner(Ledger ledger, TableProfile profile, Deployment deployment, StorageListing listing, Clock clock,
      RunEvents events) {
    this.ledger = ledger;
    this.profile = profile;
    this.deployment = deployment;
    this.table = profile.table();
    this.listing = listing;
    this.clock = clock;
    this.events = events;
  }

  /**
   * The table's next batch claimed in the ledger, as its mode claims ({@link IngestionType#claim}):
   * the next READY partitions up to {@code max-batch-size} files, or ({@code last}) the newest READY
   * partition, the older ones superseded.
   */
  Optional<BatchManifest> claimNext() {
    IngestionType mode = profile.extract().batchFile().ingestionType();
    Optional<Claimed> claimed = mode.claim(ledger, ClaimLimits.of(profile, deployment.job().leaseTimeout()));
    claimed.ifPresent(c -> {
      BatchRecord batch = c.batch();
      events.emit(new BatchClaimed(table, batch.batchId(), mode, true, batch.partitions(), batch.fileIds().size()));
      if (!c.superseded().isEmpty()) {
        events.emit(new PartitionsSuperseded(table, batch.batchId(), c.superseded()));
      }
    });
    return claimed.map(c -> manifestOf(c.batch(), mode));
  }

  /**
   * The manifest of a ledger batch being recovered. The ledger does not keep a batch's mode: it
   * is the profile's, as {@link IngestionType#recoveredAs()} gives it.
   */
  BatchManifest recovered(BatchRecord batch) {
    return manifestOf(batch, profile.extract().batchFile().ingestionType().recoveredAs());
  }

  /** The files every listed batch of this turn reads: the profile's path listed from storage. */
  List<ManifestFile> listFiles() {
    return listing.list(profile);
  }

  /**
   * The files of listed batches ({@code save-checkpoint = false}), batch by batch, as the mode
   * chunks them ({@link IngestionType#listedChunks}).
   */
  List<List<ManifestFile>> listedChunks(IngestionType mode, List<ManifestFile> files) {
    return mode.listedChunks(files, profile.extract().maxBatchSize());
  }

  /** A listed batch of the files, named and dated now. */
  BatchManifest listed(IngestionType mode, List<ManifestFile> files) {
    return new BatchManifest(BatchManifest.CURRENT_VERSION, listedBatchId(mode), profile, deployment, mode, false, clock.instant(),
        files);
  }

  private BatchManifest manifestOf(BatchRecord batch, IngestionType mode) {
    return BatchManifest.of(batch.batchId(), profile, deployment, mode, true, batch.createdAt(),
        ledger.filesOfBatch(batch.batchId()));
  }

  /** {@code full-20261130T120000-1a2b3c4d}, {@code backfill-...}: sortable, and unique per run. */
  private String listedBatchId(IngestionType mode) {
    return BatchIds.of(mode.listedBatchPrefix(), clock.instant());
  }
}
