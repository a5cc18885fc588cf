package io.files2iceberg.core.ledger;

import java.util.Objects;
import java.util.Optional;

/**
 * Why a batch failed, as data beside its human reason: the error class and the file at fault.
 *
 * @param errorClass Spark's error class when the root cause has one ({@code
 *     INCONSISTENT_BEHAVIOR_CROSS_VERSION.READ_ANCIENT_DATETIME}, {@code UNRESOLVED_COLUMN}),
 *     else the class of the root-cause exception ({@code org.apache.parquet.io.ParquetDecodingException});
 *     never blank. The metrics count failures by it.
 * @param file the URI of the one file at fault, when the cause names one
 */
public record FailureCause(String errorClass, Optional<String> file) {
  public FailureCause {
    Objects.requireNonNull(errorClass, "errorClass");
    Objects.requireNonNull(file, "file");
    if (errorClass.isBlank()) {
      throw new IllegalArgumentException("errorClass must not be blank");
    }
  }

  /** {@code <errorClass>} or {@code <errorClass> in <file>}: one line for a table cell. */
  public String describe() {
    return file.map(f -> errorClass + " in " + f).orElse(errorClass);
  }
}
