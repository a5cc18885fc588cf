package io.files2iceberg.sparkjob.extract;

import java.util.Objects;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * A column of the batch and where its type comes from, so that a type error can name the file.
 *
 * @param origin the file (URI) whose type this is, or what else decided it: {@code the partition
 *     token}, {@code lineage}, {@code transform.cast.columns.<name>}, {@value #RESCUED_DATA}
 */
public record SourceColumn(String name, DataType type, String origin) {
  /** The origin of the rescued data column, which the table takes even without schema evolution. */
  public static final String RESCUED_DATA = "transform.rescued-data-column";

  public SourceColumn {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(origin, "origin");
  }

  /** The {@code transform.rescued-data-column} column: STRING, filled by the job. */
  public static SourceColumn rescuedData(String name) {
    return new SourceColumn(name, DataTypes.StringType, RESCUED_DATA);
  }

  public boolean isRescuedData() {
    return origin.equals(RESCUED_DATA);
  }

  public SourceColumn withName(String newName) {
    return new SourceColumn(newName, type, origin);
  }
}
