package io.files2iceberg.sparkjob.extract;

import java.util.Objects;
import org.apache.spark.sql.types.DataType;

/**
 * A column of the batch and where its type comes from, so that a type error can name the file.
 *
 * @param origin the file (URI) whose type this is, or what else decided it: {@code the partition
 *     token}, {@code lineage}, {@code transform.cast.columns.<name>}
 */
public record SourceColumn(String name, DataType type, String origin) {
  public SourceColumn {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(origin, "origin");
  }

  public SourceColumn withName(String newName) {
    return new SourceColumn(newName, type, origin);
  }
}
