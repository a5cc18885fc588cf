package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileKeys.doc;
import static io.files2iceberg.core.profile.ValueType.LIST;

import io.files2iceberg.core.profile.ProfileKeys.Doc;
import io.files2iceberg.core.profile.ProfileKeys.Key;
import io.files2iceberg.core.profile.ProfileValues.Rule;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The keys of a profile's {@code maintain} section: how {@code files2iceberg maintain} rewrites
 * the table. Part of {@link ProfileKeys}.
 */
final class MaintainKeys {

  private static final KeyList<Key<?>> KEYS = new KeyList<>();

  static final Key<List<String>> MAINTAIN_SORT_BY =
      key("maintain.sort-by", LIST, p -> p.maintain().sortBy(),
        doc("`[]`: the table's sort order",
          """
          The order `maintain --sort` rewrites the data files in (Iceberg's `rewrite_data_files` with
          `strategy => 'sort'`): columns of the table, each optionally followed by `ASC` or `DESC` and
          `NULLS FIRST` or `NULLS LAST`, such as `["event_date", "user_id DESC"]`. Unset, the table's own
          sort order (`ALTER TABLE ... WRITE ORDERED BY`) is used; a table with neither is skipped by
          `--sort`, naming what to set. Not with `maintain.z-order-by`. A column the table does not have
          is reported when `maintain --sort` runs, as the table's columns are not known before.
          """));
  static final Key<List<String>> MAINTAIN_Z_ORDER_BY =
      key("maintain.z-order-by", LIST, p -> p.maintain().zOrderBy(),
        doc("`[]`",
          """
          Columns `maintain --sort` interleaves by a z-order curve instead (Iceberg's `zorder(...)`):
          for tables filtered on several columns at once. Not with `maintain.sort-by`.
          """));

  private MaintainKeys() {}

  /** This section's keys, in documentation order. */
  static List<Key<?>> keys() {
    return KEYS.keys();
  }

  /** The section, checked: each element parses, and at most one of the two keys is set. */
  static Maintain read(ProfileValues v) {
    Optional<List<String>> sortBy = v.each(MAINTAIN_SORT_BY, Rule.parses(Maintain::sortField));
    Optional<List<String>> zOrderBy = v.each(MAINTAIN_Z_ORDER_BY, text -> Maintain.COLUMN.matcher(text).matches()
        ? Optional.empty()
        : Optional.of("expected a column name, such as \"user_id\", got " + ValueType.quote(text)));
    if (sortBy.map(l -> !l.isEmpty()).orElse(false) && zOrderBy.map(l -> !l.isEmpty()).orElse(false)) {
      v.reject(MAINTAIN_Z_ORDER_BY, "cannot go with maintain.sort-by: a table's files are rewritten in one order;"
          + " keep maintain.sort-by (a sort) or maintain.z-order-by (a z-order), not both");
    }
    return new Maintain(sortBy.orElse(List.of()).stream().map(String::strip).toList(),
        zOrderBy.orElse(List.of()).stream().map(String::strip).toList());
  }

  private static <T> Key<T> key(String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc) {
    return KEYS.add(new Key<>(path, type, resolved, doc));
  }
}
