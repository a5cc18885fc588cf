package io.files2iceberg.listener.handle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.listener.handle.StorageNotification.EventType;
import io.files2iceberg.listener.handle.StorageNotification.ObjectFinalized;
import io.files2iceberg.listener.handle.StorageNotification.ObjectResource;
import io.files2iceberg.listener.handle.StorageNotification.OtherObjectEvent;
import io.files2iceberg.listener.handle.StorageNotification.PayloadFormat;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * Parses a Pub/Sub message into a {@link StorageNotification}, following the Cloud Storage
 * notification format: attributes {@code eventType}, {@code bucketId}, {@code objectId}, {@code
 * objectGeneration}, {@code payloadFormat}, optionally {@code notificationConfig}, {@code
 * eventTime} and {@code overwroteGeneration}; with {@code JSON_API_V1} the data is the object
 * resource.
 *
 * <p>Only the event type is read from a message that is not {@code OBJECT_FINALIZE}: nothing else
 * of it matters, so nothing else of it can make it unreadable.
 *
 * <p>An empty {@code bucketId} names a local file ({@code file:///<objectId>}): the embedded mode's
 * notifier sends the file's absolute path without its leading {@code /} as {@code objectId}, and
 * its last-modified time in microseconds as {@code objectGeneration} (what {@link ObjectListing}
 * reports for local files too, so a listed file and its notification are one ledger file).
 */
final class NotificationParser {

  static final String EVENT_TYPE = "eventType";
  static final String BUCKET_ID = "bucketId";
  static final String OBJECT_ID = "objectId";
  static final String OBJECT_GENERATION = "objectGeneration";
  static final String PAYLOAD_FORMAT = "payloadFormat";
  static final String NOTIFICATION_CONFIG = "notificationConfig";
  static final String EVENT_TIME = "eventTime";
  static final String OVERWROTE_GENERATION = "overwroteGeneration";

  private static final ObjectMapper JSON = new ObjectMapper();

  private NotificationParser() {}

  /**
   * @param receivedAt the event time when neither the message nor the resource carries one
   * @throws UnreadableNotificationException when the message can never be handled as it is
   */
  static StorageNotification parse(ReceivedMessage message, Instant receivedAt)
      throws UnreadableNotificationException {
    Map<String, String> attributes = message.attributes();
    String eventType = required(attributes, EVENT_TYPE, Optional.empty());
    Optional<EventType> known =
        Arrays.stream(EventType.values()).filter(t -> t.name().equals(eventType)).findFirst();
    if (known.isEmpty() || known.get() != EventType.OBJECT_FINALIZE) {
      return new OtherObjectEvent(eventType, known, objectUri(attributes));
    }

    String bucket = required(attributes, BUCKET_ID, Optional.empty());
    String name = required(attributes, OBJECT_ID, Optional.empty());
    ObjectLocation object;
    try {
      object = location(bucket, name);
    } catch (IllegalArgumentException e) {
      throw new UnreadableNotificationException(
          QuarantineReason.BAD_ATTRIBUTE,
          "attributes bucketId \"" + bucket + "\" and objectId \"" + name
              + "\" do not name an object: " + e.getMessage(),
          Optional.empty());
    }
    Optional<String> uri = Optional.of(object.uri());

    long generation = generation(OBJECT_GENERATION, required(attributes, OBJECT_GENERATION, uri), uri);
    Optional<Long> overwrote = Optional.empty();
    String overwroteText = attributes.get(OVERWROTE_GENERATION);
    if (overwroteText != null && !overwroteText.isBlank()) {
      overwrote = Optional.of(generation(OVERWROTE_GENERATION, overwroteText, uri));
    }

    String formatText = required(attributes, PAYLOAD_FORMAT, uri);
    PayloadFormat format =
        Arrays.stream(PayloadFormat.values())
            .filter(f -> f.name().equals(formatText))
            .findFirst()
            .orElseThrow(
                () ->
                    new UnreadableNotificationException(
                        QuarantineReason.UNKNOWN_PAYLOAD_FORMAT,
                        "attribute payloadFormat \"" + formatText + "\" of " + object.uri()
                            + " is neither JSON_API_V1 nor NONE",
                        uri));

    Optional<ObjectResource> resource =
        format == PayloadFormat.JSON_API_V1 ? Optional.of(resource(message, object)) : Optional.empty();

    Optional<Instant> eventTime = Optional.empty();
    String eventTimeText = attributes.get(EVENT_TIME);
    if (eventTimeText != null && !eventTimeText.isBlank()) {
      eventTime = Optional.of(instant(EVENT_TIME, eventTimeText, object, QuarantineReason.BAD_ATTRIBUTE));
    }
    Instant resolvedTime =
        eventTime
            .or(() -> resource.flatMap(ObjectResource::updated))
            .or(() -> resource.flatMap(ObjectResource::timeCreated))
            .or(message::publishTime)
            .orElse(receivedAt);

    Optional<String> notificationConfig =
        Optional.ofNullable(attributes.get(NOTIFICATION_CONFIG)).filter(s -> !s.isBlank());
    return new ObjectFinalized(
        object,
        generation,
        resource.flatMap(ObjectResource::size),
        overwrote,
        resolvedTime,
        format,
        notificationConfig,
        resource);
  }

  /** An empty bucket names a local file. */
  private static ObjectLocation location(String bucket, String name) {
    return bucket.isEmpty() ? new ObjectLocation(ObjectLocation.FILE, "", name) : ObjectLocation.gs(bucket, name);
  }

  /** The object the attributes name, if they name one; nothing is required of them. */
  private static Optional<String> objectUri(Map<String, String> attributes) {
    String bucket = attributes.get(BUCKET_ID);
    String name = attributes.get(OBJECT_ID);
    if (bucket == null || name == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(location(bucket, name).uri());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String required(Map<String, String> attributes, String key, Optional<String> uri)
      throws UnreadableNotificationException {
    String value = attributes.get(key);
    // An empty bucketId is meaningful (a local file); every other attribute must hold something.
    if (value == null || (value.isBlank() && !key.equals(BUCKET_ID))) {
      throw new UnreadableNotificationException(
          QuarantineReason.MISSING_ATTRIBUTE,
          "attribute " + key + " is missing" + uri.map(u -> " (object " + u + ")").orElse(""),
          uri);
    }
    return value;
  }

  private static long generation(String key, String text, Optional<String> uri)
      throws UnreadableNotificationException {
    try {
      long value = Long.parseLong(text.trim());
      if (value > 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UnreadableNotificationException(
        QuarantineReason.BAD_ATTRIBUTE,
        "attribute " + key + " \"" + text + "\" of " + uri.orElse("the object")
            + " is not a positive whole number",
        uri);
  }

  private static ObjectResource resource(ReceivedMessage message, ObjectLocation object)
      throws UnreadableNotificationException {
    JsonNode root;
    try {
      root = JSON.readTree(message.data());
    } catch (JsonProcessingException e) {
      throw badResource(object, "is not JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw badResource(object, "cannot be read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw badResource(object, "is not a JSON object");
    }
    Optional<Long> size = Optional.empty();
    JsonNode sizeNode = root.get("size");
    if (sizeNode != null && !sizeNode.isNull()) {
      // The JSON API sends 64-bit numbers as strings.
      String text = sizeNode.isTextual() ? sizeNode.asText() : sizeNode.toString();
      try {
        long value = Long.parseLong(text.trim());
        if (value < 0) {
          throw new NumberFormatException();
        }
        size = Optional.of(value);
      } catch (NumberFormatException e) {
        throw badResource(object, "has size \"" + text + "\", not a whole number of bytes");
      }
    }
    return new ObjectResource(
        size,
        text(root, "md5Hash"),
        text(root, "crc32c"),
        time(root, "timeCreated", object),
        time(root, "updated", object),
        text(root, "contentType"));
  }

  private static Optional<String> text(JsonNode root, String field) {
    JsonNode node = root.get(field);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
  }

  private static Optional<Instant> time(JsonNode root, String field, ObjectLocation object)
      throws UnreadableNotificationException {
    Optional<String> text = text(root, field);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(instant(field, text.get(), object, QuarantineReason.BAD_OBJECT_RESOURCE));
  }

  private static Instant instant(
      String field, String text, ObjectLocation object, QuarantineReason reason)
      throws UnreadableNotificationException {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new UnreadableNotificationException(
          reason,
          field + " \"" + text + "\" of " + object.uri() + " is not an RFC 3339 time",
          Optional.of(object.uri()));
    }
  }

  private static UnreadableNotificationException badResource(ObjectLocation object, String what) {
    return new UnreadableNotificationException(
        QuarantineReason.BAD_OBJECT_RESOURCE,
        "data of the JSON_API_V1 notification for " + object.uri() + " " + what,
        Optional.of(object.uri()));
  }
}
