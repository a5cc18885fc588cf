package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.load.IcebergLoad.WriteMode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tag {@code files2iceberg-before-<batch id>} on the table's snapshot before a risky batch,
 * kept {@code load.undo-tag-retention}: Iceberg expires no snapshot a ref holds, so the batch can
 * be undone ({@code rollback --to-tag}) after {@code maintain} has expired older snapshots.
 *
 * <p>A batch is risky when undoing it by hand is hard: it adds columns to the table, it deletes the
 * stored keys its snapshot lacks ({@code load.snapshot-deletes}), or it overwrites the whole table
 * in mode {@code full}. The tag is made before the batch's first commit (its schema change), once:
 * a retried batch finds its tag and leaves it where the first attempt put it.
 */
final class UndoTag {
  private static final Logger LOG = LoggerFactory.getLogger(UndoTag.class);

  private UndoTag() {}

  /**
   * Why the batch is risky, if it is.
   *
   * @param table the table before the batch (absent: the batch creates it, and there is nothing to undo to)
   */
  static Optional<String> risk(Optional<Table> table, List<SourceColumn> columns, IngestionType ingestion,
      WriteMode mode, boolean deletesAbsentKeys) {
    if (table.isEmpty()) {
      return Optional.empty();
    }
    List<String> added = columns.stream().map(SourceColumn::name)
        .filter(name -> table.get().schema().caseInsensitiveFindField(name) == null).toList();
    if (!added.isEmpty()) {
      return Optional.of("it adds columns " + added);
    }
    if (deletesAbsentKeys) {
      return Optional.of("load.snapshot-deletes may delete stored rows");
    }
    if (ingestion == IngestionType.FULL && mode == WriteMode.OVERWRITE_TABLE) {
      return Optional.of("mode full overwrites the whole table");
    }
    return Optional.empty();
  }

  /** Tags the table's current snapshot before the batch, unless the tag is there already or retention is zero. */
  static void tagBefore(Table table, String name, String batchId, Duration retention, String risk) {
    String tag = ChangeSummary.tagBefore(batchId);
    if (retention.isZero() || table.currentSnapshot() == null) {
      return;
    }
    if (table.refs().containsKey(tag)) {
      LOG.info("Table {} batch {}: tag {} is there already (an earlier attempt made it)", name, batchId, tag);
      return;
    }
    long snapshotId = table.currentSnapshot().snapshotId();
    try {
      table.manageSnapshots().createTag(tag, snapshotId).setMaxRefAgeMs(tag, retention.toMillis()).commit();
    } catch (RuntimeException e) {
      // Another attempt of the same batch may have made it between the look and the commit.
      table.refresh();
      SnapshotRef made = table.refs().get(tag);
      if (made == null) {
        throw new IllegalStateException("Table " + name + " batch " + batchId + ": cannot tag snapshot " + snapshotId
            + " " + tag + " before the batch (" + risk + "): " + e.getMessage(), e);
      }
      return;
    }
    LOG.info("Table {} batch {}: tagged snapshot {} {} for {} before the batch: {}", name, batchId, snapshotId, tag,
        retention, risk);
  }
}
