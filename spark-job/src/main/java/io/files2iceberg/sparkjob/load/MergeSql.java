package io.files2iceberg.sparkjob.load;

import static io.files2iceberg.sparkjob.extract.SqlNames.quote;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The parts every {@code MERGE INTO <target> AS t USING <view> AS s} of a batch shares: the
 * temporary view that holds its source rows, and the match on the key.
 */
final class MergeSql {
  private MergeSql() {}

  /**
   * The temporary view of a batch's MERGE source: {@code files2iceberg_<kind>_<batch id>}, the
   * batch id's characters other than letters, digits and {@code _} made {@code _}.
   */
  static String view(String kind, String batchId) {
    return "files2iceberg_" + kind + "_" + batchId.replaceAll("[^A-Za-z0-9_]", "_");
  }

  /** The {@code ON} condition that matches a stored row to a source row: {@code t.k = s.k AND ...}. */
  static String keysMatch(List<String> keys) {
    return keys.stream().map(k -> "t." + quote(k) + " = s." + quote(k)).collect(Collectors.joining(" AND "));
  }
}
