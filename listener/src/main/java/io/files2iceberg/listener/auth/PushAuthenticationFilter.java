package io.files2iceberg.listener.auth;

import io.files2iceberg.core.profile.ListenerSettings;
import io.files2iceberg.listener.handle.ListenerMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.ServerFilterPhase;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a push request through only with a valid Pub/Sub OIDC token, when the profiles set {@code
 * listener.oidc-audience}; without it every request passes (the embedded mode, the emulator).
 *
 * <p>It guards the push path alone ({@code listener.push-path}, compared after collapsing repeated
 * and trailing slashes, so no spelling of the path the router accepts slips past); health and
 * metrics endpoints never need a token. A rejected request never reaches the push endpoint, so
 * the ledger is not touched. Statuses: {@link Rejection}. Each rejection is logged (never with
 * the token) and counted in {@link ListenerMeter#AUTH_REJECTED}, tagged {@code reason}.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
final class PushAuthenticationFilter implements Ordered {
  private static final Logger LOG = LoggerFactory.getLogger(PushAuthenticationFilter.class);

  /** Counter of rejected push requests, tagged {@code reason} ({@link Rejection.Reason#tag()}). */
  static final String REJECTED_METER = ListenerMeter.AUTH_REJECTED.micrometerName();
  /** Pull mode's subscription: set, the push endpoint is off unless listener.push-enabled. */
  private static final String PULL_SUBSCRIPTION = "files2iceberg.listener.pull.subscription";

  private final String pushPath;
  private final Optional<PushTokenVerifier> verifier;
  private final MeterRegistry meters;
  private final String mode;

  PushAuthenticationFilter(
      ListenerSettings settings,
      OidcConfiguration oidc,
      MeterRegistry meters,
      @Nullable @Property(name = PULL_SUBSCRIPTION) String pullSubscription) {
    this.pushPath = normalized(settings.pushPath());
    this.meters = meters;
    boolean pushEnabled = settings.isPushEnabled(pullSubscription != null && !pullSubscription.isBlank());
    if (settings.oidcAudience().isEmpty()) {
      if (settings.oidcServiceAccount().isPresent()) {
        // A token for any audience would do: one minted for another service could be replayed here.
        throw new ConfigurationException(
            "listener.oidc-service-account is \"" + settings.oidcServiceAccount().get()
                + "\" but listener.oidc-audience is not set: set the push subscription's audience too");
      }
      this.verifier = Optional.empty();
      this.mode =
          pushEnabled
              ? "are not authenticated: listener.oidc-audience is not set"
              : "find no endpoint: it is off while the listener pulls";
    } else {
      this.verifier =
          Optional.of(
              new PushTokenVerifier(
                  settings.oidcAudience().get(), settings.oidcServiceAccount(), oidc, Clock.systemUTC()));
      this.mode =
          "need a Google OIDC token for audience \"" + settings.oidcAudience().get() + "\""
              + settings.oidcServiceAccount().map(sa -> " from " + sa).orElse("")
              + " (keys " + oidc.jwksUri() + ", issuers " + oidc.issuers() + ")";
    }
  }

  /**
   * Builds the filter as the server starts (Micronaut would wait for the first request), so a bad
   * OIDC setting stops the start.
   */
  @EventListener
  void onStartup(ServerStartupEvent event) {
    LOG.info("Push requests to {} {}", pushPath, mode);
  }

  /** Runs off the event loop: the first token (and one an hour after) fetches the key set. */
  @RequestFilter
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Nullable
  public HttpResponse<?> authenticate(HttpRequest<?> request) {
    if (verifier.isEmpty() || !pushPath.equals(normalized(request.getPath()))) {
      return null;
    }
    Optional<Rejection> rejection = verifier.get().verify(request.getHeaders().getAuthorization());
    if (rejection.isEmpty()) {
      return null;
    }
    return rejected(request, rejection.get());
  }

  private MutableHttpResponse<String> rejected(HttpRequest<?> request, Rejection rejection) {
    Rejection.Reason reason = rejection.reason();
    LOG.warn(
        "Rejected push request {} {} from {}: {} ({}), {}",
        request.getMethodName(),
        request.getPath(),
        request.getRemoteAddress(),
        reason.tag(),
        reason.status().getCode(),
        rejection.detail());
    Counter.builder(REJECTED_METER)
        .description("Push requests rejected by the OIDC check, by reason")
        .tag("reason", reason.tag())
        .register(meters)
        .increment();
    MutableHttpResponse<String> response =
        HttpResponse.<String>status(reason.status())
            .contentType(MediaType.TEXT_PLAIN_TYPE)
            .body("push request rejected: " + reason.tag() + "\n");
    return switch (reason) {
      case MISSING_TOKEN -> response.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
      case MALFORMED_TOKEN, EXPIRED, WRONG_ISSUER, WRONG_AUDIENCE, BAD_SIGNATURE ->
          response.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
      case WRONG_SERVICE_ACCOUNT, EMAIL_NOT_VERIFIED, KEYS_UNAVAILABLE -> response;
    };
  }

  /**
   * In the security phase, as micronaut-security's filters: after metrics and tracing (a rejected
   * request is still measured), before the route runs.
   */
  @Override
  public int getOrder() {
    return ServerFilterPhase.SECURITY.order();
  }

  /** {@code //a//b/} is {@code /a/b}: how the router sees it. */
  static String normalized(String path) {
    String collapsed = path.replaceAll("/{2,}", "/");
    while (collapsed.length() > 1 && collapsed.endsWith("/")) {
      collapsed = collapsed.substring(0, collapsed.length() - 1);
    }
    return collapsed;
  }
}
