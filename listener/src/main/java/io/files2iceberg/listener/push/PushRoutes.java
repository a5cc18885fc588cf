package io.files2iceberg.listener.push;

import io.files2iceberg.core.profile.ListenerSettings;
import io.micronaut.context.ExecutionHandleLocator;
import io.micronaut.web.router.DefaultRouteBuilder;
import jakarta.inject.Singleton;

/**
 * Routes {@code POST <listener.push-path>} to {@link PushController}: the path is a profile
 * setting, known only once the profiles are loaded, so it cannot be an annotation.
 */
@Singleton
@SuppressWarnings("overrides") // DefaultRouteBuilder's own varargs signatures
final class PushRoutes extends DefaultRouteBuilder {

  PushRoutes(ExecutionHandleLocator locator, ListenerSettings settings) {
    super(locator);
    POST(settings.pushPath(), PushController.class, "push", String.class);
  }
}
