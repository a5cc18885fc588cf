package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.quoteTable;

import io.files2iceberg.core.profile.Load.SchemaEvolution;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.Loaded;
import io.files2iceberg.sparkjob.stage.Sink;
import io.files2iceberg.sparkjob.transform.TransformedBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.types.StructField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends the batch's bad records ({@code transform.on-bad-record = reject}) and the rows its
 * expectations rejected ({@code quality.expectations}, whatever {@code transform.on-bad-record}
 * says) to {@code <catalog>.<namespace>.<table>__rejected}, created on first use, with the batch id
 * in the snapshot summary. A rejected table created before a column of the rejected rows existed
 * ({@code expectation}) gets it, optional, before the append: its older rows read NULL there.
 *
 * <p>It runs before the table's own commit, and skips the write when the rejected table's
 * ancestry already holds the batch: a batch that died between the two commits and runs again
 * writes its rejects once.
 */
public final class RejectedRowsLoad implements Sink<TransformedBatch, RejectsWritten> {
  private static final Logger LOG = LoggerFactory.getLogger(RejectedRowsLoad.class);

  /** The rejected-rows table of a table. */
  public static String rejectedTable(String table) {
    return table + "__rejected";
  }

  @Override
  public RejectsWritten write(TransformedBatch input, Loaded earlier) {
    if (input.rowsRejected() == 0) {
      return RejectsWritten.none();
    }
    LoadBatch batch = input.batch();
    String name = rejectedTable(batch.table());
    Optional<Table> existing = IcebergTables.find(batch.spark(), name);
    if (existing.isPresent()) {
      Optional<Snapshot> done = CommitMarker.find(existing.get(), batch.batchId());
      if (done.isPresent()) {
        LOG.info("Table {} batch {}: the {} rejected row(s) are already in {} (snapshot {})",
            batch.table(), batch.batchId(), input.rowsRejected(), name, done.get().snapshotId());
        return new RejectsWritten(Optional.of(name), input.rowsRejected(), Optional.of(done.get().snapshotId()), true);
      }
    }
    Table table = existing.orElseGet(() -> IcebergTables.create(batch.spark(), name, columns(input), List.of(), Map.of()));
    List<String> changes = TableSchemaSync.sync(table, columns(input), SchemaEvolution.ADD_NEW_COLUMNS);
    if (!changes.isEmpty()) {
      LOG.info("Table {} batch {}: {} schema changed: {}", batch.table(), batch.batchId(), name, changes);
      batch.spark().sql("REFRESH TABLE " + quoteTable(name));
      table.refresh();
    }
    IcebergTables.writeMarked(CommitMarker.properties(batch.manifest()), () -> {
      input.rejected().writeTo(name).append();
      return null;
    });
    table.refresh();
    long snapshotId = CommitMarker.find(table, batch.batchId())
        .orElseThrow(() -> new IllegalStateException("The append to " + name + " committed no snapshot with batch id "
            + batch.batchId()))
        .snapshotId();
    LOG.info("Table {} batch {}: {} rejected row(s) appended to {} (snapshot {})",
        batch.table(), batch.batchId(), input.rowsRejected(), name, snapshotId);
    return new RejectsWritten(Optional.of(name), input.rowsRejected(), Optional.of(snapshotId), false);
  }

  private static List<SourceColumn> columns(TransformedBatch input) {
    List<SourceColumn> columns = new ArrayList<>();
    for (StructField field : input.rejected().schema().fields()) {
      columns.add(new SourceColumn(field.name(), field.dataType(), "rejected rows"));
    }
    return columns;
  }
}
