package io.files2iceberg.listener.pull;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The deployment's real SQLite ledger, but giving up on a held write lock after {@value #PROPERTY}
 * instead of 10 s, so a test can make the ledger unavailable for a moment. Only where a test sets
 * the property.
 */
@Factory
@Requires(property = ShortBusyTimeoutLedger.PROPERTY)
final class ShortBusyTimeoutLedger {
  static final String PROPERTY = "files2iceberg.test.ledger-busy-timeout";

  @Singleton
  @Replaces(Ledger.class)
  @Bean(preDestroy = "close")
  Ledger ledger(ProfileRegistry profiles, Clock clock, @Property(name = PROPERTY) Duration busyTimeout) {
    return SqliteLedger.open(Path.of(profiles.deployment().ledger().sqlitePath()), clock, busyTimeout);
  }
}
