package io.files2iceberg.batcher.plan;

import io.files2iceberg.core.ledger.BatchIds;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.batcher.plan.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.plan.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.util.ArrayList;
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

  /** Mode {@code incremental}: the next READY partitions, up to {@code max-batch-size} files. */
  Optional<BatchManifest> claimNext() {
    IngestionType mode = profile.extract().batchFile().ingestionType();
    Optional<BatchRecord> claimed = ledger.claimPartitions(
        new ClaimPartitions(table, profile.extract().maxBatchSize(), deployment.job().leaseTimeout(), true,
            profile.extract().maxBatchBytes().orElse(ClaimWalk.NO_BYTE_CAP)));
    claimed.ifPresent(batch ->
        events.emit(new BatchClaimed(table, batch.batchId(), mode, true, batch.partitions(), batch.fileIds().size())));
    return claimed.map(batch -> manifestOf(batch, mode));
  }

  /** Mode {@code last}: the newest READY partition; the older ones are superseded. */
  Optional<BatchManifest> claimNewest() {
    Optional<NewestPartitionClaimed> claimed =
        ledger.claimNewestPartition(new ClaimNewestPartition(table, deployment.job().leaseTimeout()));
    claimed.ifPresent(c -> {
      BatchRecord batch = c.batch();
      events.emit(new BatchClaimed(table, batch.batchId(), IngestionType.LAST, true, batch.partitions(),
          batch.fileIds().size()));
      if (!c.superseded().isEmpty()) {
        events.emit(new PartitionsSuperseded(table, batch.batchId(), c.superseded()));
      }
    });
    return claimed.map(c -> manifestOf(c.batch(), IngestionType.LAST));
  }

  /**
   * The manifest of a ledger batch being recovered. The ledger does not keep a batch's mode: it
   * is the profile's, and a ledger batch of a profile since switched to full (which has no ledger
   * batches) is loaded incrementally.
   */
  BatchManifest recovered(BatchRecord batch) {
    IngestionType mode = profile.extract().batchFile().ingestionType();
    return manifestOf(batch, mode == IngestionType.FULL ? IngestionType.INCREMENTAL : mode);
  }

  /** The files every listed batch of this turn reads: the profile's path listed from storage. */
  List<ManifestFile> listFiles() {
    return listing.list(profile);
  }

  /**
   * The files of listed batches ({@code save-checkpoint = false}), batch by batch. {@code full}
   * and {@code last} load one batch that replaces the table (for {@code last}, the newest partition
   * only), so {@code max-batch-size} does not apply; an incremental backfill goes in batches of
   * that size.
   */
  List<List<ManifestFile>> listedChunks(IngestionType mode, List<ManifestFile> files) {
    if (mode == IngestionType.LAST && !files.isEmpty()) {
      String newest = files.get(files.size() - 1).partition();
      files = files.stream().filter(f -> f.partition().equals(newest)).toList();
    }
    int size = mode == IngestionType.INCREMENTAL ? profile.extract().maxBatchSize() : files.size();
    List<List<ManifestFile>> chunks = new ArrayList<>();
    for (int from = 0; from < files.size(); from += size) {
      chunks.add(files.subList(from, Math.min(files.size(), from + size)));
    }
    return chunks;
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
    return BatchIds.of(mode == IngestionType.INCREMENTAL ? "backfill" : mode.code(), clock.instant());
  }
}
