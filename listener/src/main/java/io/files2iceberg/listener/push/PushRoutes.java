package io.files2iceberg.listener.push;

import io.files2iceberg.core.profile.ListenerSettings;
import io.micronaut.context.ExecutionHandleLocator;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.web.router.DefaultRouteBuilder;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes {@code POST <listener.push-path>} to {@link PushController}: the path is a profile
 * setting, known only once the profiles are loaded, so it cannot be an annotation.
 *
 * <p>The route exists only when the push endpoint is on ({@link ListenerSettings#isPushEnabled}):
 * a pulling listener has none unless {@code listener.push-enabled = true}, so a post to the path
 * is a {@code 404}, like any unknown path, and never reaches the ledger.
 */
@Singleton
@SuppressWarnings("overrides") // DefaultRouteBuilder's own varargs signatures
final class PushRoutes extends DefaultRouteBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(PushRoutes.class);

  /** Pull mode's subscription (PullConfiguration in listener.pull): set, the listener pulls. */
  static final String PULL_SUBSCRIPTION = "files2iceberg.listener.pull.subscription";

  PushRoutes(
      ExecutionHandleLocator locator,
      ListenerSettings settings,
      @Nullable @Property(name = PULL_SUBSCRIPTION) String pullSubscription) {
    super(locator);
    boolean pulls = pullSubscription != null && !pullSubscription.isBlank();
    if (!settings.isPushEnabled(pulls)) {
      if (!pulls) {
        throw new ConfigurationException(
            "listener.push-enabled is false and " + PULL_SUBSCRIPTION + " is not set: the listener would"
                + " receive nothing; set the subscription (pull mode) or leave the push endpoint on");
      }
      LOG.info("The push endpoint {} is off: the listener pulls from {} (listener.push-enabled = true turns it on)",
          settings.pushPath(), pullSubscription.trim());
      return;
    }
    // Every content type reaches the controller: a 415 would be redelivered forever, so the
    // controller quarantines a body that is not JSON and acknowledges it.
    POST(settings.pushPath(), PushController.class, "push", HttpRequest.class, String.class)
        .consumes(MediaType.ALL_TYPE);
  }
}
