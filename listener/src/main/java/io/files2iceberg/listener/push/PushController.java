package io.files2iceberg.listener.push;

import io.files2iceberg.core.logging.CloudLoggingLayout;
import io.files2iceberg.listener.handle.NotificationHandler;
import io.files2iceberg.listener.handle.Outcome;
import io.files2iceberg.listener.handle.QuarantineReason;
import io.files2iceberg.listener.handle.ReceivedMessage;
import io.files2iceberg.listener.push.PushEnvelope.UnreadableEnvelopeException;
import io.micronaut.context.annotation.Executable;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
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
import java.util.Optional;

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

  /**
   * Handles one push request; the ledger is blocking I/O, so off the event loop. A request whose
   * content type is not JSON can never be read as an envelope (Pub/Sub always posts JSON): it is
   * quarantined under the envelope's message id and content digest when the body parses anyway,
   * else under the body's digest, and acknowledged.
   */
  @Executable
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Consumes(MediaType.ALL)
  public HttpResponse<Void> push(HttpRequest<?> request, @Nullable @Body String body) {
    Optional<TraceContext> trace = TraceContext.of(request.getHeaders().get(TraceContext.TRACEPARENT),
        request.getHeaders().get(TraceContext.CLOUD_TRACE_CONTEXT));
    trace.ifPresent(t -> CloudLoggingLayout.putTrace(t.traceId(), t.spanId(), t.sampled()));
    try {
      return handled(request, body);
    } finally {
      CloudLoggingLayout.removeTrace();
    }
  }

  private HttpResponse<Void> handled(HttpRequest<?> request, @Nullable String body) {
    String payload = body == null ? "" : body;
    Optional<MediaType> contentType = request.getContentType();
    Outcome outcome;
    try {
      ReceivedMessage message = PushEnvelope.parse(payload);
      if (contentType.filter(type -> !isJson(type)).isPresent()) {
        outcome =
            unsupported(message.contentKey(), " of message " + message.messageId(), contentType.get(), payload);
      } else {
        outcome = handler.handle(message);
      }
    } catch (UnreadableEnvelopeException e) {
      if (contentType.filter(type -> !isJson(type)).isPresent()) {
        outcome = unsupported(e.messageId(), "", contentType.get(), payload);
      } else {
        outcome = handler.handleUnreadable(e.messageId(), e.reason(), e.getMessage(), payload);
      }
    }
    return reply(outcome);
  }

  private Outcome unsupported(String messageId, String ofMessage, MediaType contentType, String payload) {
    return handler.handleUnreadable(
        messageId,
        QuarantineReason.UNSUPPORTED_CONTENT_TYPE,
        "the push request" + ofMessage + " has content type " + contentType.getName()
            + ", not application/json",
        payload);
  }

  /** {@code application/json}, with or without parameters such as a charset. */
  private static boolean isJson(MediaType type) {
    return MediaType.APPLICATION_JSON_TYPE.getName().equalsIgnoreCase(type.getName());
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
