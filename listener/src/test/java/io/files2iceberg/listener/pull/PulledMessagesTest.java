package io.files2iceberg.listener.pull;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import com.google.pubsub.v1.PubsubMessage;
import io.files2iceberg.listener.handle.ReceivedMessage;
import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PulledMessagesTest {
  private static final String SUBSCRIPTION = "projects/files2iceberg-test/subscriptions/landing-pull";

  @Test
  void pulledMessageBecomesTheSameMessageAPushWouldCarry() {
    DataFile file = TestDeployment.dataFile("2024-05-01");
    PubsubMessage pulled =
        PubsubMessage.newBuilder()
            .setMessageId("4242")
            .putAllAttributes(file.attributes())
            .setData(ByteString.copyFrom(file.data()))
            .setPublishTime(Timestamp.newBuilder().setSeconds(1714557601).setNanos(456_000_000))
            .build();

    ReceivedMessage message = PulledMessages.received(pulled, SUBSCRIPTION);

    assertThat(message.messageId()).isEqualTo("4242");
    assertThat(message.attributes()).isEqualTo(file.attributes());
    assertThat(message.data()).isEqualTo(file.data());
    assertThat(message.publishTime()).contains(Instant.parse("2024-05-01T10:00:01.456Z"));
  }

  @Test
  void rawPayloadIsThePushEnvelopeSoAQuarantinedMessageCanBeReplayed() throws Exception {
    byte[] data = "not json at all".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    PubsubMessage pulled =
        PubsubMessage.newBuilder()
            .setMessageId("4243")
            .putAttributes("eventType", "OBJECT_FINALIZE")
            .putAttributes("bucketId", "landing-bucket")
            .setData(ByteString.copyFrom(data))
            .setPublishTime(Timestamp.newBuilder().setSeconds(1714557601))
            .build();

    JsonNode envelope =
        new ObjectMapper().readTree(PulledMessages.received(pulled, SUBSCRIPTION).rawPayload());

    assertThat(envelope.get("subscription").asText()).isEqualTo(SUBSCRIPTION);
    JsonNode message = envelope.get("message");
    assertThat(message.get("messageId").asText()).isEqualTo("4243");
    assertThat(message.get("publishTime").asText()).isEqualTo("2024-05-01T10:00:01Z");
    assertThat(message.get("attributes").get("eventType").asText()).isEqualTo("OBJECT_FINALIZE");
    assertThat(message.get("attributes").get("bucketId").asText()).isEqualTo("landing-bucket");
    assertThat(Base64.getDecoder().decode(message.get("data").asText())).isEqualTo(data);
    assertThat(envelope.has("deliveryAttempt")).isFalse();
  }

  @Test
  void messageWithoutPublishTimeHasNone() {
    ReceivedMessage message =
        PulledMessages.received(PubsubMessage.newBuilder().setMessageId("1").build(), SUBSCRIPTION);

    assertThat(message.publishTime()).isEmpty();
    assertThat(message.data()).isEmpty();
  }
}
