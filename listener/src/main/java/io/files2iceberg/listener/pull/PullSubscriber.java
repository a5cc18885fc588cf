package io.files2iceberg.listener.pull;

import com.google.api.core.ApiService;
import com.google.api.gax.batching.FlowControlSettings;
import com.google.api.gax.batching.FlowController.LimitExceededBehavior;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.cloud.pubsub.v1.AckReplyConsumer;
import com.google.cloud.pubsub.v1.Subscriber;
import com.google.cloud.pubsub.v1.SubscriptionAdminSettings;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.pubsub.v1.ProjectSubscriptionName;
import com.google.pubsub.v1.PubsubMessage;
import io.files2iceberg.listener.handle.ListenerMeter;
import io.files2iceberg.listener.handle.NotificationHandler;
import io.files2iceberg.listener.handle.Outcome;
import io.files2iceberg.listener.handle.ReceivedMessage;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pull mode: a streaming-pull {@link Subscriber} on {@code files2iceberg.listener.pull.subscription}
 * that hands every message to the same {@link NotificationHandler} as the push endpoint and
 * replies from its outcome alone: ack when {@link Outcome#isAck()}, else nack, so Pub/Sub
 * redelivers (after the subscription's retry policy) and nothing is acknowledged before its ledger
 * write commits.
 *
 * <p>Starts once the HTTP server is up (health and metrics answer while it pulls) and stops on
 * shutdown, waiting up to {@code shutdown-timeout} for the messages in flight; a message whose
 * handling did not finish is not acked and comes back. A subscriber that fails for good (no such
 * subscription, no permission) is logged and reported DOWN by the {@code pull} health indicator,
 * as is one whose Pub/Sub has not answered on its channel for {@code unreachable-timeout} ({@link
 * PubsubReachability}, on the channel of either kind).
 *
 * <p>With an emulator host the channel is plaintext and carries no credentials: the Java client
 * does not read {@code PUBSUB_EMULATOR_HOST} itself.
 */
@Singleton
@Requires(property = PullConfiguration.PREFIX + ".subscription")
final class PullSubscriber {
  private static final Logger LOG = LoggerFactory.getLogger(PullSubscriber.class);

  /** Counter of pulled messages by reply ({@code ack}, {@code nack}). */
  static final String REPLIES_METER = ListenerMeter.PULL_REPLIES.micrometerName();
  /** As the client's Subscriber sets its default channel. */
  private static final int MAX_INBOUND_MESSAGE_SIZE = 20 * 1024 * 1024;
  private static final int MAX_INBOUND_METADATA_SIZE = 4 * 1024 * 1024;

  private final PullConfiguration configuration;
  private final String subscription;
  private final NotificationHandler handler;
  private final Counter acks;
  private final Counter nacks;
  private final PubsubReachability reachability;

  // Guarded by this.
  private Subscriber subscriber;
  private ManagedChannel channel;
  private boolean stopped;

  PullSubscriber(PullConfiguration configuration, NotificationHandler handler, MeterRegistry meters) {
    this.configuration = configuration;
    this.subscription = configuration.subscription().trim();
    if (!ProjectSubscriptionName.isParsableFrom(subscription)) {
      throw new ConfigurationException(
          PullConfiguration.PREFIX + ".subscription: \"" + subscription
              + "\" is not a full subscription name, projects/<project>/subscriptions/<subscription>");
    }
    this.handler = handler;
    this.reachability = new PubsubReachability(subscription, configuration.unreachableTimeout(), Clock.systemUTC());
    this.acks = replies(meters, "ack");
    this.nacks = replies(meters, "nack");
  }

  private static Counter replies(MeterRegistry meters, String reply) {
    return Counter.builder(REPLIES_METER)
        .description("Pulled messages by reply: ack, or nack for redelivery")
        .tag("reply", reply)
        .register(meters);
  }

  @EventListener
  void onStartup(ServerStartupEvent event) {
    start();
  }

  synchronized void start() {
    if (subscriber != null || stopped) {
      return;
    }
    Subscriber.Builder builder =
        Subscriber.newBuilder(subscription, this::receive)
            .setParallelPullCount(configuration.parallelPullCount())
            .setFlowControlSettings(
                FlowControlSettings.newBuilder()
                    .setMaxOutstandingElementCount(configuration.maxOutstandingMessages())
                    .setMaxOutstandingRequestBytes(configuration.maxOutstandingBytes())
                    .setLimitExceededBehavior(LimitExceededBehavior.Block)
                    .build());
    Optional<String> emulator = configuration.resolvedEmulatorHost();
    if (emulator.isPresent()) {
      channel = ManagedChannelBuilder.forTarget(emulator.get()).usePlaintext().intercept(reachability).build();
      builder
          .setChannelProvider(FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)))
          .setCredentialsProvider(NoCredentialsProvider.create());
    } else {
      // The Subscriber's own default channel, with the reachability watch added.
      builder.setChannelProvider(
          SubscriptionAdminSettings.defaultGrpcTransportProviderBuilder()
              .setMaxInboundMessageSize(MAX_INBOUND_MESSAGE_SIZE)
              .setMaxInboundMetadataSize(MAX_INBOUND_METADATA_SIZE)
              .setKeepAliveTimeDuration(Duration.ofMinutes(5))
              .setInterceptorProvider(() -> List.of(reachability))
              .build());
    }
    subscriber = builder.build();
    subscriber.addListener(
        new ApiService.Listener() {
          @Override
          public void failed(ApiService.State from, Throwable failure) {
            LOG.error("Pulling from {} failed for good (was {}); the pull health check reports DOWN",
                subscription, from, failure);
          }
        },
        MoreExecutors.directExecutor());
    subscriber.startAsync();
    reachability.start();
    LOG.info(
        "Pulling from {}{}: at most {} messages and {} bytes outstanding, {} stream(s)",
        subscription,
        emulator.map(host -> " on the emulator at " + host).orElse(""),
        configuration.maxOutstandingMessages(),
        configuration.maxOutstandingBytes(),
        configuration.parallelPullCount());
  }

  /** Called by the client's executor threads, any number at once (up to the flow control). */
  private void receive(PubsubMessage message, AckReplyConsumer reply) {
    Outcome outcome;
    try {
      ReceivedMessage received = PulledMessages.received(message, subscription);
      outcome = handler.handle(received);
    } catch (RuntimeException e) {
      // The handler never throws; anything here is a bug, and the message must come back.
      LOG.error("Pulled message {} could not be handled; nacking it", message.getMessageId(), e);
      outcome = Outcome.RETRY;
    }
    if (outcome.isAck()) {
      reply.ack();
      acks.increment();
    } else {
      reply.nack();
      nacks.increment();
    }
  }

  /** The subscriber's state; {@code NEW} before the server has started. */
  synchronized ApiService.State state() {
    return subscriber == null ? ApiService.State.NEW : subscriber.state();
  }

  /** When Pub/Sub last answered on the subscriber's channel. */
  PubsubReachability reachability() {
    return reachability;
  }

  PullConfiguration configuration() {
    return configuration;
  }

  String subscription() {
    return subscription;
  }

  /**
   * Stops pulling, then waits for the messages in flight; idempotent. Micronaut destroys beans
   * after the beans that depend on them, so the handler and its ledger are still open here.
   */
  @PreDestroy
  synchronized void stop() {
    stopped = true;
    reachability.close();
    if (subscriber != null) {
      long timeout = configuration.shutdownTimeout().toMillis();
      try {
        subscriber.stopAsync().awaitTerminated(timeout, TimeUnit.MILLISECONDS);
        LOG.info("Stopped pulling from {}", subscription);
      } catch (TimeoutException e) {
        LOG.warn("Pulling from {} did not stop within {} ms; unacked messages will be redelivered",
            subscription, timeout);
      } catch (IllegalStateException e) {
        LOG.warn("Pulling from {} had already failed: {}", subscription, e.getMessage());
      }
      subscriber = null;
    }
    if (channel != null) {
      channel.shutdown();
      try {
        if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
          channel.shutdownNow();
        }
      } catch (InterruptedException e) {
        channel.shutdownNow();
        Thread.currentThread().interrupt();
      }
      channel = null;
    }
  }
}
