package io.files2iceberg.listener.handle;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One Pub/Sub message as it arrived, whatever the transport (a push envelope or a pulled message):
 * the input of {@link NotificationHandler#handle}.
 *
 * <p>Nothing here is validated beyond being present: the handler parses the attributes and data
 * into a GCS notification, and quarantines the message (with {@code rawPayload}) when they cannot
 * be parsed.
 *
 * @param messageId the Pub/Sub message id; the ledger's event id for the file it records
 * @param attributes the message attributes as sent ({@code eventType}, {@code bucketId}, ...)
 * @param data the decoded message data; empty when the message has none ({@code payloadFormat =
 *     NONE})
 * @param publishTime when Pub/Sub accepted the message, when known
 * @param rawPayload the message as received (the push request body, or the pulled message as
 *     text), kept with a quarantine record so an operator can replay it
 */
public record ReceivedMessage(
    String messageId,
    Map<String, String> attributes,
    byte[] data,
    Optional<Instant> publishTime,
    String rawPayload) {

  public ReceivedMessage {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(publishTime, "publishTime");
    Objects.requireNonNull(rawPayload, "rawPayload");
    attributes = Map.copyOf(Objects.requireNonNull(attributes, "attributes"));
    data = Objects.requireNonNull(data, "data").clone();
  }

  /** A copy of the data: the record stays immutable. */
  @Override
  public byte[] data() {
    return data.clone();
  }

  /**
   * The key of this message's quarantine record when its content cannot be read: {@link
   * #quarantineKey} of its id and its content (the attributes, sorted, and the data), so messages
   * that share an id but not their content are kept apart, and a redelivery, whose envelope may
   * differ outside the message (a delivery attempt), is one record.
   */
  public String contentKey() {
    java.io.ByteArrayOutputStream content = new java.io.ByteArrayOutputStream();
    new java.util.TreeMap<>(attributes)
        .forEach(
            (name, value) -> {
              content.writeBytes(name.getBytes(StandardCharsets.UTF_8));
              content.write(0);
              content.writeBytes(value.getBytes(StandardCharsets.UTF_8));
              content.write(0);
            });
    content.write(1);
    content.writeBytes(data);
    return quarantineKey(messageId, content.toByteArray());
  }

  /**
   * {@code <messageId>#sha256:<the first 16 hex digits of the content's SHA-256>}: the quarantine
   * key of a message that could not be read, by its id and its content.
   */
  public static String quarantineKey(String messageId, byte[] content) {
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(content);
      return messageId + CONTENT_KEY_SEPARATOR + java.util.HexFormat.of().formatHex(digest, 0, 8);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Between the message id and the content digest in a quarantine key. */
  public static final String CONTENT_KEY_SEPARATOR = "#sha256:";

  /** The data as UTF-8 text (empty when there is none). */
  public String dataAsText() {
    return new String(data, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ReceivedMessage that
        && messageId.equals(that.messageId)
        && attributes.equals(that.attributes)
        && Arrays.equals(data, that.data)
        && publishTime.equals(that.publishTime)
        && rawPayload.equals(that.rawPayload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(messageId, attributes, Arrays.hashCode(data), publishTime, rawPayload);
  }

  @Override
  public String toString() {
    return "ReceivedMessage[messageId=" + messageId + ", attributes=" + attributes + ", data="
        + data.length + " bytes, publishTime=" + publishTime + "]";
  }
}
