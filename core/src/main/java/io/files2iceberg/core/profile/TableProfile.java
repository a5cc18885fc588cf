package io.files2iceberg.core.profile;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One table's ingestion profile, parsed and validated once from a HOCON ({@code .conf}) or YAML
 * ({@code .yaml}, {@code .yml}) file. Every value is resolved: defaults are filled in and the
 * embedded-mode locations are absolute paths under the {@link Home}. A profile describes its table
 * only: what the deployment has once (ledger, listener, job) is its {@link Deployment}.
 *
 * @param name the profile's name: its file name without the extension
 * @param source the file the profile was read from
 * @param quality its expectations ({@code quality.expectations})
 */
public record TableProfile(
    String name,
    Path source,
    Extract extract,
    Transform transform,
    Load load,
    Metadata metadata,
    Catalog catalog,
    Maintain maintain,
    Quality quality) {

  public TableProfile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(extract, "extract");
    Objects.requireNonNull(transform, "transform");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(catalog, "catalog");
    Objects.requireNonNull(maintain, "maintain");
    Objects.requireNonNull(quality, "quality");
  }

  /** A profile without expectations. */
  public TableProfile(String name, Path source, Extract extract, Transform transform, Load load, Metadata metadata,
      Catalog catalog, Maintain maintain) {
    this(name, source, extract, transform, load, metadata, catalog, maintain, Quality.NONE);
  }

  /** The fully qualified Iceberg table this profile loads, {@code catalog.namespace.table}. */
  public String table() {
    return load.table().qualifiedName();
  }

  /**
   * Whether the table lives in the embedded catalog: catalog name {@value Home#LOCAL_CATALOG},
   * a JDBC catalog on SQLite (by default {@code <home>/catalog.db}).
   */
  public boolean isEmbeddedCatalog() {
    return load.table().catalog().equals(Home.LOCAL_CATALOG)
        && catalog.type() == Catalog.CatalogType.JDBC
        && catalog.uri().startsWith("jdbc:sqlite:");
  }
}
