package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Fact: the batch's readable files, as one dataset with one type per column.
 *
 * @param rows every row of every readable file: the {@code columns}, then the {@link
 *     InternalColumns}; not read yet (Spark is lazy), only the files' schemas are
 * @param columns the batch's columns in order: the files' columns (first seen first), the
 *     partition column, the lineage columns
 * @param corruptRecordColumn json and csv: the reader's column for lines it could not parse, when
 *     some file has one
 * @param filesRead the files in {@code rows}, in manifest order
 * @param quarantined the files that could not be read (only when quarantining is on; otherwise the
 *     batch fails)
 * @param openTime how long opening the files and reading their schemas took
 * @param ignoredColumns by file id, for the files that have any: how many of their new columns
 *     (struct fields included) are not loaded ({@code load.schema-evolution = none})
 */
public record ExtractedBatch(
    LoadBatch batch,
    Dataset<Row> rows,
    List<SourceColumn> columns,
    Optional<String> corruptRecordColumn,
    List<ManifestFile> filesRead,
    List<QuarantinedFile> quarantined,
    Duration openTime,
    Map<String, Integer> ignoredColumns) {

  public ExtractedBatch {
    columns = List.copyOf(columns);
    filesRead = List.copyOf(filesRead);
    quarantined = List.copyOf(quarantined);
    ignoredColumns = Map.copyOf(ignoredColumns);
  }

  public long bytesRead() {
    return filesRead.stream().mapToLong(ManifestFile::size).sum();
  }
}
