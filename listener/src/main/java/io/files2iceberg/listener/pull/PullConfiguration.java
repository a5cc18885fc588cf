package io.files2iceberg.listener.pull;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import io.micronaut.core.convert.format.ReadableBytes;
import java.time.Duration;
import java.util.Optional;

/**
 * Pull mode: the listener pulls from a subscription itself instead of receiving pushes (GKE, VMs).
 * Micronaut properties under {@value #PREFIX}; pull mode runs only when {@code subscription} is
 * set.
 *
 * @param subscription the full subscription name, {@code projects/P/subscriptions/S}
 * @param maxOutstandingMessages flow control: messages handed out and not yet acked or nacked
 * @param maxOutstandingBytes flow control: their bytes ({@code 100MB} style, or a plain number)
 * @param parallelPullCount streaming-pull streams opened on the subscription
 * @param emulatorHost {@code host:port} of a Pub/Sub emulator, reached over plaintext without
 *     credentials; else the {@code PUBSUB_EMULATOR_HOST} environment variable
 * @param shutdownTimeout how long shutdown waits for messages in flight to be handled
 * @param unreachableTimeout how long Pub/Sub may leave the subscriber's channel unanswered (its
 *     streams closed and not re-established, its probes timing out) before the {@code pull} health
 *     check is DOWN
 */
@ConfigurationProperties(PullConfiguration.PREFIX)
record PullConfiguration(
    @Nullable String subscription,
    @Bindable(defaultValue = "100") long maxOutstandingMessages,
    @Bindable(defaultValue = "100MB") @ReadableBytes long maxOutstandingBytes,
    @Bindable(defaultValue = "1") int parallelPullCount,
    @Nullable String emulatorHost,
    @Bindable(defaultValue = "20s") Duration shutdownTimeout,
    @Bindable(defaultValue = "60s") Duration unreachableTimeout) {

  static final String PREFIX = "files2iceberg.listener.pull";
  static final String EMULATOR_HOST_VARIABLE = "PUBSUB_EMULATOR_HOST";

  PullConfiguration {
    if (maxOutstandingMessages < 1) {
      throw new IllegalArgumentException(
          PREFIX + ".max-outstanding-messages: must be at least 1, is " + maxOutstandingMessages);
    }
    if (maxOutstandingBytes < 1) {
      throw new IllegalArgumentException(
          PREFIX + ".max-outstanding-bytes: must be at least 1, is " + maxOutstandingBytes);
    }
    if (parallelPullCount < 1) {
      throw new IllegalArgumentException(
          PREFIX + ".parallel-pull-count: must be at least 1, is " + parallelPullCount);
    }
    if (shutdownTimeout.isNegative()) {
      throw new IllegalArgumentException(PREFIX + ".shutdown-timeout: must not be negative, is " + shutdownTimeout);
    }
    if (unreachableTimeout.isNegative() || unreachableTimeout.isZero()) {
      throw new IllegalArgumentException(
          PREFIX + ".unreachable-timeout: must be positive, is " + unreachableTimeout);
    }
  }

  /** The emulator to pull from: the property, else {@code PUBSUB_EMULATOR_HOST}; blank is none. */
  Optional<String> resolvedEmulatorHost() {
    return Optional.ofNullable(emulatorHost)
        .or(() -> Optional.ofNullable(System.getenv(EMULATOR_HOST_VARIABLE)))
        .map(String::trim)
        .filter(host -> !host.isEmpty());
  }
}
