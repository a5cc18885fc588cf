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
 * @param rejected the bad records, shaped as the {@code <table>__rejected} table: {@code batch_id},
 *     {@code source_file}, {@code column_name}, {@code value}, {@code reason}, {@code record} (the
 *     source row as JSON), {@code rejected_at}; empty unless {@code transform.on-bad-record = reject}
 * @param rowsRead every row of the files read
 * @param rowsFiltered rows {@code transform.filter} dropped
 * @param rowsRejected bad records: a failed cast, a null primary key, a line the reader could not
 *     parse
 * @param readTime opening the files, reading, transforming and counting every row
 * @param fileRows the counts of each file read, by file id: rows read, rejected, rescued
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
    Map<String, FileRows> fileRows) {

  public TransformedBatch {
    columns = List.copyOf(columns);
    fileRows = Collections.unmodifiableMap(new LinkedHashMap<>(fileRows));
  }

  public LoadBatch batch() {
    return extracted.batch();
  }
}
