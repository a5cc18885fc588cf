package io.files2iceberg.listener;

import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Real stand-ins for the tests' servers: the bucket is google-cloud-nio's in-memory {@code
 * LocalStorageHelper}, and the SQLite ledger waits only {@link #BUSY_TIMEOUT} for another writer,
 * so a test that holds the write lock sees a 503 quickly. {@link StorageOutageTest} brings its own
 * bucket, a server that fails as GCS fails.
 */
@Factory
class TestBeans {
  static final Duration BUSY_TIMEOUT = Duration.ofMillis(300);

  @Singleton
  @Requires(notEnv = StorageOutageTest.FAILING_GCS)
  @Replaces(bean = Storage.class, factory = ListenerFactory.class)
  Storage storage() {
    // One in-memory bucket store per server (each getOptions() starts an empty one).
    return LocalStorageHelper.getOptions().getService();
  }

  @Singleton
  @Bean(preDestroy = "close")
  @Replaces(bean = Ledger.class, factory = ListenerFactory.class)
  Ledger ledger(ProfileRegistry profiles, Clock clock) {
    return SqliteLedger.open(
        Path.of(profiles.deployment().ledger().sqlitePath()), clock, BUSY_TIMEOUT);
  }
}
