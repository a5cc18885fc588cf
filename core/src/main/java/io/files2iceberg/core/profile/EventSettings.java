package io.files2iceberg.core.profile;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the batcher publishes change events (the {@code events} section of the deployment file):
 * one event per commit, rollback and dropped partition, published at least once from the ledger's
 * outbox. Unset, to {@code <home>/events/changes.jsonl}.
 *
 * @param pubsubTopic the Pub/Sub topic, {@code projects/<project>/topics/<topic>}
 */
public record EventSettings(Optional<String> pubsubTopic) {

  /** No topic: events go to the home's file. */
  public static final EventSettings HOME_FILE = new EventSettings(Optional.empty());

  private static final Pattern TOPIC = Pattern.compile("projects/[^/\\s]+/topics/[^/\\s]+");

  public EventSettings {
    Objects.requireNonNull(pubsubTopic, "pubsubTopic");
    pubsubTopic.ifPresent(topic -> problem(topic).ifPresent(p -> {
      throw new IllegalArgumentException("events.pubsub-topic " + p);
    }));
  }

  /** Why {@code topic} is not a topic's full name, or empty when it is. */
  static Optional<String> problem(String topic) {
    return TOPIC.matcher(topic).matches() ? Optional.empty()
        : Optional.of("must be a topic's full name, projects/<project>/topics/<topic>, got \"" + topic + "\"");
  }
}
