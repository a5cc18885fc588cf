package io.files2iceberg.listener;

import io.files2iceberg.core.ledger.Ledger;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.reactivestreams.Publisher;

/**
 * {@code /health} is DOWN (503) while the ledger cannot take a write, with the reason: then no
 * message could be acked. A store that still answers reads but refuses writes (a read-only or full
 * SQLite file, Firestore without write permission) is DOWN too. Where the details are not shown
 * (a listener the network reaches), the reason is in the log: once when it goes DOWN or the reason
 * changes, and once when it is UP again.
 */
@Singleton
final class LedgerHealthIndicator implements HealthIndicator {
  private final Ledger ledger;
  private final HealthLog log = new HealthLog("ledger");

  LedgerHealthIndicator(Ledger ledger) {
    this.ledger = ledger;
  }

  @Override
  public Publisher<HealthResult> getResult() {
    // Called once per health request, so the ledger is probed every time (within ledger.deadline).
    Optional<String> unavailable = ledger.unavailableBecause();
    log.observe(unavailable);
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("available", unavailable.isEmpty());
    unavailable.ifPresent(reason -> details.put("reason", reason));
    return Publishers.just(
        HealthResult.builder("ledger", unavailable.isEmpty() ? HealthStatus.UP : HealthStatus.DOWN)
            .details(details)
            .build());
  }
}
