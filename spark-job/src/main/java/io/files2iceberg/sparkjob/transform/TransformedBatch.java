package io.files2iceberg.sparkjob.transform;

import io.files2iceberg.sparkjob.extract.ExtractedBatch;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.core.ledger.FileRows;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Fact: the batch's rows in the table's terms, read and counted.
 *
 * @param rows the rows to load: the {@code columns}, then the {@link
 *     io.files2iceberg.sparkjob.extract.InternalColumns}; cached for the rest of the batch
 * @param columns the target columns in order, after renames and casts
 * @param rejected the rows for the {@code <table>__rejected} table, shaped as it is: {@code batch_id},
 *     {@code source_file}, {@code column_name}, {@code value}, {@code reason}, {@code record} (the
 *     source row as JSON), {@code rejected_at}, {@code expectation} (the expectation that rejected
 *     the row; NULL for a bad record): the bad records with {@code transform.on-bad-record =
 *     reject}, and the rows an expectation rejected
 * @param rowsRead every row of the files read
 * @param rowsFiltered rows {@code transform.filter} dropped
 * @param rowsRejected the rows of {@code rejected}: bad records (a failed cast, a null primary key,
 *     a line the reader could not parse) and the rows an expectation rejected
 * @param readTime opening the files, reading, transforming and counting every row
 * @param fileRows the counts of each file read, by file id: rows read, rejected, rescued, and
 *     those that violated each expectation
 * @param quality what the expectations found, and the rows they rejected and dropped
 * @param heldBack the bad records and the rows an expectation rejected or dropped, shaped as {@code
 *     rows}: with {@code load.snapshot-deletes}, their keys are in the snapshot although their rows
 *     do not load
 */
public record TransformedBatch(
    ExtractedBatch extracted,
    Dataset<Row> rows,
    List<SourceColumn> columns,
    Dataset<Row> rejected,
    long rowsRead,
    long rowsFiltered,
    long rowsRejected,
    Duration readTime,
    Map<String, FileRows> fileRows,
    QualityOutcome quality,
    Dataset<Row> heldBack) {

  /** The column of {@code rejected} that names the expectation that rejected a row. */
  public static final String REJECTED_BY_EXPECTATION = "expectation";

  /**
   * Whether rows of the batch do not load although they were read and kept by {@code
   * transform.filter}: bad records, and rows an expectation rejected or dropped ({@link #heldBack}).
   */
  public boolean isAnyRowHeldBack() {
    return rowsRejected > 0 || quality.isAnyRowHeldBack();
  }

  public TransformedBatch {
    columns = List.copyOf(columns);
    fileRows = Collections.unmodifiableMap(new LinkedHashMap<>(fileRows));
  }

  /** The rows to load: read, less those filtered, rejected and dropped. */
  public long rowsToLoad() {
    return rowsRead - rowsFiltered - rowsRejected - quality.dropped();
  }

  public LoadBatch batch() {
    return extracted.batch();
  }
}
