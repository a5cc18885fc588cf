package io.files2iceberg.sparkjob.transform;

import io.files2iceberg.sparkjob.extract.SourceColumn;
import java.util.Optional;
import org.apache.spark.sql.Column;

/**
 * A target column and how it is computed from the source columns.
 *
 * @param inFiles false for a cast column that no file of the batch has
 */
record TargetColumn(SourceColumn column, Column value, Optional<Column> castFrom, boolean inFiles) {
  TargetColumn(SourceColumn column, Column value, Optional<Column> castFrom) {
    this(column, value, castFrom, true);
  }
}
