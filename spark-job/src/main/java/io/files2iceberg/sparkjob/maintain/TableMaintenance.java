package io.files2iceberg.sparkjob.maintain;

import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.maintain.MaintainReport.OrphansRemoved;
import io.files2iceberg.sparkjob.maintain.MaintainReport.Rewritten;
import io.files2iceberg.sparkjob.maintain.MaintainReport.SortOutcome;
import io.files2iceberg.sparkjob.maintain.MaintainReport.SortSkipped;
import io.files2iceberg.sparkjob.maintain.MaintainReport.Sorted;
import io.files2iceberg.sparkjob.maintain.MaintainRequest.Compaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.DeleteOrphanFiles;
import org.apache.iceberg.actions.ExpireSnapshots;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewriteManifests;
import org.apache.iceberg.actions.RewritePositionDeleteFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.actions.SparkActions;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's maintenance, each action asked for in this order:
 *
 * <ol>
 *   <li>the rewrite of data files (Iceberg's {@code rewrite_data_files}): in the table's order with
 *       {@code --sort} ({@link SortChoice}), else binpack with {@code --compact}. Either takes small
 *       files and every data file that has delete files, which a {@code merge-on-read} MERGE writes;
 *       the delete files go with them.
 *   <li>{@code rewrite_position_delete_files}: the position delete files, merged per partition and
 *       without the deletes of files that are gone.
 *   <li>{@code rewrite_manifests}: the data manifests, regrouped by partition.
 *   <li>snapshot expiry ({@code expire_snapshots}, which deletes the files no snapshot left
 *       references), bounded by {@link SnapshotProtection}.
 *   <li>{@code remove_orphan_files} under the table's location, only of files older than the
 *       request's orphan cutoff (at least a day: a batch's job writes its files before it commits them).
 * </ol>
 *
 * <p>Every rewrite commits a {@code replace} snapshot without a batch id that is a child of the
 * current snapshot, so every batch marker stays in the ancestry the job walks ({@code
 * CommitMarker.find}), and expiry, planned after the rewrites, still protects them. Each commit
 * is atomic (no partial progress): a run killed in any action leaves the table as its last commit
 * left it, with at most some unreferenced files (which orphan removal deletes once they are old
 * enough), and the next run starts over from there.
 *
 * <p>A table the catalog does not have yet is skipped ({@link SkippedTable#notCreated}).
 *
 * <p>A dry run computes the same plan, the snapshots Iceberg would expire ({@code
 * ExpireSnapshots.apply()}, which commits nothing), the orphan files Iceberg finds (deleting none),
 * estimates what each rewrite would take, and changes nothing.
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
    boolean dry = request.dryRun();
    int before = size(table.snapshots());
    Optional<SortOutcome> sort = request.sort().map(sizing -> sort(table, request, sizing));
    boolean sorted = sort.filter(Sorted.class::isInstance).isPresent();
    Optional<Rewritten> compacted = request.compaction().filter(c -> !sorted).map(c -> {
      LOG.info("Table {}: compacting (binpack)", name);
      return dry ? smallFiles(table, c) : rewrite(table, SparkActions.get(spark).rewriteDataFiles(table).binPack(), c);
    });
    Optional<Rewritten> deletes = Optional.empty();
    if (request.positionDeletes().isPresent()) {
      LOG.info("Table {}: rewriting position delete files", name);
      int minInputFiles = request.positionDeletes().get().minInputFiles();
      deletes = Optional.of(dry ? positionDeleteFiles(table, minInputFiles) : rewritePositionDeletes(table, minInputFiles));
    }
    Optional<Rewritten> manifests = Optional.empty();
    if (request.rewriteManifests()) {
      LOG.info("Table {}: rewriting manifests", name);
      manifests = Optional.of(dry ? dataManifests(table) : rewriteManifests(table));
    }
    table.refresh();
    SnapshotProtection.Plan plan =
        SnapshotProtection.plan(table, request.retentionCutoff(), request.protect(), request.protectNewest());
    plan.protectedSnapshots().forEach(p -> LOG.info("Table {}: protecting snapshot {} of batch {} ({})", name,
        p.snapshotId(), p.batchId(), p.reason()));
    LOG.info("Table {}: expiring snapshots older than {}", name, plan.olderThan());
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
    if (!dry && !expiring.isEmpty()) {
      deleted = expire(table, plan, request.retainLast());
      table.refresh();
      Map<Long, Boolean> left = new HashMap<>();
      table.snapshots().forEach(s -> left.put(s.snapshotId(), true));
      expired = expiring.stream().filter(id -> !left.containsKey(id)).toList();
    }
    int after = dry ? size(table.snapshots()) - expired.size() : size(table.snapshots());
    Optional<OrphansRemoved> orphans = request.orphansOlderThan().map(cutoff -> removeOrphans(table, cutoff, dry));
    return new MaintainReport(name, dry, request.retentionCutoff(), plan.olderThan(), request.retainLast(),
        plan.protectedSnapshots(), plan.notInTable(), compacted, sort, deletes, manifests, expired, deleted, before,
        after, orphans);
  }

  /** {@code --sort}: the rewrite in the order {@link SortChoice} finds, or why there is none. */
  private SortOutcome sort(Table table, MaintainRequest request, Compaction sizing) {
    Optional<SortChoice> choice;
    try {
      choice = SortChoice.of(request.profile(), table);
    } catch (IllegalArgumentException e) {
      LOG.warn("Table {}: sort skipped: {}", request.table(), e.getMessage());
      return new SortSkipped(e.getMessage());
    }
    if (choice.isEmpty()) {
      SortSkipped skipped = new SortSkipped(SortChoice.noOrder(request.table()));
      LOG.warn("Table {}: sort skipped: {}", request.table(), skipped.reason());
      return skipped;
    }
    SortChoice order = choice.get();
    LOG.info("Table {}: sorting by {} ({})", request.table(), order.description(), order.from());
    Rewritten rewritten = request.dryRun() ? smallFiles(table, sizing)
        : rewrite(table, order.apply(SparkActions.get(spark).rewriteDataFiles(table)), sizing);
    return new Sorted(order.description(), order.from(), rewritten);
  }

  /** {@code rewrite_data_files} with the strategy set on {@code action}, sized by {@code sizing}. */
  private Rewritten rewrite(Table table, RewriteDataFiles action, Compaction sizing) {
    Long previous = currentId(table);
    RewriteDataFiles.Result result = action
        .option(RewriteDataFiles.TARGET_FILE_SIZE_BYTES, Long.toString(sizing.targetFileSizeBytes()))
        .option("min-input-files", Integer.toString(sizing.minInputFiles()))
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
    return new Rewritten(result.rewrittenDataFilesCount(), result.addedDataFilesCount(), result.rewrittenBytesCount(),
        committed(table, previous));
  }

  /**
   * Iceberg's selection: a partition's delete files once it has {@code minInputFiles} of them (or
   * one too large), so a table with a delete file per partition is left as it is, and a run with
   * nothing to merge commits nothing.
   */
  private Rewritten rewritePositionDeletes(Table table, int minInputFiles) {
    Long previous = currentId(table);
    RewritePositionDeleteFiles.Result result = SparkActions.get(spark).rewritePositionDeletes(table)
        .option("min-input-files", Integer.toString(minInputFiles))
        .execute();
    table.refresh();
    return new Rewritten(result.rewrittenDeleteFilesCount(), result.addedDeleteFilesCount(),
        result.rewrittenBytesCount(), committed(table, previous));
  }

  private Rewritten rewriteManifests(Table table) {
    Long previous = currentId(table);
    RewriteManifests.Result result = SparkActions.get(spark).rewriteManifests(table).execute();
    table.refresh();
    long rewritten = 0;
    long bytes = 0;
    for (ManifestFile manifest : result.rewrittenManifests()) {
      rewritten++;
      bytes += manifest.length();
    }
    return new Rewritten(rewritten, size(result.addedManifests()), bytes, committed(table, previous));
  }

  /**
   * {@code remove_orphan_files} under the table's own location only: a location at the root of a
   * bucket or file system would take every other table's files there for orphans, so it is refused.
   */
  private OrphansRemoved removeOrphans(Table table, Instant olderThan, boolean dryRun) {
    String location = table.location();
    if (new org.apache.hadoop.fs.Path(location).depth() == 0) {
      throw new IllegalStateException("Table " + table.name() + ": orphan files are not removed under " + location
          + ", a root that may hold other tables' files; give the table a location of its own");
    }
    LOG.info("Table {}: {} files under {} no snapshot references, older than {}", table.name(),
        dryRun ? "listing" : "removing", location, olderThan);
    DeleteOrphanFiles action = SparkActions.get(spark).deleteOrphanFiles(table)
        .location(location)
        .olderThan(olderThan.toEpochMilli());
    if (dryRun) {
      action = action.deleteWith(file -> { });
    }
    List<String> listed = new ArrayList<>();
    long count = 0;
    for (String file : action.execute().orphanFileLocations()) {
      count++;
      if (listed.size() < MaintainReport.ORPHANS_LISTED) {
        listed.add(file);
      }
    }
    return new OrphansRemoved(olderThan, count, listed);
  }

  /**
   * Dry run: the small files binpack would rewrite, by Iceberg's default selection (an estimate: it
   * leaves out groups Iceberg rewrites for their total size).
   */
  private static Rewritten smallFiles(Table table, Compaction compaction) {
    if (table.currentSnapshot() == null) {
      return new Rewritten(0, 0, 0, Optional.empty());
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
    return new Rewritten(files, 0, bytes, Optional.empty());
  }

  /**
   * Dry run: the position delete files of the partitions that have at least {@code minInputFiles}
   * of them (an estimate: Iceberg also rewrites a lone file that is too large).
   */
  private static Rewritten positionDeleteFiles(Table table, int minInputFiles) {
    if (table.currentSnapshot() == null) {
      return new Rewritten(0, 0, 0, Optional.empty());
    }
    Map<Object, Map<String, Long>> byPartition = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        task.deletes().stream().filter(d -> d.content() == FileContent.POSITION_DELETES)
            .forEach(d -> byPartition.computeIfAbsent(List.of(d.specId(), String.valueOf(d.partition())),
                k -> new HashMap<>()).put(d.location(), d.fileSizeInBytes()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the files of " + table.name(), e);
    }
    long files = 0;
    long bytes = 0;
    for (Map<String, Long> partition : byPartition.values()) {
      if (partition.size() >= minInputFiles) {
        files += partition.size();
        bytes += partition.values().stream().mapToLong(Long::longValue).sum();
      }
    }
    return new Rewritten(files, 0, bytes, Optional.empty());
  }

  /** Dry run: the data manifests of the current snapshot. */
  private static Rewritten dataManifests(Table table) {
    if (table.currentSnapshot() == null) {
      return new Rewritten(0, 0, 0, Optional.empty());
    }
    List<ManifestFile> manifests = table.currentSnapshot().dataManifests(table.io());
    return new Rewritten(manifests.size(), 0, manifests.stream().mapToLong(ManifestFile::length).sum(),
        Optional.empty());
  }

  /** The snapshot an action committed: none when the current snapshot is still {@code previous}. */
  private static Optional<Long> committed(Table table, Long previous) {
    Long current = currentId(table);
    return Objects.equals(previous, current) ? Optional.empty() : Optional.ofNullable(current);
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
