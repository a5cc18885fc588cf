package io.files2iceberg.listener.push;

import io.files2iceberg.listener.handle.NotificationHandler;
import io.files2iceberg.listener.handle.Outcome;
import io.files2iceberg.listener.handle.ReceivedMessage;
import io.files2iceberg.listener.push.PushEnvelope.UnreadableEnvelopeException;
import io.micronaut.context.annotation.Executable;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.inject.Singleton;
import java.util.Locale;

/**
 * The Pub/Sub push endpoint, {@code POST <listener.push-path>} (routed by {@link PushRoutes}, since
 * the path comes from the profiles). Pub/Sub acknowledges a message on a 2xx reply and redelivers
 * it otherwise.
 */
@Singleton
public final class PushController {
  /** Names the outcome in every reply, for operators and tests. */
  public static final String OUTCOME_HEADER = "X-Files2iceberg-Outcome";

  private final NotificationHandler handler;

  PushController(NotificationHandler handler) {
    this.handler = handler;
  }

  /** Handles one push request; the ledger is blocking I/O, so off the event loop. */
  @Executable
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Consumes(MediaType.ALL)
  public HttpResponse<Void> push(@Nullable @Body String body) {
    String payload = body == null ? "" : body;
    Outcome outcome;
    try {
      ReceivedMessage message = PushEnvelope.parse(payload);
      outcome = handler.handle(message);
    } catch (UnreadableEnvelopeException e) {
      outcome = handler.handleUnreadable(e.messageId(), e.reason(), e.getMessage(), payload);
    }
    return reply(outcome);
  }

  /**
   * The one place that decides the reply: every acknowledging outcome is a 204 (its ledger write
   * has committed), a retry is a 503 so that Pub/Sub redelivers.
   */
  static HttpResponse<Void> reply(Outcome outcome) {
    MutableHttpResponse<Void> response =
        switch (outcome) {
          case RECORDED, DUPLICATE, PARTITION_READY, IGNORED, QUARANTINED -> HttpResponse.noContent();
          case RETRY -> HttpResponse.status(HttpStatus.SERVICE_UNAVAILABLE);
        };
    return response.header(OUTCOME_HEADER, outcome.name().toLowerCase(Locale.ROOT));
  }
}
