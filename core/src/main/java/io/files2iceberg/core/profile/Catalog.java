package io.files2iceberg.core.profile;

import java.util.Map;
import java.util.Optional;

/**
 * The Iceberg catalog named by the first part of {@code load.iceberg.table}.
 *
 * @param type jdbc (the embedded default, on SQLite), hadoop or rest (BigLake)
 * @param uri the JDBC URL or REST endpoint; the embedded default is {@code <home>/catalog.db}
 * @param warehouse the warehouse location; the embedded default is {@code <home>/warehouse}
 * @param userProject rest: sent as {@code header.x-goog-user-project}
 * @param authType rest: {@code rest.auth.type}, Google's auth manager by default
 * @param ioImpl rest: {@code io-impl}, GCS file IO by default
 * @param vendedCredentials rest: ask the catalog for vended credentials
 * @param properties further catalog properties, passed as they are
 */
public record Catalog(
    CatalogType type,
    String uri,
    String warehouse,
    Optional<String> userProject,
    Optional<String> authType,
    Optional<String> ioImpl,
    boolean vendedCredentials,
    Map<String, String> properties) {

  public static final String GOOGLE_AUTH_MANAGER = "org.apache.iceberg.gcp.auth.GoogleAuthManager";
  public static final String GCS_FILE_IO = "org.apache.iceberg.gcp.gcs.GCSFileIO";

  public Catalog {
    properties = Map.copyOf(properties);
  }

  /** Catalog implementations. Codes are what profiles spell. */
  public enum CatalogType {
    JDBC("jdbc"),
    HADOOP("hadoop"),
    REST("rest");

    private final String code;

    CatalogType(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }
}
