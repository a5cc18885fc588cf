package io.files2iceberg.sparkjob.undo;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;
import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.extract.PartitionValue;
import io.files2iceberg.sparkjob.extract.SchemaCheck;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes every row of one partition, in one commit whose summary says so: {@code
 * files2iceberg.change = drop-partition}, {@code files2iceberg.change-id}, the partition ({@link
 * ChangeSummary#partitions}) and {@code files2iceberg.rows.deleted}.
 *
 * <p>The partition's rows are those whose partition column (the profile's {@code
 * extract.batch-file.partition-column}, after {@code transform.rename-columns}) holds the value the
 * job writes for the token ({@link PartitionValue}: a date for a date partition), cast to the
 * column's type as the job's {@code transform.cast.columns} would have. The value travels as a
 * literal and a SQL parameter, never as SQL text.
 *
 * <p>Idempotent: the change id is looked up in the current ancestry first, as a batch looks up its
 * id; found, nothing is done ({@code already-applied}). The rows are counted on the snapshot the
 * delete starts from; the batcher holds the partition while it drops it, so no batch writes it in
 * between, and a commit to other partitions does not change the count.
 */
final class PartitionDrop {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionDrop.class);

  private final SparkSession spark;

  PartitionDrop(SparkSession spark) {
    this.spark = spark;
  }

  DropPartitionOutcome run(DropPartitionRequest request) {
    String name = request.table();
    String partition = request.partition();
    Table table = IcebergTables.find(spark, name).orElseThrow(() -> new UndoRefusedException("table " + name
        + " does not exist: no partition " + partition + " to drop"));
    String column = partitionColumn(request.profile());
    Types.NestedField field = table.schema().findField(column);
    if (field == null) {
      throw new UndoRefusedException("table " + name + " has no column " + column + ", the partition column of its"
          + " profile (extract.batch-file.partition-column " + request.profile().extract().batchFile().partitionColumn()
          + (column.equals(request.profile().extract().batchFile().partitionColumn()) ? "" : ", renamed")
          + "): cannot tell the rows of partition " + partition + " apart");
    }
    Optional<Snapshot> applied = appliedIn(table, request.changeId());
    if (applied.isPresent()) {
      long rows = Long.parseLong(applied.get().summary().getOrDefault(ChangeSummary.ROWS_DELETED, "0"));
      LOG.info("Table {}: partition {} was dropped already by change {} (snapshot {})", name, partition,
          request.changeId(), applied.get().snapshotId());
      return new DropPartitionOutcome(DropPartitionOutcome.ALREADY_APPLIED, partition, request.changeId(), column, rows,
          Optional.of(applied.get().snapshotId()));
    }
    Object value = value(request);
    DataType type = SparkSchemaUtil.convert(field.type());
    Column inPartition = column(column).equalTo(functions.lit(value).cast(type));
    long rows = table.currentSnapshot() == null ? 0 : spark.table(quoteTable(name)).where(inPartition).count();
    if (request.dryRun()) {
      return new DropPartitionOutcome(DropPartitionOutcome.PLANNED, partition, request.changeId(), column, rows,
          Optional.empty());
    }
    Map<String, String> summary = new LinkedHashMap<>();
    summary.put(ChangeSummary.CHANGE, UndoChanges.DROP_PARTITION);
    summary.put(ChangeSummary.CHANGE_ID, request.changeId());
    summary.putAll(ChangeSummary.partitions(List.of(partition)));
    summary.put(ChangeSummary.ROWS_DELETED, Long.toString(rows));
    if (rows == 0) {
      // Nothing to delete: a commit of no change still records the change id in the ancestry.
      DeleteFiles marker = table.newDelete().deleteFromRowFilter(Expressions.alwaysFalse());
      summary.forEach(marker::set);
      marker.commit();
    } else {
      MarkedDelete.run(spark, name, quote(column) + " = CAST(:partition AS " + type.sql() + ")",
          Map.of("partition", value), summary);
    }
    table.refresh();
    Snapshot committed = appliedIn(table, request.changeId()).orElseThrow(() -> new IllegalStateException(
        "the delete of partition " + partition + " from " + name + " committed no snapshot with change id "
            + request.changeId()));
    LOG.info("Table {}: partition {} dropped by change {}: {} row(s) deleted (snapshot {})", name, partition,
        request.changeId(), rows, committed.snapshotId());
    return new DropPartitionOutcome(DropPartitionOutcome.DROPPED, partition, request.changeId(), column, rows,
        Optional.of(committed.snapshotId()));
  }

  /** The table column the job writes the partition token to. */
  static String partitionColumn(TableProfile profile) {
    return SchemaCheck.targetName(profile.transform(), profile.extract().batchFile().partitionColumn());
  }

  private static Object value(DropPartitionRequest request) {
    try {
      return PartitionValue.of(request.profile().extract(), request.partition());
    } catch (DateTimeParseException e) {
      throw new UndoRefusedException("table " + request.table() + ": partition \"" + request.partition()
          + "\" is not an ISO date (yyyy-MM-dd), as the token of a date partition is in the ledger");
    }
  }

  /** The newest snapshot of the current ancestry carrying the change id. */
  private static Optional<Snapshot> appliedIn(Table table, String changeId) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return Optional.empty();
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      if (changeId.equals(snapshot.summary().get(ChangeSummary.CHANGE_ID))) {
        return Optional.of(snapshot);
      }
    }
    return Optional.empty();
  }
}
