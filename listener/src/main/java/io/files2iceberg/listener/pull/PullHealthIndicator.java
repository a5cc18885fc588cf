package io.files2iceberg.listener.pull;

import com.google.api.core.ApiService;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import java.util.Map;
import org.reactivestreams.Publisher;

/**
 * {@code pull} in {@code /health}: DOWN once the subscriber has failed for good or stopped, so an
 * orchestrator restarts a listener that no longer pulls; UP while it starts or runs.
 */
@Singleton
@Requires(beans = PullSubscriber.class)
final class PullHealthIndicator implements HealthIndicator {
  private final PullSubscriber subscriber;

  PullHealthIndicator(PullSubscriber subscriber) {
    this.subscriber = subscriber;
  }

  @Override
  public Publisher<HealthResult> getResult() {
    ApiService.State state = subscriber.state();
    HealthStatus status =
        switch (state) {
          case NEW, STARTING, RUNNING -> HealthStatus.UP;
          case STOPPING, TERMINATED, FAILED -> HealthStatus.DOWN;
        };
    return Publishers.just(
        HealthResult.builder("pull", status)
            .details(Map.of("subscription", subscriber.subscription(), "state", state.name()))
            .build());
  }
}
