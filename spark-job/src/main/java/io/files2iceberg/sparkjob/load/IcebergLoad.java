package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Load;
import io.files2iceberg.core.profile.Load.Cdc;
import io.files2iceberg.core.profile.Load.MissingColumns;
import io.files2iceberg.core.profile.Load.SaveMode;
import io.files2iceberg.core.profile.Load.SnapshotDeletes;
import io.files2iceberg.sparkjob.catalog.CommitDurations;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.extract.GenerationCheck;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.Loaded;
import io.files2iceberg.sparkjob.stage.Sink;
import io.files2iceberg.sparkjob.transform.CdcDeletes;
import io.files2iceberg.sparkjob.transform.TransformedBatch;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the batch's rows into the Iceberg table, exactly once.
 *
 * <p>The order of the steps is the protocol:
 *
 * <ol>
 *   <li>If the current snapshot's ancestry carries this batch id, nothing is written: the rows
 *       are there already ({@link IcebergCommitted#alreadyCommitted()}).
 *   <li>The table is created on first use (format version 2, {@code load.partition-by}, {@code
 *       load.iceberg.table-properties}), else its schema is brought up to the batch's columns
 *       ({@link TableSchemaSync}). Both are metadata commits without rows. Before them, a batch
 *       that adds columns, deletes the keys its snapshot lacks or overwrites the table in mode
 *       {@code full} tags the current snapshot ({@link UndoTag}), once.
 *   <li>With a primary key, one row per key is kept: the highest {@code precombine-field}, then
 *       the highest object generation, then the last file in the manifest, then the last row in
 *       the file ({@link RowsToWrite}).
 *   <li>One write ({@link BatchWrite}), whose snapshot summary carries {@value CommitMarker#BATCH_ID}
 *       and {@value CommitMarker#EVENT_DIGEST}:
 *       <ul>
 *         <li>key, mode incremental: {@code MERGE INTO} on the key; a stored row is updated only
 *             when the incoming precombine value is {@code >=} the stored one (or the stored one is
 *             NULL), so replaying old data never overwrites newer rows. When the key holds the
 *             partition spec's source columns ({@code load.merge-scope}), the {@code ON} clause
 *             also restricts the stored rows to the batch's values of them ({@link SourceSide}),
 *             so files of other partitions are neither read nor rewritten. {@code load.write-mode}
 *             sets the table's {@code write.merge.mode} first ({@link WriteModeProperties}).
 *             With {@code load.cdc}, a chosen row that is a delete deletes the stored row under
 *             the same precombine condition and inserts nothing; with a precombine field the
 *             deletes are first committed to the tombstone table ({@link Tombstones}), and rows
 *             older than a tombstone of their key are left out;
 *         <li>key, mode last or full: the whole table is replaced by the batch's rows; with {@code
 *             load.snapshot-deletes}, the batch's rows are MERGEd as above and the stored rows whose
 *             key they lack are deleted ({@code WHEN NOT MATCHED BY SOURCE}), within the whole
 *             table or, with {@code load.merge-scope = partitions}, the batch's partitions. Those
 *             rows are counted first ({@link AbsentKeys}); more than {@code
 *             load.snapshot-deletes-max-fraction} of the rows in scope fail the batch before any
 *             commit; a batch that did not read every file of its snapshot (quarantined, or a
 *             generation gone), or whose partition an aggregate of {@code quality.expectations}
 *             rejected or dropped, deletes nothing; the keys whose rows a check rejected or dropped
 *             keep their stored rows ({@link HeldBackKeys});
 *         <li>no key: {@code Append}, or {@code Overwrite} of the batch's partitions (incremental;
 *             dynamic partition overwrite) or of the whole table (last, full).
 *       </ul>
 *       Rows are written with the table's columns: a column the row's file lacks is NULL on
 *       insert; on a MERGE update it keeps the stored value ({@code load.missing-columns =
 *       keep}, the default) or becomes NULL ({@code null}: the update replaces the whole row).
 *   <li>A batch with no rows to write commits an empty snapshot carrying the marker, and deletes
 *       nothing, whatever the mode; with {@code load.snapshot-deletes} it deletes every stored row
 *       in scope, which only {@code load.snapshot-deletes-max-fraction = 1.0} allows.
 * </ol>
 *
 * <p>The counts ({@link WriteCounts}) come from the write itself: the rows written are counted on
 * the source side, once, and the commit's snapshot summary says what the table gained. A MERGE
 * deletes only the rows its {@code load.cdc} deletes match, counted by the join below, and the
 * stored rows whose key a snapshot lacks, counted by {@link AbsentKeys}, so its inserts are the
 * records it added net of those it deleted (a rewritten file's copies, position deletes) plus
 * those deleted rows; with merge-on-read its updates are its position deletes less its deletes; with
 * copy-on-write they are the other matched rows, all of them without a precombine field, else
 * those not older than the stored row, from one join of the rows against the stored keys of the
 * MERGE's own scope (a copy-on-write commit cannot tell an updated row from a copied one, and
 * Spark 3.5's {@code MergeRowsExec} reports no row counts); the same join splits matched deletes
 * from updates in both write modes. Unchanged rows are the rest.
 *
 * <p>Every commit's summary also says what it changed ({@link ChangeSummary}): the batch's
 * partitions, bounded, and its row counts, or for a MERGE the parts of them known before it
 * commits, so that the change feed reads the same counts as the batch's report.
 */
public final class IcebergLoad implements Sink<TransformedBatch, IcebergCommitted> {
  /** The snapshot summary property that names the batch a snapshot loaded. */
  public static final String BATCH_ID_PROPERTY = CommitMarker.BATCH_ID;
  /** The snapshot summary property with a short digest of the batch's event ids. */
  public static final String EVENT_DIGEST_PROPERTY = CommitMarker.EVENT_DIGEST;

  private static final Logger LOG = LoggerFactory.getLogger(IcebergLoad.class);

  private final GenerationCheck generations;

  /**
   * @param generations checked once, when the rows are materialized and before the batch's first
   *     commit (with {@code load.cdc} and a precombine field, the tombstones'): a file whose
   *     generation moved during the read fails the batch (transient) instead of committing rows
   *     that may be another generation's
   */
  public IcebergLoad(GenerationCheck generations) {
    this.generations = Objects.requireNonNull(generations, "generations");
  }

  /**
   * Whether a batch of this profile and mode replaces its partitions, so that it must write their
   * whole live content: without a key and {@code save-mode = Overwrite} (incremental), or mode
   * {@code last}, whose batch replaces the whole table with its one partition. (Mode {@code full}
   * lists every file itself.)
   */
  public static boolean overwritesPartitions(Load load, IngestionType mode) {
    return WriteMode.of(load, mode) == WriteMode.OVERWRITE_PARTITIONS || mode.readsWholePartitions();
  }

  /** The snapshot of the table's current ancestry that carries the batch id, if any. */
  public Optional<Long> committedSnapshot(SparkSession spark, String table, String batchId) {
    return IcebergTables.find(spark, table).flatMap(t -> CommitMarker.find(t, batchId)).map(Snapshot::snapshotId);
  }

  @Override
  public IcebergCommitted write(TransformedBatch input, Loaded earlier) {
    LoadBatch batch = input.batch();
    SparkSession spark = batch.spark();
    String name = batch.table();
    Load load = batch.profile().load();

    Optional<Table> existing = IcebergTables.find(spark, name);
    if (existing.isPresent()) {
      Optional<Snapshot> done = CommitMarker.find(existing.get(), batch.batchId());
      if (done.isPresent()) {
        LOG.info("Table {} batch {}: already committed in snapshot {}; nothing written",
            name, batch.batchId(), done.get().snapshotId());
        return IcebergCommitted.already(name, done.get().snapshotId());
      }
    }
    Map<String, String> marker = new LinkedHashMap<>(CommitMarker.properties(batch.manifest()));
    marker.putAll(CommitMarker.quality(input.quality().byExpectation()));
    marker.putAll(ChangeSummary.partitions(batch.manifest().files().stream().map(ManifestFile::partition).toList()));
    WriteMode mode = WriteMode.of(load, batch.manifest().mode());
    // Only a batch that is the table's whole content (last, full) may delete the keys it lacks.
    List<String> unread = AbsentKeys.unreadFiles(input.extracted(), batch.manifest().files());
    boolean deletesAbsentKeys = WriteMode.deletesAbsentKeys(load, batch.manifest().mode());
    if (deletesAbsentKeys && !unread.isEmpty()) {
      // A truncated snapshot: its rows are merged, and no key is deleted until a whole one loads.
      LOG.warn("Table {} batch {}: load.snapshot-deletes: {} file(s) of the snapshot were not read {} (quarantined, or"
          + " their generation is gone); the batch's rows are merged and no stored row is deleted", name,
          batch.batchId(), unread.size(), unread);
    }
    List<String> heldPartitions = input.quality().heldPartitions();
    if (deletesAbsentKeys && unread.isEmpty() && !heldPartitions.isEmpty()) {
      // A partition an aggregate held back is as good as unread: what its files lack says nothing.
      LOG.warn("Table {} batch {}: load.snapshot-deletes: quality.expectations held back the rows of partition(s) {};"
          + " the batch's other rows are merged and no stored row is deleted", name, batch.batchId(), heldPartitions);
    }
    Optional<SnapshotDeletes> snapshotDeletes = deletesAbsentKeys && unread.isEmpty() && heldPartitions.isEmpty()
        ? load.snapshotDeletes() : Optional.empty();
    if (input.extracted().filesRead().isEmpty() && existing.isEmpty() && input.extracted().quarantined().isEmpty()) {
      // Every file was left out (its generation gone, or an ignored rewrite) before the table's
      // first rows: there are no columns to create it with, and nothing to write.
      LOG.info("Table {} batch {}: no file of the batch is left to read and the table does not exist yet; nothing"
          + " written", name, batch.batchId());
      return IcebergCommitted.nothingWritten(name);
    }
    if (input.extracted().filesRead().isEmpty()) {
      // Every file was quarantined or left out: the batch is done once the table says so, with no rows.
      Table table = existing.orElseThrow(() -> new BatchFailedException("no file of the batch could be read, so there"
          + " are no columns to create table " + name + " with; quarantined: "
          + input.extracted().quarantined().stream().map(q -> q.uri()).toList()));
      return commitMarkerOnly(batch, table, marker, mode, WriteCounts.inserted(0));
    }
    // The profile allows load.cdc only with a MERGE; the column that marks a delete is not a table column.
    Optional<Cdc> cdc = load.cdc().filter(c -> mode == WriteMode.MERGE);
    List<SourceColumn> columns = cdc.isEmpty() ? input.columns()
        : input.columns().stream().filter(c -> !c.name().equals(cdc.get().column())).toList();
    // Checked before the table is created: a batch that cannot say which rows are deletes commits nothing.
    Dataset<Row> rows = cdc.isEmpty() ? input.rows() : input.rows().withColumn(RowsToWrite.DELETE,
        CdcDeletes.isDelete(input.rows(), cdc.get()));
    // Before the batch's first commit (its schema change), so that the tag holds the table as it was.
    Optional<String> risk = UndoTag.risk(existing, columns, batch.manifest().mode(), mode, snapshotDeletes.isPresent());
    risk.ifPresent(why -> UndoTag.tagBefore(existing.get(), name, batch.batchId(), load.undoTagRetention(), why));
    Table table = existingOrCreated(batch, existing, columns, mode);

    StructType target = SparkSchemaUtil.convert(table.schema());
    // Only a MERGE update has a stored value to keep; every other write has no row to keep it in.
    Optional<Set<String>> keepMissing = mode == WriteMode.MERGE && load.missingColumns() == MissingColumns.KEEP
        ? Optional.of(input.columns().stream().map(SourceColumn::name).collect(Collectors.toSet()))
        : Optional.empty();
    RowsToWrite chosen = RowsToWrite.choose(input, rows, table, target, mode, cdc, keepMissing.isPresent(), generations,
        marker);
    Dataset<Row> source = chosen.source();
    SourceSide side = chosen.side();
    long olderThanTombstones = chosen.olderThanTombstones();
    // The MERGE's source: the rows to write and, with snapshot deletes, the keys whose rows a check
    // held back, which keep their stored rows (and the partitions they name stay in the MERGE's scope).
    Dataset<Row> mergeSource = source;
    Optional<String> restriction = side.restriction();
    if (snapshotDeletes.isPresent() && input.isAnyRowHeldBack()) {
      mergeSource = HeldBackKeys.withKept(source, input.heldBack(), load.primaryKey());
      List<String> scope = SourceSide.scopeColumns(table, load);
      if (!scope.isEmpty()) {
        restriction = SourceSide.of(mergeSource, scope).restriction();
      }
      LOG.info("Table {} batch {}: load.snapshot-deletes: the keys of the {} row(s) quality.expectations rejected or"
          + " dropped keep their stored rows", name, batch.batchId(), input.quality().rejected()
          + input.quality().dropped());
    }
    Dataset<Row> merged = mergeSource;
    SourceSide merging = new SourceSide(side.rows(), restriction);

    // Counted before anything of the batch is committed: a batch whose deletes the guard refuses commits nothing.
    AbsentKeys absent = snapshotDeletes.map(guard -> AbsentKeys.counted(spark, name, merged, load, merging,
        SourceSide.scopeColumns(table, load), guard)).orElse(AbsentKeys.NONE);
    if (absent.deletes()) {
      LOG.info("Table {} batch {}: the snapshot lacks the keys of {} of the {} stored rows in scope; the MERGE deletes"
          + " them", name, batch.batchId(), absent.absent(), absent.inScope());
    }
    if (side.rows() == 0 && !absent.deletes()) {
      return commitMarkerOnly(batch, table, marker, mode, new WriteCounts(0, 0, olderThanTombstones, 0));
    }
    // Copy-on-write keeps no trace of a matched row that lost to a newer stored one, so with a
    // precombine field the split of matched rows is computed before the MERGE, on its own scope;
    // so it is with deletes, which neither write mode's summary tells from updates.
    Optional<WriteCounts> split = mode == WriteMode.MERGE
        && (cdc.isPresent() || load.precombineField().isPresent() && !isMergeOnRead(table))
        ? Optional.of(WriteCounts.matchedSplit(spark, name, source, load, merging.restriction(), cdc.isPresent()))
        : Optional.empty();
    if (split.isPresent() && split.get().written() == 0 && !absent.deletes()) {
      return commitMarkerOnly(batch, table, marker, mode, split.get().plusUnchanged(olderThanTombstones));
    }
    // The counts go into the commit's summary; a MERGE's inserts are known only from its own.
    Map<String, String> summary = new LinkedHashMap<>(marker);
    summary.putAll(mode == WriteMode.MERGE
        ? WriteCounts.mergeProperties(isMergeOnRead(table), side.rows(), split, absent.absent())
        : WriteCounts.inserted(side.rows()).properties());
    long start = System.nanoTime();
    IcebergTables.writeMarked(summary, () -> {
      BatchWrite.write(batch, mode, merged, load, keepMissing, merging.restriction(), cdc.isPresent(),
          absent.deletes() ? Optional.of(absent.scope()) : Optional.empty());
      return null;
    });
    Duration mergeTime = Duration.ofNanos(System.nanoTime() - start);
    table.refresh();
    Optional<Snapshot> written = CommitMarker.find(table, batch.batchId());
    if (written.isEmpty() && mode == WriteMode.MERGE) {
      // A merge-on-read MERGE whose every row lost to a newer stored one writes no file, and
      // Iceberg commits nothing for it.
      return commitMarkerOnly(batch, table, marker, mode, new WriteCounts(0, 0, side.rows() + olderThanTombstones, 0));
    }
    WriteCounts counts = written.map(s -> WriteCounts.of(mode, s.summary(), side.rows(), absent.absent()))
        .orElseGet(() -> WriteCounts.inserted(side.rows())).plusUnchanged(olderThanTombstones);
    return committed(batch, table, mode, counts, mergeTime);
  }

  private static boolean isMergeOnRead(Table table) {
    return "merge-on-read".equals(table.properties().get("write.merge.mode"));
  }

  /** No rows to write (all filtered, rejected, unchanged or unreadable): a snapshot with the marker only. */
  private static IcebergCommitted commitMarkerOnly(LoadBatch batch, Table table, Map<String, String> marker,
      WriteMode mode, WriteCounts counts) {
    LOG.info("Table {} batch {}: no rows to write; committing the batch marker only", batch.table(), batch.batchId());
    long start = System.nanoTime();
    AppendFiles append = table.newAppend();
    marker.forEach(append::set);
    counts.properties().forEach(append::set);
    append.commit();
    return committed(batch, table, mode, counts, Duration.ofNanos(System.nanoTime() - start));
  }

  private static IcebergCommitted committed(LoadBatch batch, Table table, WriteMode mode, WriteCounts counts,
      Duration mergeTime) {
    table.refresh();
    Snapshot snapshot = CommitMarker.find(table, batch.batchId()).orElseThrow(() -> new IllegalStateException(
        "The write to " + batch.table() + " committed no snapshot with batch id " + batch.batchId()));
    Duration commitTime = CommitDurations.of(snapshot.snapshotId()).orElse(Duration.ZERO);
    LOG.info("Table {} batch {}: committed snapshot {} ({}): {} inserted, {} updated, {} deleted, {} unchanged",
        batch.table(), batch.batchId(), snapshot.snapshotId(), mode, counts.inserted(), counts.updated(),
        counts.deleted(), counts.unchanged());
    return new IcebergCommitted(batch.table(), snapshot.snapshotId(), false, counts.inserted(), counts.updated(),
        counts.unchanged(), counts.deleted(), mergeTime, commitTime);
  }

  /**
   * The batch's table, created on first use, with its schema brought up to the batch's columns and,
   * for a MERGE, its {@code write.merge.mode} set from {@code load.write-mode}: metadata commits without rows.
   */
  private static Table existingOrCreated(LoadBatch batch, Optional<Table> existing, List<SourceColumn> columns,
      WriteMode mode) {
    SparkSession spark = batch.spark();
    String name = batch.table();
    Load load = batch.profile().load();
    Table table = existing.orElseGet(() -> {
      Table created = IcebergTables.create(spark, name, columns, load.partitionBy(), load.tableProperties());
      LOG.info("Table {} batch {}: created, partitioned by {}", name, batch.batchId(), load.partitionBy());
      return created;
    });
    // Also after creating: another writer may have created the table first, with other columns.
    List<String> changes = TableSchemaSync.sync(table, columns, load.schemaEvolution());
    if (!changes.isEmpty()) {
      LOG.info("Table {} batch {}: schema changed: {}", name, batch.batchId(), changes);
      spark.sql("REFRESH TABLE " + quoteTable(name));
      table.refresh();
    }
    if (mode == WriteMode.OVERWRITE_PARTITIONS && table.spec().isUnpartitioned()) {
      throw new BatchFailedException("load.save-mode = Overwrite replaces the batch's partitions, but table " + name
          + " is not partitioned; it would replace the whole table");
    }

    if (mode == WriteMode.MERGE) {
      WriteModeProperties.apply(table, load.writeMode()).ifPresent(change -> {
        LOG.info("Table {} batch {}: {}", name, batch.batchId(), change);
        table.refresh();
      });
    }
    return table;
  }

  /** How the rows are written, from the key, the ingestion mode and the save mode. */
  enum WriteMode {
    MERGE,
    APPEND,
    OVERWRITE_PARTITIONS,
    OVERWRITE_TABLE;

    static WriteMode of(Load load, IngestionType mode) {
      boolean whole = mode.replacesTable();
      if (!load.primaryKey().isEmpty()) {
        return whole && !deletesAbsentKeys(load, mode) ? OVERWRITE_TABLE : MERGE;
      }
      if (whole) {
        return OVERWRITE_TABLE;
      }
      return load.saveMode() == SaveMode.OVERWRITE ? OVERWRITE_PARTITIONS : APPEND;
    }

    /**
     * Whether a batch MERGEs its snapshot and deletes the stored keys it lacks ({@code
     * load.snapshot-deletes}): a keyed table's batch that is the table's whole content. A batch of
     * another mode (a ledger batch recovered incrementally, a replay) deletes nothing.
     */
    static boolean deletesAbsentKeys(Load load, IngestionType mode) {
      return load.snapshotDeletes().isPresent() && !load.primaryKey().isEmpty() && mode.replacesTable();
    }
  }
}
