package io.files2iceberg.listener;

import io.files2iceberg.core.ledger.Ledger;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import java.util.Map;
import org.reactivestreams.Publisher;

/** {@code /health} is DOWN (503) while the ledger does not answer: no message could be acked. */
@Singleton
final class LedgerHealthIndicator implements HealthIndicator {
  private final Ledger ledger;

  LedgerHealthIndicator(Ledger ledger) {
    this.ledger = ledger;
  }

  @Override
  public Publisher<HealthResult> getResult() {
    // Called once per health request, so the ledger is asked every time.
    boolean available = ledger.isAvailable();
    return Publishers.just(
        HealthResult.builder("ledger", available ? HealthStatus.UP : HealthStatus.DOWN)
            .details(Map.of("available", available))
            .build());
  }
}
