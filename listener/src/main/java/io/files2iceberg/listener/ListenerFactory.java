package io.files2iceberg.listener;

import com.google.cloud.storage.Storage;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ListenerSettings;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.storage.StorageClients;
import io.files2iceberg.listener.handle.NotificationHandler;
import io.files2iceberg.listener.handle.ObjectListing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.exceptions.ConfigurationException;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * The listener's beans: the deployment's profiles and listener settings, the ledger, the Cloud
 * Storage client and the {@link NotificationHandler} every transport calls.
 *
 * <p>The profile folder is the property {@value #CONFIG} (environment {@code
 * FILES2ICEBERG_CONFIG}); the deployment file is {@value #DEPLOYMENT} (environment {@code
 * FILES2ICEBERG_DEPLOYMENT}), else {@code deployment.conf} beside the profiles; the home is {@value #HOME} (environment {@code FILES2ICEBERG_HOME}),
 * else {@code .files2iceberg/} in the working directory.
 */
@Factory
final class ListenerFactory {

  /** The profile folder (or single profile file) of the deployment. */
  static final String CONFIG = "files2iceberg.config";
  /** The embedded home. */
  static final String HOME = "files2iceberg.home";
  /** The deployment file, when it is not {@code deployment.conf} beside the profiles. */
  static final String DEPLOYMENT = "files2iceberg.deployment";
  /** The environment variable that names the deployment file. */
  static final String DEPLOYMENT_ENV = "FILES2ICEBERG_DEPLOYMENT";

  /**
   * All profiles of the deployment.
   *
   * @throws ConfigurationException naming every problem when the profiles do not load
   */
  @Singleton
  ProfileRegistry profileRegistry(
      @Property(name = CONFIG) Optional<String> config,
      @Property(name = DEPLOYMENT) Optional<String> deployment,
      @Property(name = HOME) Optional<String> home) {
    String folder =
        config
            .filter(s -> !s.isBlank())
            .orElseThrow(
                () ->
                    new ConfigurationException(
                        CONFIG + " (environment FILES2ICEBERG_CONFIG) must name the folder of the"
                            + " table profiles"));
    try {
      return ProfileRegistry.load(
          Path.of(folder),
          deployment.filter(s -> !s.isBlank()).map(Path::of),
          Home.resolve(home.filter(s -> !s.isBlank()).map(Path::of), System.getenv()));
    } catch (ProfileException e) {
      throw new ConfigurationException(e.getMessage(), e);
    }
  }

  /** The listener settings: the deployment file's. */
  @Singleton
  ListenerSettings listenerSettings(ProfileRegistry profiles) {
    return profiles.deployment().listener();
  }

  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }

  /** The deployment's ledger, closed when the service stops (after in-flight messages). */
  @Singleton
  @Bean(preDestroy = "close")
  Ledger ledger(ProfileRegistry profiles, Clock clock) {
    return Ledgers.open(profiles.deployment().ledger(), clock);
  }

  /** The Cloud Storage client of the deployment's {@code storage} section ({@link StorageClients}). */
  @Singleton
  Storage storage(ProfileRegistry profiles) {
    return StorageClients.create(profiles.deployment().storage());
  }

  /**
   * The marker listing. The Storage client is asked for on the first {@code gs://} listing only,
   * so the embedded mode never needs Google credentials.
   */
  @Singleton
  ObjectListing objectListing(BeanProvider<Storage> storage) {
    return ObjectListing.of(storage::get);
  }

  /**
   * Created at startup (with the profiles and the ledger it needs), so a bad profile folder or an
   * unreachable ledger stops the service before it takes a request.
   */
  @Context
  NotificationHandler notificationHandler(
      Ledger ledger, ProfileRegistry profiles, ObjectListing listing, MeterRegistry meters, Clock clock) {
    return new NotificationHandler(ledger, profiles, listing, meters, clock);
  }
}
