package io.files2iceberg.listener.handle;

import io.files2iceberg.core.match.ObjectLocation;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A Cloud Storage notification, parsed once from a Pub/Sub message's attributes and data. Only
 * {@link ObjectFinalized} matters to the pipeline; every other event type is {@link
 * OtherObjectEvent}.
 */
sealed interface StorageNotification permits StorageNotification.ObjectFinalized,
    StorageNotification.OtherObjectEvent {

  /** The event types GCS sends, by their attribute value. */
  enum EventType {
    OBJECT_FINALIZE,
    OBJECT_METADATA_UPDATE,
    OBJECT_DELETE,
    OBJECT_ARCHIVE
  }

  /** The {@code payloadFormat} attribute: whether the data holds the object resource. */
  enum PayloadFormat {
    JSON_API_V1,
    NONE
  }

  /**
   * Fact: a new object (or a new generation of one) was written.
   *
   * @param object the object; a {@code file://} location when {@code bucketId} is empty (the
   *     embedded mode's notifier)
   * @param generation the object generation, positive
   * @param size bytes; empty when unknown ({@code payloadFormat = NONE}), which is not zero
   * @param overwroteGeneration the generation this one replaced, if any
   * @param eventTime the {@code eventTime} attribute, else the resource's {@code updated} or
   *     {@code timeCreated}, else the publish time, else when the message was received
   * @param notificationConfig the notification configuration that sent it, if named
   * @param resource the object resource ({@code JSON_API_V1}); empty with {@code NONE}
   */
  record ObjectFinalized(
      ObjectLocation object,
      long generation,
      Optional<Long> size,
      Optional<Long> overwroteGeneration,
      Instant eventTime,
      PayloadFormat payloadFormat,
      Optional<String> notificationConfig,
      Optional<ObjectResource> resource)
      implements StorageNotification {
    public ObjectFinalized {
      Objects.requireNonNull(object, "object");
      Objects.requireNonNull(size, "size");
      Objects.requireNonNull(overwroteGeneration, "overwroteGeneration");
      Objects.requireNonNull(eventTime, "eventTime");
      Objects.requireNonNull(payloadFormat, "payloadFormat");
      Objects.requireNonNull(notificationConfig, "notificationConfig");
      Objects.requireNonNull(resource, "resource");
    }
  }

  /**
   * Fact: something else happened to an object (metadata update, delete, archive, or an event
   * type this listener does not know). Acknowledged without a ledger write.
   *
   * @param eventType the attribute as sent
   * @param knownType the event type when it is one GCS documents
   * @param objectUri the object, when the attributes name one (for the log only)
   */
  record OtherObjectEvent(String eventType, Optional<EventType> knownType, Optional<String> objectUri)
      implements StorageNotification {
    public OtherObjectEvent {
      Objects.requireNonNull(eventType, "eventType");
      Objects.requireNonNull(knownType, "knownType");
      Objects.requireNonNull(objectUri, "objectUri");
    }
  }

  /**
   * The object resource of a {@code JSON_API_V1} notification: the fields the listener keeps.
   */
  record ObjectResource(
      Optional<Long> size,
      Optional<String> md5Hash,
      Optional<String> crc32c,
      Optional<Instant> timeCreated,
      Optional<Instant> updated,
      Optional<String> contentType) {}
}
