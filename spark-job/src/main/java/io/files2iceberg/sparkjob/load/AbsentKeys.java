package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Load;
import io.files2iceberg.core.profile.Load.MergeScope;
import io.files2iceberg.core.profile.Load.SnapshotDeletes;
import io.files2iceberg.sparkjob.extract.ExtractedBatch;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * With {@code load.snapshot-deletes}: the stored rows that the batch's MERGE deletes because their
 * key is absent from the batch (its {@code WHEN NOT MATCHED BY SOURCE} clause), counted before the
 * MERGE from one join of the stored keys in scope against the batch's keys.
 *
 * @param inScope the stored rows the batch may delete: the whole table, or the rows of the batch's
 *     partitions ({@code load.merge-scope = partitions})
 * @param absent those of them whose key the batch does not have
 * @param scope the condition on the stored rows ({@code t.}) that bounds the deletes; empty: the
 *     whole table
 */
record AbsentKeys(long inScope, long absent, Optional<String> scope) {
  static final AbsentKeys NONE = new AbsentKeys(0, 0, Optional.empty());
  private static final String PRESENT = InternalColumns.PREFIX + "present";

  /**
   * The snapshot's files the batch did not read: quarantined, or a generation gone with no newer
   * one in the batch. The keys they hold are absent from the batch although they may still exist
   * upstream, so a batch with any deletes nothing ({@link IcebergLoad}).
   */
  static List<String> unreadFiles(ExtractedBatch extracted, List<ManifestFile> files) {
    Set<String> read = extracted.filesRead().stream().map(ManifestFile::uri).collect(Collectors.toSet());
    return files.stream().map(ManifestFile::uri).filter(uri -> !read.contains(uri)).distinct().toList();
  }

  /**
   * Counts the stored rows in the deletes' scope and those of them the MERGE deletes, and fails the
   * batch (deterministic: nothing is committed) when they are a larger share of the rows in scope
   * than {@code load.snapshot-deletes-max-fraction}.
   *
   * @param source the batch's rows, one per key
   * @param side the batch's rows counted, and the MERGE's restriction to the batch's partitions
   * @param scopeColumns the partition spec's source columns that restriction is on
   */
  static AbsentKeys counted(SparkSession spark, String table, Dataset<Row> source, Load load, SourceSide side,
      List<String> scopeColumns, SnapshotDeletes guard) {
    Optional<String> scope = Optional.empty();
    if (load.mergeScope() == MergeScope.PARTITIONS) {
      if (scopeColumns.isEmpty()) {
        throw new BatchFailedException("load.snapshot-deletes: table " + table + ": load.merge-scope = partitions,"
            + " but the table's partition spec has no top-level source column to restrict the deletes to; they would"
            + " reach the whole table. Use load.merge-scope = table, or partition the table by a column");
      }
      if (side.rows() == 0) {
        // An empty batch names no partition, so it would delete nothing; but an empty snapshot is
        // what the guard is for, so it is refused as one that deletes every stored row.
        long stored = WriteCounts.storedKeys(spark, table, load.primaryKey(), Optional.empty(), Optional.empty())
            .count();
        if (!guard.allows(stored, stored)) {
          throw new BatchFailedException("load.snapshot-deletes: table " + table + ": the batch has no rows; with"
              + " load.merge-scope = partitions it names no partition to delete in, but an empty snapshot is refused"
              + " unless load.snapshot-deletes-max-fraction = 1.0 (it is " + guard.maxFraction() + "); nothing is"
              + " committed. Check the batch's files");
        }
        return NONE;
      }
      scope = side.restriction();
    }
    // auto deletes across the whole table: its restriction of the ON clause only saves reads.
    Dataset<Row> stored = WriteCounts.storedKeys(spark, table, load.primaryKey(), Optional.empty(), scope);
    Dataset<Row> incoming = source.select(WriteCounts.keyColumns(load.primaryKey()))
        .withColumn(PRESENT, functions.lit(true));
    Row counts = stored.join(incoming, WriteCounts.keysMatch(incoming, stored, load.primaryKey()), "left")
        .agg(functions.count(functions.lit(1)),
            functions.sum(functions.when(incoming.col(PRESENT).isNull(), 1).otherwise(0)))
        .first();
    AbsentKeys absent = new AbsentKeys(counts.getLong(0), WriteCounts.longOrZero(counts, 1), scope);
    if (!guard.allows(absent.absent(), absent.inScope())) {
      throw new BatchFailedException(String.format(Locale.ROOT, "load.snapshot-deletes: table %s: the batch would"
          + " delete %d of the %d stored rows %s (a share of %.4f), more than load.snapshot-deletes-max-fraction ="
          + " %s allows; nothing is committed. An empty or truncated snapshot looks like this: check the batch's"
          + " files, or raise load.snapshot-deletes-max-fraction (1.0 lets a batch delete every row in scope)",
          table, absent.absent(), absent.inScope(), scope.isPresent() ? "in the batch's partitions" : "of the table",
          (double) absent.absent() / absent.inScope(), guard.maxFraction()));
    }
    return absent;
  }

  /** Whether the MERGE deletes anything: without absent keys it needs no {@code NOT MATCHED BY SOURCE} clause. */
  boolean deletes() {
    return absent > 0;
  }
}
