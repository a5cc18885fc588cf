package io.files2iceberg.listener.handle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.listener.handle.StorageNotification.EventType;
import io.files2iceberg.listener.handle.StorageNotification.ObjectFinalized;
import io.files2iceberg.listener.handle.StorageNotification.OtherObjectEvent;
import io.files2iceberg.listener.handle.StorageNotification.PayloadFormat;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NotificationParserTest {
  private static final Instant RECEIVED = Instant.parse("2024-05-01T12:00:00Z");

  @Test
  void finalizeWithObjectResourceKeepsItsFields() throws Exception {
    Map<String, String> attributes = attributes();
    attributes.put("overwroteGeneration", "41");
    String resource =
        """
        {"size": "2048", "md5Hash": "md5", "crc32c": "crc", "contentType": "application/parquet",
         "timeCreated": "2024-05-01T10:00:00Z", "updated": "2024-05-01T10:00:05Z"}
        """;

    ObjectFinalized finalized = (ObjectFinalized) parse(attributes, resource, Optional.empty());

    assertThat(finalized.object()).isEqualTo(ObjectLocation.gs("landing", "raw/a.parquet"));
    assertThat(finalized.generation()).isEqualTo(42);
    assertThat(finalized.size()).contains(2048L);
    assertThat(finalized.overwroteGeneration()).contains(41L);
    assertThat(finalized.eventTime()).isEqualTo(Instant.parse("2024-05-01T10:00:06Z"));
    assertThat(finalized.payloadFormat()).isEqualTo(PayloadFormat.JSON_API_V1);
    assertThat(finalized.notificationConfig()).contains("projects/_/buckets/landing/notificationConfigs/3");
    assertThat(finalized.resource().orElseThrow().md5Hash()).contains("md5");
    assertThat(finalized.resource().orElseThrow().crc32c()).contains("crc");
    assertThat(finalized.resource().orElseThrow().contentType()).contains("application/parquet");
    assertThat(finalized.resource().orElseThrow().timeCreated()).contains(Instant.parse("2024-05-01T10:00:00Z"));
  }

  @Test
  void payloadNoneHasAnUnknownSizeNotZero() throws Exception {
    Map<String, String> attributes = attributes();
    attributes.put("payloadFormat", "NONE");

    ObjectFinalized finalized = (ObjectFinalized) parse(attributes, "", Optional.empty());

    assertThat(finalized.size()).isEmpty();
    assertThat(finalized.resource()).isEmpty();
  }

  @Test
  void eventTimeFallsBackToTheResourceThenThePublishTimeThenReceipt() throws Exception {
    Map<String, String> attributes = attributes();
    attributes.remove("eventTime");
    Instant published = Instant.parse("2024-05-01T11:00:00Z");

    ObjectFinalized fromResource =
        (ObjectFinalized) parse(attributes, "{\"updated\": \"2024-05-01T10:30:00Z\"}", Optional.of(published));
    ObjectFinalized fromPublish = (ObjectFinalized) parse(attributes, "{}", Optional.of(published));
    ObjectFinalized fromReceipt = (ObjectFinalized) parse(attributes, "{}", Optional.empty());

    assertThat(fromResource.eventTime()).isEqualTo(Instant.parse("2024-05-01T10:30:00Z"));
    assertThat(fromPublish.eventTime()).isEqualTo(published);
    assertThat(fromReceipt.eventTime()).isEqualTo(RECEIVED);
  }

  @Test
  void emptyBucketIdNamesALocalFile() throws Exception {
    Map<String, String> attributes = attributes();
    attributes.put("bucketId", "");
    attributes.put("objectId", "tmp/landing/a.parquet");

    ObjectFinalized finalized = (ObjectFinalized) parse(attributes, "{}", Optional.empty());

    assertThat(finalized.object().uri()).isEqualTo("file:///tmp/landing/a.parquet");
  }

  @Test
  void otherEventTypesAreReadWithoutTheirOtherAttributes() throws Exception {
    OtherObjectEvent delete =
        (OtherObjectEvent)
            parse(
                Map.of("eventType", "OBJECT_DELETE", "bucketId", "landing", "objectId", "raw/a.parquet"),
                "not even json",
                Optional.empty());
    OtherObjectEvent unknown =
        (OtherObjectEvent) parse(Map.of("eventType", "OBJECT_RESTORE"), "", Optional.empty());

    assertThat(delete.knownType()).contains(EventType.OBJECT_DELETE);
    assertThat(delete.objectUri()).contains("gs://landing/raw/a.parquet");
    assertThat(unknown.objectUri()).isEmpty();
    assertThat(unknown.eventType()).isEqualTo("OBJECT_RESTORE");
    assertThat(unknown.knownType()).isEmpty();
  }

  @Test
  void generationThatIsNotAPositiveNumberIsUnreadable() {
    Map<String, String> attributes = attributes();
    attributes.put("objectGeneration", "0");

    assertThatThrownBy(() -> parse(attributes, "{}", Optional.empty()))
        .isInstanceOfSatisfying(
            UnreadableNotificationException.class,
            e -> assertThat(e.reason()).isEqualTo(QuarantineReason.BAD_ATTRIBUTE))
        .hasMessage("attribute objectGeneration \"0\" of gs://landing/raw/a.parquet is not a positive whole number");
  }

  @Test
  void badOverwroteGenerationIsUnreadable() {
    Map<String, String> attributes = attributes();
    attributes.put("overwroteGeneration", "abc");

    assertThatThrownBy(() -> parse(attributes, "{}", Optional.empty()))
        .hasMessage("attribute overwroteGeneration \"abc\" of gs://landing/raw/a.parquet is not a positive whole number");
  }

  @Test
  void unknownPayloadFormatIsUnreadable() {
    Map<String, String> attributes = attributes();
    attributes.put("payloadFormat", "XML");

    assertThatThrownBy(() -> parse(attributes, "{}", Optional.empty()))
        .isInstanceOfSatisfying(
            UnreadableNotificationException.class,
            e -> assertThat(e.reason()).isEqualTo(QuarantineReason.UNKNOWN_PAYLOAD_FORMAT))
        .hasMessage("attribute payloadFormat \"XML\" of gs://landing/raw/a.parquet is neither JSON_API_V1 nor NONE");
  }

  @Test
  void resourceThatIsNotJsonOrHasABadSizeIsUnreadable() {
    assertThatThrownBy(() -> parse(attributes(), "[1, 2]", Optional.empty()))
        .hasMessage("data of the JSON_API_V1 notification for gs://landing/raw/a.parquet is not a JSON object");
    assertThatThrownBy(() -> parse(attributes(), "{\"size\": \"big\"}", Optional.empty()))
        .hasMessage(
            "data of the JSON_API_V1 notification for gs://landing/raw/a.parquet has size \"big\", not a whole"
                + " number of bytes");
  }

  @Test
  void missingObjectIdIsUnreadable() {
    Map<String, String> attributes = attributes();
    attributes.remove("objectId");

    assertThatThrownBy(() -> parse(attributes, "{}", Optional.empty()))
        .isInstanceOfSatisfying(
            UnreadableNotificationException.class,
            e -> assertThat(e.reason()).isEqualTo(QuarantineReason.MISSING_ATTRIBUTE))
        .hasMessage("attribute objectId is missing");
  }

  private static StorageNotification parse(
      Map<String, String> attributes, String data, Optional<Instant> publishTime)
      throws UnreadableNotificationException {
    return NotificationParser.parse(
        new ReceivedMessage("m", attributes, data.getBytes(StandardCharsets.UTF_8), publishTime, "raw"),
        RECEIVED);
  }

  private static Map<String, String> attributes() {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("eventType", "OBJECT_FINALIZE");
    attributes.put("bucketId", "landing");
    attributes.put("objectId", "raw/a.parquet");
    attributes.put("objectGeneration", "42");
    attributes.put("payloadFormat", "JSON_API_V1");
    attributes.put("notificationConfig", "projects/_/buckets/landing/notificationConfigs/3");
    attributes.put("eventTime", "2024-05-01T10:00:06Z");
    return attributes;
  }
}
