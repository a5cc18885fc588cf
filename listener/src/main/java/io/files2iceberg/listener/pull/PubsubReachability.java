package io.files2iceberg.listener.pull;

import com.google.pubsub.v1.GetSubscriptionRequest;
import com.google.pubsub.v1.SubscriberGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When Pub/Sub last answered on the subscriber's gRPC channel, watched from the channel itself: the
 * client's {@code Subscriber} stays RUNNING while its streaming pulls are closed and re-opened
 * against a Pub/Sub that does not answer (a network partition, a hung front end), so its state
 * cannot tell.
 *
 * <p>An answer is anything Pub/Sub sends on any call: response headers, a message (pulled
 * messages, the stream's keepalive replies), or a status of its own (also an error such as {@code
 * PERMISSION_DENIED}); a call that ends {@code UNAVAILABLE}, {@code DEADLINE_EXCEEDED} or {@code
 * CANCELLED} was not answered. An idle stream may carry nothing for a long time, so when nothing
 * has arrived for a quarter of the timeout the watch asks itself: a {@code GetSubscription} on the
 * same channel, with a deadline, whose reply (the subscription, or a refusal) counts as an answer.
 */
final class PubsubReachability implements ClientInterceptor, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PubsubReachability.class);

  private final String subscription;
  private final Duration timeout;
  private final Duration probeEvery;
  private final Clock clock;
  private final ScheduledExecutorService probes;
  // Guarded by this.
  private Instant lastAnswer;
  private Channel channel;
  private Optional<Status> lastFailure = Optional.empty();

  /**
   * @param timeout how long without an answer makes Pub/Sub unreachable
   */
  PubsubReachability(String subscription, Duration timeout, Clock clock) {
    this.subscription = subscription;
    this.timeout = timeout;
    this.probeEvery = Duration.ofMillis(Math.max(250, timeout.toMillis() / 4));
    this.clock = clock;
    this.lastAnswer = clock.instant();
    this.probes =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "pubsub-reachability");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Starts probing once the subscriber has made its first call. */
  void start() {
    probes.scheduleWithFixedDelay(this::probeIfQuiet, probeEvery.toMillis(), probeEvery.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    synchronized (this) {
      if (channel == null) {
        channel = next;
      }
    }
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        super.start(
            new SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onHeaders(Metadata responseHeaders) {
                answered();
                super.onHeaders(responseHeaders);
              }

              @Override
              public void onMessage(R message) {
                answered();
                super.onMessage(message);
              }

              @Override
              public void onClose(Status status, Metadata trailers) {
                closed(status);
                super.onClose(status, trailers);
              }
            },
            headers);
      }
    };
  }

  private void closed(Status status) {
    switch (status.getCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED -> {
        synchronized (this) {
          lastFailure = Optional.of(status);
        }
      }
      default -> answered();
    }
  }

  private synchronized void answered() {
    lastAnswer = clock.instant();
  }

  /** How long Pub/Sub has not answered. */
  synchronized Duration silentFor() {
    return Duration.between(lastAnswer, clock.instant());
  }

  /** Whether Pub/Sub has not answered for longer than the timeout. */
  boolean isUnreachable() {
    return silentFor().compareTo(timeout) > 0;
  }

  /** Why the last call Pub/Sub did not answer ended, when one has. */
  synchronized Optional<Status> lastFailure() {
    return lastFailure;
  }

  private void probeIfQuiet() {
    Channel probeChannel;
    synchronized (this) {
      probeChannel = channel;
    }
    if (probeChannel == null || silentFor().compareTo(probeEvery) < 0) {
      return;
    }
    // Through this interceptor, so that the reply counts like any other.
    ClientCall<GetSubscriptionRequest, com.google.pubsub.v1.Subscription> call =
        interceptCall(
            SubscriberGrpc.getGetSubscriptionMethod(),
            CallOptions.DEFAULT.withDeadlineAfter(Math.min(timeout.toMillis(), 10_000), TimeUnit.MILLISECONDS),
            probeChannel);
    ClientCalls.asyncUnaryCall(
        call,
        GetSubscriptionRequest.newBuilder().setSubscription(subscription).build(),
        new StreamObserver<>() {
          @Override
          public void onNext(com.google.pubsub.v1.Subscription value) {}

          @Override
          public void onError(Throwable failure) {
            LOG.debug("Probe of {}: {}", subscription, Status.fromThrowable(failure));
          }

          @Override
          public void onCompleted() {}
        });
  }

  @Override
  public void close() {
    probes.shutdownNow();
  }
}
