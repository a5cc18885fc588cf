package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.TableProfile;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * The permit a table's job holds while it runs: tables whose catalog is JDBC on one SQLite file
 * (the embedded catalog) share one, because Iceberg commits from two JVMs to one SQLite file fail
 * with {@code SQLITE_BUSY_SNAPSHOT} instead of waiting; every other catalog (REST, Hadoop, a
 * server database) lets its tables run in parallel.
 */
final class CatalogPermits {
  private final Map<String, Semaphore> sqliteCatalogs = new ConcurrentHashMap<>();

  /**
   * Runs one claim-and-job step holding the table's catalog permit (when its catalog needs one);
   * false when interrupted while waiting for it.
   */
  boolean withPermit(TableProfile profile, Supplier<Boolean> step) {
    Optional<Semaphore> permit = permit(profile);
    if (permit.isEmpty()) {
      return step.get();
    }
    try {
      permit.get().acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    try {
      return step.get();
    } finally {
      permit.get().release();
    }
  }

  private Optional<Semaphore> permit(TableProfile profile) {
    Catalog catalog = profile.catalog();
    if (catalog.type() != Catalog.CatalogType.JDBC || !catalog.uri().startsWith("jdbc:sqlite:")) {
      return Optional.empty();
    }
    return Optional.of(sqliteCatalogs.computeIfAbsent(catalog.uri(), uri -> new Semaphore(1, true)));
  }
}
