package io.files2iceberg.batcher.events;

import com.google.api.core.ApiFuture;
import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.rpc.TransportChannelProvider;
import com.google.cloud.pubsub.v1.Publisher;
import com.google.protobuf.ByteString;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.TopicName;
import io.files2iceberg.core.ledger.ChangeEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GCP sink ({@code events.pubsub-topic}): one message per event, its data the event's JSON,
 * with attributes {@code eventId}, {@code table} and {@code change} (for subscription filters). An
 * event is taken once its publish future succeeded; ordering is not asked for (consumers order by
 * {@code committedAt} and deduplicate by {@code eventId}).
 */
final class PubSubChangeSink implements ChangeSink {
  private static final Logger LOG = LoggerFactory.getLogger(ChangePublisher.class);
  /** How long a page of publishes may take before the events not yet published are left for the next run. */
  static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(30);

  private final String topic;
  private final Publisher publisher;

  private PubSubChangeSink(String topic, Publisher publisher) {
    this.topic = topic;
    this.publisher = publisher;
  }

  /** Google's endpoint with the application default credentials. */
  static PubSubChangeSink open(String topic) {
    return open(topic, Optional.empty(), Optional.empty());
  }

  /** Through these channels and credentials (an emulator's plaintext channel), else Google's. */
  static PubSubChangeSink open(String topic, Optional<TransportChannelProvider> channels,
      Optional<CredentialsProvider> credentials) {
    try {
      Publisher.Builder builder = Publisher.newBuilder(TopicName.parse(topic));
      channels.ifPresent(builder::setChannelProvider);
      credentials.ifPresent(builder::setCredentialsProvider);
      return new PubSubChangeSink(topic, builder.build());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open a Pub/Sub publisher for " + topic, e);
    }
  }

  @Override
  public List<String> send(List<ChangeEvent> events) throws InterruptedException {
    Map<String, ApiFuture<String>> published = new LinkedHashMap<>();
    for (ChangeEvent event : events) {
      published.put(event.eventId(), publisher.publish(PubsubMessage.newBuilder()
          .setData(ByteString.copyFromUtf8(event.payload()))
          .putAttributes("eventId", event.eventId())
          .putAttributes("table", event.table())
          .putAttributes("change", event.change())
          .build()));
    }
    // One deadline for the page, so that a topic that does not answer holds a run up once, not once an event.
    long deadline = System.nanoTime() + PUBLISH_TIMEOUT.toNanos();
    List<String> taken = new ArrayList<>();
    for (Map.Entry<String, ApiFuture<String>> future : published.entrySet()) {
      try {
        future.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        taken.add(future.getKey());
      } catch (ExecutionException | TimeoutException e) {
        LOG.warn("Change event {} not published to {}; it is published again on the next run: {}", future.getKey(),
            topic, (e instanceof ExecutionException ? e.getCause() : e).toString());
      }
    }
    return taken;
  }

  @Override
  public String describe() {
    return topic;
  }

  @Override
  public void close() {
    publisher.shutdown();
    try {
      publisher.awaitTermination(PUBLISH_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
