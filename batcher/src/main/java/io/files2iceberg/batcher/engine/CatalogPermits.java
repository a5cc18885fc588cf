package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.TableProfile;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The permit a table's job holds while it runs: tables whose catalog is JDBC on one SQLite file
 * (the embedded catalog) share one, because Iceberg commits from two JVMs to one SQLite file fail
 * with {@code SQLITE_BUSY_SNAPSHOT} instead of waiting; every other catalog (REST, Hadoop, a
 * server database) lets its tables run in parallel.
 *
 * <p>A run that does not wait for its jobs ({@link RunOptions#waitForJobs()} false) keeps the
 * permit of a job it leaves running ({@link #keep}) until the run ends, and a table that finds its
 * catalog's permit taken is left to the next run instead of waiting for a job that nobody watches.
 */
final class CatalogPermits {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogPermits.class);

  private final Map<String, Semaphore> sqliteCatalogs = new ConcurrentHashMap<>();
  private final Set<String> kept = ConcurrentHashMap.newKeySet();
  private final boolean waitForJobs;

  /** @param waitForJobs whether the run waits for its jobs, so that a permit is always given back */
  CatalogPermits(boolean waitForJobs) {
    this.waitForJobs = waitForJobs;
  }

  /**
   * Runs one claim-and-job step holding the table's catalog permit (when its catalog needs one);
   * false when interrupted while waiting for it, or, in a run that does not wait for its jobs, when
   * another table's job holds it.
   */
  boolean withPermit(TableProfile profile, Supplier<Boolean> step) {
    Optional<Semaphore> permit = permit(profile);
    if (permit.isEmpty()) {
      return step.get();
    }
    if (waitForJobs) {
      try {
        permit.get().acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    } else if (!permit.get().tryAcquire()) {
      LOG.info("Table {}: catalog {} (one SQLite file) has another table's job running; the table is left to the"
          + " next run", profile.table(), profile.catalog().uri());
      return false;
    }
    try {
      return step.get();
    } finally {
      if (!kept.contains(profile.catalog().uri())) {
        permit.get().release();
      }
    }
  }

  /** The table's job is left running: its catalog's permit stays taken until the run ends. */
  void keep(TableProfile profile) {
    if (permit(profile).isPresent()) {
      kept.add(profile.catalog().uri());
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
