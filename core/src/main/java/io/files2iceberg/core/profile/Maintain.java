package io.files2iceberg.core.profile;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table's {@code maintain} section: the order {@code maintain --sort} rewrites its data files
 * in. At most one of the two is set; with neither, the table's own sort order is used.
 *
 * @param sortBy {@code maintain.sort-by}: columns, each optionally followed by {@code ASC} or
 *     {@code DESC} and {@code NULLS FIRST} or {@code NULLS LAST}, as Iceberg's {@code sort_order} spells them
 * @param zOrderBy {@code maintain.z-order-by}: columns interleaved by a z-order curve
 */
public record Maintain(List<String> sortBy, List<String> zOrderBy) {
  /** No order set. */
  public static final Maintain NONE = new Maintain(List.of(), List.of());

  /**
   * One {@code maintain.sort-by} element: a column name (dots for nested fields) with its
   * direction and null order.
   */
  static final Pattern SORT_FIELD = Pattern.compile(
      "\\s*([A-Za-z_][A-Za-z0-9_.]*)(?:\\s+(?i)(ASC|DESC))?(?:\\s+(?i)NULLS\\s+(FIRST|LAST))?\\s*");
  static final Pattern COLUMN = Pattern.compile("\\s*[A-Za-z_][A-Za-z0-9_.]*\\s*");

  public Maintain {
    sortBy = List.copyOf(sortBy);
    zOrderBy = List.copyOf(zOrderBy);
  }

  /**
   * One parsed {@code maintain.sort-by} element.
   *
   * @param nullsFirst Iceberg's default: nulls first ascending, last descending
   */
  public record SortField(String column, boolean ascending, boolean nullsFirst) {}

  /** The {@code maintain.sort-by} elements, parsed (the loader has checked them). */
  public List<SortField> sortFields() {
    return sortBy.stream().map(Maintain::sortField).toList();
  }

  static SortField sortField(String text) {
    Matcher m = SORT_FIELD.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a column with an optional ASC or DESC and NULLS FIRST or NULLS"
          + " LAST, such as \"event_time DESC NULLS LAST\", got " + ValueType.quote(text));
    }
    boolean ascending = m.group(2) == null || m.group(2).equalsIgnoreCase("ASC");
    boolean nullsFirst = m.group(3) == null ? ascending : m.group(3).equalsIgnoreCase("FIRST");
    return new SortField(m.group(1), ascending, nullsFirst);
  }
}
