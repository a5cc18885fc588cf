package io.files2iceberg.core.profile;

import java.util.List;
import java.util.Map;

/**
 * Row transformations, applied in this order: {@code filter} on the source column names, then
 * {@code rename-columns}, then {@code cast.columns}.
 *
 * @param filter Spark SQL predicates; a row is kept when all hold
 * @param renameColumns source column name to target column name, in declaration order
 * @param castColumns target column name to Spark SQL type
 */
public record Transform(
    List<String> filter, Map<String, String> renameColumns, Map<String, String> castColumns) {

  public Transform {
    filter = List.copyOf(filter);
    renameColumns = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(renameColumns));
    castColumns = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(castColumns));
  }
}
