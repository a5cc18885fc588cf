package io.files2iceberg.listener.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.listener.handle.QuarantineReason;
import io.files2iceberg.listener.handle.ReceivedMessage;
import io.files2iceberg.listener.push.PushEnvelope.UnreadableEnvelopeException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PushEnvelopeTest {

  @Test
  void envelopeBecomesAReceivedMessageWithDecodedData() throws Exception {
    String body =
        """
        {"message": {"attributes": {"eventType": "OBJECT_FINALIZE"}, "data": "eyJzaXplIjoiMSJ9",
                     "messageId": "123", "publishTime": "2024-05-01T10:00:00.5Z"},
         "subscription": "projects/p/subscriptions/s"}
        """;

    ReceivedMessage message = PushEnvelope.parse(body);

    assertThat(message.messageId()).isEqualTo("123");
    assertThat(message.attributes()).containsEntry("eventType", "OBJECT_FINALIZE");
    assertThat(new String(message.data(), StandardCharsets.UTF_8)).isEqualTo("{\"size\":\"1\"}");
    assertThat(message.publishTime()).contains(Instant.parse("2024-05-01T10:00:00.5Z"));
    assertThat(message.rawPayload()).isEqualTo(body);
  }

  @Test
  void snakeCaseFieldsAreReadAndABadPublishTimeIsDropped() throws Exception {
    ReceivedMessage message =
        PushEnvelope.parse("{\"message\": {\"message_id\": \"9\", \"publish_time\": \"yesterday\"}}");

    assertThat(message.messageId()).isEqualTo("9");
    assertThat(message.attributes()).isEmpty();
    assertThat(message.data()).isEmpty();
    assertThat(message.publishTime()).isEmpty();
  }

  @Test
  void bodyWithoutAMessageIdIsUnreadableUnderAHashOfTheBody() {
    String body = "{\"message\": {\"attributes\": {}}}";

    assertThatThrownBy(() -> PushEnvelope.parse(body))
        .isInstanceOfSatisfying(
            UnreadableEnvelopeException.class,
            e -> {
              assertThat(e.messageId()).isEqualTo("body-sha256:" + PushEnvelope.sha256(body));
              assertThat(e.reason()).isEqualTo(QuarantineReason.MALFORMED_ENVELOPE);
            })
        .hasMessage("the push message has no messageId");
  }

  @Test
  void attributeThatIsNotAStringIsUnreadableUnderTheMessageIdAndTheMessageDigest() {
    String message = "{\"messageId\": \"5\", \"attributes\": {\"a\": 1}}";
    assertThatThrownBy(() -> PushEnvelope.parse("{\"message\": " + message + ", \"deliveryAttempt\": 3}"))
        .isInstanceOfSatisfying(
            UnreadableEnvelopeException.class,
            e -> assertThat(e.messageId())
                .startsWith("5#sha256:")
                // Outside the message, the envelope does not count: a redelivery is the same key.
                .isEqualTo(unreadableKey("{\"message\": " + message + "}")))
        .hasMessage("attribute a of message 5 is not a string");
  }

  private static String unreadableKey(String body) {
    try {
      PushEnvelope.parse(body);
      throw new AssertionError("readable: " + body);
    } catch (UnreadableEnvelopeException e) {
      return e.messageId();
    }
  }

  @Test
  void emptyBodyIsUnreadable() {
    assertThatThrownBy(() -> PushEnvelope.parse(""))
        .hasMessage("the push body is not a JSON object");
  }

  @Test
  void everyOutcomeButRetryIsA204AndRetryIsA503() {
    for (io.files2iceberg.listener.handle.Outcome outcome : io.files2iceberg.listener.handle.Outcome.values()) {
      int expected = outcome.isAck() ? 204 : 503;
      assertThat(PushController.reply(outcome).code()).as(outcome.name()).isEqualTo(expected);
    }
  }
}
