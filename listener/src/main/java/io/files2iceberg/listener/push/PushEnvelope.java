package io.files2iceberg.listener.push;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.listener.handle.QuarantineReason;
import io.files2iceberg.listener.handle.ReceivedMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a Pub/Sub push request body into a {@link ReceivedMessage}:
 *
 * <pre>{@code
 * {"message": {"attributes": {...}, "data": "<base64>", "messageId": "...",
 *              "publishTime": "..."}, "subscription": "..."}
 * }</pre>
 *
 * Pub/Sub sends {@code message_id} and {@code publish_time} as well; either spelling is read.
 * The message need not have attributes or data (the handler decides what is missing); it must be
 * JSON, have a {@code message} object, and its data must be base64.
 */
final class PushEnvelope {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Prefix of the message id given to a body that names none. */
  static final String BODY_HASH_PREFIX = "body-sha256:";

  private PushEnvelope() {}

  /** The body could not be read as an envelope. */
  static final class UnreadableEnvelopeException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String messageId;
    private final QuarantineReason reason;

    UnreadableEnvelopeException(String messageId, QuarantineReason reason, String message) {
      super(message);
      this.messageId = messageId;
      this.reason = reason;
    }

    /**
     * The quarantine key: the envelope's message id and a digest of its message object when the
     * id could be read, else a hash of the body.
     */
    String messageId() {
      return messageId;
    }

    QuarantineReason reason() {
      return reason;
    }
  }

  static ReceivedMessage parse(String body) throws UnreadableEnvelopeException {
    String bodyHash = BODY_HASH_PREFIX + sha256(body);
    JsonNode root;
    try {
      root = body.isBlank() ? null : JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw malformed(bodyHash, "the push body is not JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw malformed(bodyHash, "the push body is not a JSON object");
    }
    JsonNode message = root.get("message");
    if (message == null || !message.isObject()) {
      throw malformed(bodyHash, "the push body has no \"message\" object");
    }
    Optional<String> envelopeId = text(message, "messageId").or(() -> text(message, "message_id"));
    if (envelopeId.isEmpty()) {
      throw malformed(bodyHash, "the push message has no messageId");
    }
    String messageId = envelopeId.get();
    // The quarantine key of a message that cannot be read: its id and the message object's
    // content, not the whole body, so a redelivery (another deliveryAttempt) is the same record.
    String key = ReceivedMessage.quarantineKey(messageId, message.toString().getBytes(StandardCharsets.UTF_8));

    Map<String, String> attributes = new LinkedHashMap<>();
    JsonNode attributesNode = message.get("attributes");
    if (attributesNode != null && !attributesNode.isNull()) {
      if (!attributesNode.isObject()) {
        throw malformed(key, "message.attributes of message " + messageId + " is not an object");
      }
      for (Map.Entry<String, JsonNode> attribute : attributesNode.properties()) {
        if (!attribute.getValue().isTextual()) {
          throw malformed(
              key,
              "attribute " + attribute.getKey() + " of message " + messageId + " is not a string");
        }
        attributes.put(attribute.getKey(), attribute.getValue().asText());
      }
    }

    byte[] data = new byte[0];
    JsonNode dataNode = message.get("data");
    if (dataNode != null && !dataNode.isNull()) {
      if (!dataNode.isTextual()) {
        throw new UnreadableEnvelopeException(
            key, QuarantineReason.BAD_BASE64, "message.data of message " + messageId + " is not a string");
      }
      try {
        data = Base64.getDecoder().decode(dataNode.asText().strip());
      } catch (IllegalArgumentException e) {
        throw new UnreadableEnvelopeException(
            key,
            QuarantineReason.BAD_BASE64,
            "message.data of message " + messageId + " is not base64: " + e.getMessage());
      }
    }

    // The publish time only fills in a missing event time: a bad one is dropped, not fatal.
    Optional<Instant> publishTime =
        text(message, "publishTime")
            .or(() -> text(message, "publish_time"))
            .flatMap(PushEnvelope::instant);
    return new ReceivedMessage(messageId, attributes, data, publishTime, body);
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() && !value.asText().isBlank()
        ? Optional.of(value.asText())
        : Optional.empty();
  }

  private static Optional<Instant> instant(String text) {
    try {
      return Optional.of(Instant.parse(text));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static UnreadableEnvelopeException malformed(String messageId, String message) {
    return new UnreadableEnvelopeException(messageId, QuarantineReason.MALFORMED_ENVELOPE, message);
  }

  static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
