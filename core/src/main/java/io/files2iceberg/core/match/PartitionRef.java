package io.files2iceberg.core.match;

import java.time.LocalDate;
import java.util.Objects;
import java.util.Optional;

/**
 * The partition an object belongs to.
 *
 * @param table the qualified Iceberg table, {@code catalog.namespace.table}
 * @param token the canonical partition value, the ledger's partition key: for date partitions the
 *     ISO {@code yyyy-MM-dd} form of the parsed date, whatever {@code date-format} the path uses;
 *     for string partitions the captured token as it is
 * @param date the parsed date of a date partition; empty for string partitions
 * @param prefix the URI of the folder holding the object (for a success marker, its own folder),
 *     ending with {@code /}, e.g. {@code gs://bucket/raw/clicks/dt=2024-01-01/}
 */
public record PartitionRef(String table, String token, Optional<LocalDate> date, String prefix) {

  public PartitionRef {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(date, "date");
    Objects.requireNonNull(prefix, "prefix");
    if (!prefix.endsWith("/")) {
      throw new IllegalArgumentException("partition prefix must end with '/': \"" + prefix + "\"");
    }
  }
}
