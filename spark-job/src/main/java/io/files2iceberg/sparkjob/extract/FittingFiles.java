package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The opened files whose schema fits the table's and the other files' ({@link SchemaCheck}), each
 * with how its columns are read; a misfit is quarantined or fails the batch.
 */
final class FittingFiles {
  /** The extract stage's logger: these lines are the stage's. */
  private static final Logger LOG = LoggerFactory.getLogger(FilesExtract.class);

  private FittingFiles() {}

  /**
   * The files whose schema can be aligned with the table's and the others' ({@link SchemaCheck}).
   * A misfit fails the batch naming it and the column; with {@code extract.quarantine-bad-files =
   * true} it is quarantined (added to {@code quarantined}) and the batch goes on without it.
   *
   * @param onQuarantined told of each misfit quarantined, before the batch goes on (the ledger)
   */
  static List<OpenedFile> withoutMisfits(LoadBatch batch, Extract extract, List<OpenedFile> opened,
      List<QuarantinedFile> quarantined, Consumer<QuarantinedFile> onQuarantined) {
    Optional<StructType> table = IcebergTables.find(batch.spark(), batch.table())
        .map(t -> SparkSchemaUtil.convert(t.schema()));
    SchemaCheck check = new SchemaCheck(batch.profile(), batch.table(), table,
        ExtractReaders.corruptRecordColumn(batch.spark(), extract));
    SchemaCheck.Checked checked = check.check(
        opened.stream().map(f -> new SchemaCheck.FileSchema(f.file(), f.schema())).toList());
    opened = opened.stream().map(f -> f.withRescued(checked.rescuedOf(f.file()))
        .withNewColumns(ignoredSources(batch, f, checked.ignoredOf(f.file())), checked.ignoredOf(f.file()).size(),
            checked.narrowedOf(f.file()), checked.rescuedFieldsOf(f.file()))).toList();
    for (OpenedFile file : opened) {
      if (!file.rescued().isEmpty() || !file.rescuedFields().isEmpty()) {
        List<String> columns = new ArrayList<>(file.rescued().values());
        columns.addAll(file.rescuedFields().keySet());
        LOG.info("Table {} batch {}: the values of column(s) {} of file {} go to {}: the table cannot take them",
            batch.table(), batch.batchId(), columns, file.file().uri(),
            batch.profile().transform().rescuedDataColumn().orElseThrow());
      }
      Map<String, DataType> ignored = checked.ignoredOf(file.file());
      if (!ignored.isEmpty()) {
        LOG.warn("Table {} batch {}: file {} has {} column(s) that the table does not have, not loaded"
            + " (load.schema-evolution = none; counted in the file's load history): {}", batch.table(), batch.batchId(),
            file.file().uri(), ignored.size(), ignored.entrySet().stream()
                .map(c -> c.getKey() + " " + c.getValue().simpleString()).toList());
      }
    }
    List<SchemaCheck.Misfit> misfits = checked.misfits();
    if (misfits.isEmpty()) {
      return opened;
    }
    for (SchemaCheck.Misfit misfit : misfits) {
      if (!batch.isBatchFile(misfit.file())) {
        // Loaded by an earlier batch, read again to overwrite its partition: quarantining it now
        // would drop rows the table holds.
        throw new BatchFailedException("file " + misfit.file().uri() + " (loaded by an earlier batch; load.save-mode"
            + " = Overwrite rewrites partition " + misfit.file().partition() + " whole) no longer fits: "
            + misfit.reason());
      }
    }
    if (!extract.quarantineBadFiles()) {
      throw new BatchFailedException(misfits.get(0).reason()
          + "; set extract.quarantine-bad-files = true to quarantine it and load the other files");
    }
    List<OpenedFile> fitting = new ArrayList<>(opened);
    for (SchemaCheck.Misfit misfit : misfits) {
      QuarantinedFile bad = new QuarantinedFile(misfit.file().fileId(), misfit.file().uri(), misfit.reason());
      LOG.warn("Table {} batch {}: file {} does not fit the table's schema: {}", batch.table(), batch.batchId(),
          misfit.file().uri(), misfit.reason());
      onQuarantined.accept(bad);
      quarantined.add(bad);
      fitting.removeIf(f -> f.file().fileId().equals(misfit.file().fileId()));
    }
    return fitting;
  }

  /** The source names of a file's columns whose target names are among its ignored new columns. */
  private static Set<String> ignoredSources(LoadBatch batch, OpenedFile file, Map<String, DataType> ignored) {
    Set<String> sources = new HashSet<>();
    for (String name : file.schema().fieldNames()) {
      if (ignored.containsKey(SchemaCheck.targetName(batch.profile().transform(), name))) {
        sources.add(name);
      }
    }
    return sources;
  }
}
