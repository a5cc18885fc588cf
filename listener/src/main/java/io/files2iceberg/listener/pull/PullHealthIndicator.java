package io.files2iceberg.listener.pull;

import com.google.api.core.ApiService;
import io.files2iceberg.listener.HealthLog;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.reactivestreams.Publisher;

/**
 * {@code pull} in {@code /health}: DOWN once the subscriber has failed for good or stopped, and
 * while it runs but Pub/Sub has not answered on its channel for longer than {@code
 * unreachable-timeout} (nothing can arrive: its streams close and are not re-established), so
 * an orchestrator sees a listener that receives nothing; UP while it starts, and again as soon as
 * Pub/Sub answers.
 */
@Singleton
@Requires(beans = PullSubscriber.class)
final class PullHealthIndicator implements HealthIndicator {
  private final PullSubscriber subscriber;
  private final HealthLog log = new HealthLog("pull");

  PullHealthIndicator(PullSubscriber subscriber) {
    this.subscriber = subscriber;
  }

  @Override
  public Publisher<HealthResult> getResult() {
    ApiService.State state = subscriber.state();
    Duration timeout = subscriber.configuration().unreachableTimeout();
    PubsubReachability reachability = subscriber.reachability();
    Duration silent = reachability.silentFor();
    boolean unreachable = silent.compareTo(timeout) > 0;
    HealthStatus status =
        switch (state) {
          case NEW, STARTING -> HealthStatus.UP;
          case RUNNING -> unreachable ? HealthStatus.DOWN : HealthStatus.UP;
          case STOPPING, TERMINATED, FAILED -> HealthStatus.DOWN;
        };
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("subscription", subscriber.subscription());
    details.put("state", state.name());
    details.put("reachable", !unreachable);
    details.put("silentSeconds", silent.toSeconds());
    if (unreachable) {
      details.put(
          "reason",
          "Pub/Sub has not answered for " + silent.toSeconds() + " s (more than "
              + PullConfiguration.PREFIX + ".unreachable-timeout = " + timeout.toSeconds() + " s)"
              + reachability.lastFailure().map(s -> "; the last call ended " + s.getCode()
                  + (s.getDescription() == null ? "" : ": " + s.getDescription())).orElse(""));
    }
    log.observe(status == HealthStatus.DOWN
        ? Optional.of(subscriber.subscription() + ": " + details.getOrDefault("reason", "the subscriber is " + state))
        : Optional.empty());
    return Publishers.just(HealthResult.builder("pull", status).details(details).build());
  }
}
