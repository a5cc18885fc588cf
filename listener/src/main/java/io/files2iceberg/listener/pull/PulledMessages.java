package io.files2iceberg.listener.pull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.pubsub.v1.Subscriber;
import com.google.protobuf.Timestamp;
import com.google.pubsub.v1.PubsubMessage;
import io.files2iceberg.listener.handle.ReceivedMessage;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Turns a pulled message into the transport-neutral {@link ReceivedMessage}. */
final class PulledMessages {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PulledMessages() {}

  /**
   * The message as the handler takes it. Its raw payload is the message rendered as the push
   * envelope Pub/Sub would have posted ({@code {"message": {"attributes", "data" (base64),
   * "messageId", "publishTime"}, "subscription"}}), so a quarantined pulled message can be
   * replayed by posting it to the push endpoint.
   */
  static ReceivedMessage received(PubsubMessage message, String subscription) {
    Optional<Instant> publishTime =
        message.hasPublishTime() ? Optional.of(instant(message.getPublishTime())) : Optional.empty();
    byte[] data = message.getData().toByteArray();
    return new ReceivedMessage(
        message.getMessageId(),
        message.getAttributesMap(),
        data,
        publishTime,
        envelope(message, data, publishTime, subscription));
  }

  private static String envelope(
      PubsubMessage message, byte[] data, Optional<Instant> publishTime, String subscription) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("attributes", new TreeMap<>(message.getAttributesMap()));
    body.put("data", Base64.getEncoder().encodeToString(data));
    body.put("messageId", message.getMessageId());
    publishTime.ifPresent(time -> body.put("publishTime", time.toString()));
    if (!message.getOrderingKey().isEmpty()) {
      body.put("orderingKey", message.getOrderingKey());
    }
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("message", body);
    envelope.put("subscription", subscription);
    Integer deliveryAttempt = Subscriber.getDeliveryAttempt(message);
    if (deliveryAttempt != null) {
      envelope.put("deliveryAttempt", deliveryAttempt);
    }
    try {
      return JSON.writeValueAsString(envelope);
    } catch (JsonProcessingException e) {
      // Strings, numbers and maps of strings always render.
      throw new IllegalStateException("Cannot render message " + message.getMessageId() + " as JSON", e);
    }
  }

  private static Instant instant(Timestamp timestamp) {
    return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
  }
}
