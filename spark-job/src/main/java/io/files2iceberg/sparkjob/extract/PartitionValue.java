package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Extract;
import java.sql.Date;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import org.apache.spark.sql.types.DataType;

/**
 * A partition token (the ledger's and the manifest's, ISO {@code yyyy-MM-dd} for a date partition)
 * as the value of the partition column the job adds from it: what a batch writes there, and what
 * {@code drop-partition} deletes.
 */
public final class PartitionValue {
  private PartitionValue() {}

  /**
   * A {@link Date} for date partitions, else the token itself.
   *
   * @throws DateTimeParseException when a date partition's token is no ISO date
   */
  public static Object of(Extract extract, String token) {
    if (extract.batchFile().partitionType() == PartitionType.DATE) {
      return Date.valueOf(LocalDate.parse(token));
    }
    return token;
  }

  /** The partition column's type: {@code date} for date partitions, else {@code string}. */
  public static DataType type(Extract extract) {
    return BatchColumns.partitionType(extract);
  }
}
