package io.files2iceberg.listener.push;

import io.files2iceberg.core.profile.ListenerSettings;
import io.micronaut.context.ExecutionHandleLocator;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
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
    // Every content type reaches the controller: a 415 would be redelivered forever, so the
    // controller quarantines a body that is not JSON and acknowledges it.
    POST(settings.pushPath(), PushController.class, "push", HttpRequest.class, String.class)
        .consumes(MediaType.ALL_TYPE);
  }
}
