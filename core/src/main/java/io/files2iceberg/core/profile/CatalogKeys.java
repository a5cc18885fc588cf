package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileKeys.codes;
import static io.files2iceberg.core.profile.ProfileKeys.doc;
import static io.files2iceberg.core.profile.ValueType.BOOLEAN;
import static io.files2iceberg.core.profile.ValueType.MAP;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK;
import static io.files2iceberg.core.profile.ValueType.STRING;

import io.files2iceberg.core.profile.ProfileKeys.Doc;
import io.files2iceberg.core.profile.ProfileKeys.Key;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The keys of a profile's {@code metadata} and {@code catalog} sections: where manifests and logs
 * go, and the Iceberg catalog that holds the table. Part of {@link ProfileKeys}.
 */
final class CatalogKeys {

  private static final KeyList<Key<?>> KEYS = new KeyList<>();

  static final Key<String> METADATA_PATH =
      key("metadata.path", NON_BLANK, p -> p.metadata().path(),
        doc("`<home>/metadata/<profile>/`",
          """
          Folder for batch manifests and job logs, on `gs://` or local.
          """));

  static final Key<String> CATALOG_TYPE =
      key("catalog.type", NON_BLANK, p -> p.catalog().type().code(),
        doc("`jdbc`",
          """
          `jdbc` (the embedded default, on SQLite), `hadoop` or `rest` (BigLake).
          """,
          codes(Catalog.CatalogType.values(), Catalog.CatalogType::code)));
  static final Key<String> CATALOG_URI = key("catalog.uri", STRING, p -> p.catalog().uri(),
        doc("jdbc: `jdbc:sqlite:<home>/catalog.db`; rest: required",
          """
          The JDBC URL or REST endpoint; unused by `hadoop`.
          """));
  static final Key<String> CATALOG_WAREHOUSE =
      key("catalog.warehouse", NON_BLANK, p -> p.catalog().warehouse(),
        doc("jdbc, hadoop: `<home>/warehouse`; rest: required",
          """
          The warehouse location.
          """));
  static final Key<String> CATALOG_USER_PROJECT =
      key("catalog.user-project", NON_BLANK, p -> p.catalog().userProject().orElse(null),
        doc("none",
          """
          rest: sent as `header.x-goog-user-project`.
          """));
  static final Key<String> CATALOG_AUTH_TYPE =
      key("catalog.auth-type", NON_BLANK, p -> p.catalog().authType().orElse(null),
        doc("rest: `org.apache.iceberg.gcp.auth.GoogleAuthManager`; else none",
          """
          rest: `rest.auth.type`.
          """));
  static final Key<String> CATALOG_IO_IMPL =
      key("catalog.io-impl", NON_BLANK, p -> p.catalog().ioImpl().orElse(null),
        doc("rest: `org.apache.iceberg.gcp.gcs.GCSFileIO`; else none",
          """
          The catalog's `io-impl`.
          """));
  static final Key<Boolean> CATALOG_VENDED_CREDENTIALS =
      key("catalog.vended-credentials", BOOLEAN, p -> p.catalog().vendedCredentials(),
        doc("`false`",
          """
          rest: ask the catalog for vended credentials.
          """));
  static final Key<Map<String, String>> CATALOG_PROPERTIES =
      key("catalog.properties", MAP, p -> p.catalog().properties(),
        doc("`{}`",
          """
          Further catalog properties, passed as they are.
          """));

  private CatalogKeys() {}

  /** This section's keys, in documentation order. */
  static List<Key<?>> keys() {
    return KEYS.keys();
  }

  private static <T> Key<T> key(String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc) {
    return KEYS.add(new Key<>(path, type, resolved, doc));
  }
}
