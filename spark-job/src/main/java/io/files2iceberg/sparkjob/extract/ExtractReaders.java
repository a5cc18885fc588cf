package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.profile.Extract;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SparkSession;

/**
 * The one reader of a table's files: its format and the profile's reader options. Every read of
 * the batch's files (their schemas, their rows, one at a time to find a bad one) starts here, so
 * they all read a file alike.
 */
final class ExtractReaders {
  private ExtractReaders() {}

  static DataFrameReader reader(SparkSession spark, Extract extract) {
    return spark.read().format(extract.format().code()).options(extract.options());
  }
}
