package io.files2iceberg.sparkjob.maintain;

import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.maintain.MaintainReport.Compacted;
import io.files2iceberg.sparkjob.maintain.MaintainRequest.Compaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.ExpireSnapshots;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's maintenance: compaction first (Iceberg's {@code rewrite_data_files}
 * action, binpack: small files, and every data file that has delete files, which a
 * {@code merge-on-read} MERGE writes; the delete files go with them), then snapshot expiry (the {@code expire_snapshots} action, which deletes the files
 * no snapshot left references) bounded by {@link SnapshotProtection}. Compaction commits a
 * {@code replace} snapshot without a batch id; it is a child of the current snapshot, so every
 * batch marker stays in the ancestry and expiry, planned after it, still protects them.
 *
 * <p>A table the catalog does not have yet is skipped ({@link SkippedTable#notCreated}).
 *
 * <p>A dry run computes the same plan and the snapshots Iceberg would expire ({@code
 * ExpireSnapshots.apply()}, which commits nothing) and changes nothing.
 */
final class TableMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(TableMaintenance.class);

  private final SparkSession spark;

  TableMaintenance(SparkSession spark) {
    this.spark = Objects.requireNonNull(spark, "spark");
  }

  /**
   * Maintains the table, or skips it when the catalog does not have it yet: the batch jobs create
   * it on their first load, so a scheduled maintenance over every table of a deployment succeeds
   * before each has data.
   */
  MaintainOutcome run(MaintainRequest request) {
    Optional<Table> table = IcebergTables.find(spark, request.table());
    if (table.isEmpty()) {
      SkippedTable skipped = SkippedTable.notCreated(request.table(), request.dryRun());
      LOG.info("Table {}: skipped, {}: {}", request.table(), skipped.reason(), skipped.detail());
      return skipped;
    }
    return maintain(table.get(), request);
  }

  private MaintainReport maintain(Table table, MaintainRequest request) {
    String name = request.table();
    int before = size(table.snapshots());
    Optional<Compacted> compacted = request.compaction().map(c -> request.dryRun() ? smallFiles(table, c) : compact(table, c));
    table.refresh();
    SnapshotProtection.Plan plan =
        SnapshotProtection.plan(table, request.retentionCutoff(), request.protect(), request.protectNewest());
    plan.protectedSnapshots().forEach(p -> LOG.info("Table {}: protecting snapshot {} of batch {} ({})", name,
        p.snapshotId(), p.batchId(), p.reason()));
    List<Long> expiring = table.expireSnapshots()
        .expireOlderThan(plan.olderThan().toEpochMilli())
        .retainLast(request.retainLast())
        .apply()
        .stream()
        .sorted(Comparator.comparingLong(Snapshot::timestampMillis))
        .map(Snapshot::snapshotId)
        .toList();
    long deleted = 0;
    List<Long> expired = expiring;
    if (!request.dryRun() && !expiring.isEmpty()) {
      deleted = expire(table, plan, request.retainLast());
      table.refresh();
      Map<Long, Boolean> left = new HashMap<>();
      table.snapshots().forEach(s -> left.put(s.snapshotId(), true));
      expired = expiring.stream().filter(id -> !left.containsKey(id)).toList();
    }
    int after = request.dryRun() ? size(table.snapshots()) - expired.size() : size(table.snapshots());
    return new MaintainReport(name, request.dryRun(), request.retentionCutoff(), plan.olderThan(),
        request.retainLast(), plan.protectedSnapshots(), plan.notInTable(), compacted, expired, deleted, before, after);
  }

  private Compacted compact(Table table, Compaction compaction) {
    Long previous = currentId(table);
    RewriteDataFiles.Result result = SparkActions.get(spark).rewriteDataFiles(table)
        .binPack()
        .option(RewriteDataFiles.TARGET_FILE_SIZE_BYTES, Long.toString(compaction.targetFileSizeBytes()))
        .option("min-input-files", Integer.toString(compaction.minInputFiles()))
        // A merge-on-read table (load.write-mode): every data file with a delete file is
        // rewritten with its deletes applied, and the delete files left pointing at nothing go.
        .option(BinPackRewriteFilePlanner.DELETE_FILE_THRESHOLD, "1")
        .option(RewriteDataFiles.REMOVE_DANGLING_DELETES, "true")
        .execute();
    table.refresh();
    if (table.currentSnapshot() != null
        && !"0".equals(table.currentSnapshot().summary().getOrDefault("total-position-deletes", "0"))) {
      // The rewritten files keep their data sequence number, so their old position deletes still
      // look live to Iceberg; rewriting the delete files drops those whose data files are gone.
      SparkActions.get(spark).rewritePositionDeletes(table).option("rewrite-all", "true").execute();
      table.refresh();
    }
    Long current = currentId(table);
    Optional<Long> snapshot = Objects.equals(previous, current) ? Optional.empty() : Optional.ofNullable(current);
    return new Compacted(result.rewrittenDataFilesCount(), result.addedDataFilesCount(), result.rewrittenBytesCount(),
        snapshot);
  }

  /**
   * Dry run: the small files binpack would rewrite, by Iceberg's default selection (an estimate: it
   * leaves out groups Iceberg rewrites for their total size).
   */
  private static Compacted smallFiles(Table table, Compaction compaction) {
    if (table.currentSnapshot() == null) {
      return new Compacted(0, 0, 0, Optional.empty());
    }
    Map<Object, long[]> byPartition = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        if (file.fileSizeInBytes() < compaction.smallFileBytes()) {
          long[] counts = byPartition.computeIfAbsent(List.of(file.specId(), String.valueOf(file.partition())),
              k -> new long[2]);
          counts[0]++;
          counts[1] += file.fileSizeInBytes();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the files of " + table.name(), e);
    }
    long files = 0;
    long bytes = 0;
    for (long[] counts : byPartition.values()) {
      // Binpack never rewrites a lone file for being small (Iceberg rewrites a group of at least
      // min-input-files files, and more than one).
      if (counts[0] >= Math.max(2, compaction.minInputFiles())) {
        files += counts[0];
        bytes += counts[1];
      }
    }
    return new Compacted(files, 0, bytes, Optional.empty());
  }

  private long expire(Table table, SnapshotProtection.Plan plan, int retainLast) {
    ExpireSnapshots.Result result = SparkActions.get(spark).expireSnapshots(table)
        .expireOlderThan(plan.olderThan().toEpochMilli())
        .retainLast(retainLast)
        .execute();
    return result.deletedDataFilesCount() + result.deletedPositionDeleteFilesCount()
        + result.deletedEqualityDeleteFilesCount() + result.deletedManifestsCount() + result.deletedManifestListsCount();
  }

  private static Long currentId(Table table) {
    return table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
  }

  private static int size(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }
}
