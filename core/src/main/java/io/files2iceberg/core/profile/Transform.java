package io.files2iceberg.core.profile;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Row transformations, applied in this order: {@code filter} on the source column names, then
 * {@code rename-columns}, then {@code cast.columns}.
 *
 * @param filter Spark SQL predicates; a row is kept when all hold
 * @param renameColumns source column name to target column name, in declaration order
 * @param castColumns target column name to Spark SQL type
 * @param onBadRecord what happens to a row whose cast fails
 * @param rescuedDataColumn the STRING column that keeps, as JSON with the row's file, the values a
 *     row cannot load as they are (a failed cast, a column the table cannot take), so that the row
 *     loads instead; empty: no such column, a failed cast is a bad record
 */
public record Transform(
    List<String> filter,
    Map<String, String> renameColumns,
    Map<String, String> castColumns,
    BadRecordPolicy onBadRecord,
    Optional<String> rescuedDataColumn) {

  public Transform {
    filter = List.copyOf(filter);
    renameColumns = Collections.unmodifiableMap(new LinkedHashMap<>(renameColumns));
    castColumns = Collections.unmodifiableMap(new LinkedHashMap<>(castColumns));
    Objects.requireNonNull(rescuedDataColumn, "rescuedDataColumn");
  }

  /** Transforms without a rescued data column. */
  public Transform(
      List<String> filter,
      Map<String, String> renameColumns,
      Map<String, String> castColumns,
      BadRecordPolicy onBadRecord) {
    this(filter, renameColumns, castColumns, onBadRecord, Optional.empty());
  }

  /** What happens to a row whose cast fails. Codes are what profiles spell. */
  public enum BadRecordPolicy {
    /** The batch fails, naming the file and the column. */
    FAIL("fail"),
    /** The row goes to the {@code <table>__rejected} Iceberg table; the batch loads the rest. */
    REJECT("reject");

    private final String code;

    BadRecordPolicy(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }
}
