package io.files2iceberg.sparkjob.maintain;

import io.files2iceberg.core.profile.Maintain;
import io.files2iceberg.core.profile.TableProfile;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Types;

/**
 * The order {@code maintain --sort} rewrites a table's data files in: the profile's {@code
 * maintain.sort-by}, else its {@code maintain.z-order-by}, else the table's own sort order. The
 * profile's columns are checked against the table's schema here, as no earlier step knows it.
 *
 * @param description the order as Iceberg's {@code sort_order} spells it, or {@code zorder(a, b)}
 * @param from {@code maintain.sort-by}, {@code maintain.z-order-by} or {@code table}
 */
record SortChoice(String description, String from, Optional<SortOrder> order, List<String> zOrder) {

  /**
   * The table's order, or empty when neither the profile nor the table has one.
   *
   * @throws IllegalArgumentException naming the key and the column the table does not have
   */
  static Optional<SortChoice> of(TableProfile profile, Table table) {
    Maintain maintain = profile.maintain();
    Schema schema = table.schema();
    if (!maintain.sortBy().isEmpty()) {
      SortOrder.Builder builder = SortOrder.builderFor(schema);
      List<Maintain.SortField> fields = maintain.sortFields();
      for (int i = 0; i < fields.size(); i++) {
        Maintain.SortField field = fields.get(i);
        requireColumn(schema, "maintain.sort-by[" + i + "]", field.column(), table);
        NullOrder nulls = field.nullsFirst() ? NullOrder.NULLS_FIRST : NullOrder.NULLS_LAST;
        builder = field.ascending() ? builder.asc(field.column(), nulls) : builder.desc(field.column(), nulls);
      }
      SortOrder order = builder.build();
      return Optional.of(new SortChoice(Spark3Util.describe(order), "maintain.sort-by", Optional.of(order), List.of()));
    }
    if (!maintain.zOrderBy().isEmpty()) {
      List<String> columns = maintain.zOrderBy();
      for (int i = 0; i < columns.size(); i++) {
        requireColumn(schema, "maintain.z-order-by[" + i + "]", columns.get(i), table);
      }
      return Optional.of(new SortChoice("zorder(" + String.join(", ", columns) + ")", "maintain.z-order-by",
          Optional.empty(), columns));
    }
    SortOrder own = table.sortOrder();
    return own.isUnsorted() ? Optional.empty()
        : Optional.of(new SortChoice(Spark3Util.describe(own), "table", Optional.of(own), List.of()));
  }

  /** Why a table without an order is not sorted, and what to set. */
  static String noOrder(String table) {
    return "table " + table + " has no sort order: set maintain.sort-by (or maintain.z-order-by) in its profile,"
        + " or give the table one with ALTER TABLE " + table + " WRITE ORDERED BY ...";
  }

  /** The rewrite action with this order as its strategy. */
  RewriteDataFiles apply(RewriteDataFiles action) {
    return order.map(action::sort).orElseGet(() -> action.zOrder(zOrder.toArray(String[]::new)));
  }

  private static void requireColumn(Schema schema, String key, String column, Table table) {
    Types.NestedField field = schema.findField(column);
    if (field == null) {
      throw new IllegalArgumentException(key + ": column \"" + column + "\" is not in table " + table.name()
          + " (its columns: " + schema.columns().stream().map(Types.NestedField::name)
          .collect(Collectors.joining(", ")) + ")");
    }
  }
}
