package io.files2iceberg.batcher.engine;

import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A landing's tables read back through Iceberg's own reader ({@link IcebergRows}), in the catalog
 * the landing's profile names for each.
 */
final class TableRows {
  private TableRows() {}

  /** Every row of the table. */
  static List<Map<String, Object>> rows(Landing landing, String table) {
    return IcebergRows.rows(registry(landing), table);
  }

  /** The table's {@code id} values, in order. */
  static List<Long> ids(Landing landing, String table) {
    return rows(landing, table).stream().map(row -> ((Number) row.get("id")).longValue())
        .sorted(Comparator.naturalOrder()).toList();
  }

  /** How many snapshots the table has. */
  static int snapshots(Landing landing, String table) {
    return IcebergRows.snapshots(registry(landing), table).size();
  }

  private static ProfileRegistry registry(Landing landing) {
    try {
      return ProfileRegistry.load(landing.config, landing.home);
    } catch (ProfileException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
