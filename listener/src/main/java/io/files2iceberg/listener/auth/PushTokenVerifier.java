package io.files2iceberg.listener.auth;

import com.google.api.client.json.JsonFactory;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.client.json.webtoken.JsonWebSignature;
import com.google.api.client.json.webtoken.JsonWebToken;
import com.google.auth.oauth2.TokenVerifier;
import com.google.auth.oauth2.TokenVerifier.VerificationException;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.files2iceberg.listener.auth.Rejection.Reason;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * Checks the OIDC token Pub/Sub puts on a push request: a JWT signed by a key of the key set, not
 * expired, from an accepted issuer, for the configured audience and, when one is configured, with
 * the push service account as its verified {@code email}.
 *
 * <p>The claims are read first and the signature checked after them, by google-auth-library's
 * {@link TokenVerifier} (which fetches the key set and caches it for an hour, and checks the
 * audience and expiry again). So a rejection names the first check that failed in that order,
 * and only a token whose signature holds can earn a 403. The service account is compared
 * ignoring case; no clock skew is allowed on {@code exp} (the library allows none either).
 *
 * <p>Thread-safe: one instance serves every request and keeps the key cache.
 */
final class PushTokenVerifier {
  private static final JsonFactory JSON = GsonFactory.getDefaultInstance();
  private static final String BEARER = "bearer";

  private final String audience;
  private final Optional<String> serviceAccount;
  private final List<String> issuers;
  private final String jwksUri;
  private final Clock clock;
  private final TokenVerifier signatures;

  /**
   * @param audience the {@code aud} every token must carry
   * @param serviceAccount when present, the {@code email} every token must carry
   */
  PushTokenVerifier(
      String audience, Optional<String> serviceAccount, OidcConfiguration configuration, Clock clock) {
    this.audience = Objects.requireNonNull(audience, "audience");
    this.serviceAccount = Objects.requireNonNull(serviceAccount, "serviceAccount");
    this.issuers = List.copyOf(configuration.issuers());
    this.jwksUri = configuration.jwksUri().toString();
    this.clock = Objects.requireNonNull(clock, "clock");
    // No issuer here: the library takes one, Google writes two spellings; checked below instead.
    this.signatures =
        TokenVerifier.newBuilder()
            .setAudience(audience)
            .setCertificatesLocation(jwksUri)
            .setClock(clock::millis)
            .build();
  }

  /**
   * Verifies the {@code Authorization} header of a push request.
   *
   * @return empty when the request may pass, else why not
   */
  Optional<Rejection> verify(Optional<String> authorization) {
    if (authorization.isEmpty() || authorization.get().isBlank()) {
      return reject(Reason.MISSING_TOKEN, "the request has no Authorization header");
    }
    String header = authorization.get().trim();
    int space = header.indexOf(' ');
    if (space < 0 || !header.substring(0, space).toLowerCase(Locale.ROOT).equals(BEARER)) {
      return reject(Reason.MALFORMED_TOKEN, "the Authorization header is not a Bearer token");
    }
    String token = header.substring(space + 1).trim();

    JsonWebSignature jws;
    try {
      jws = JsonWebSignature.parse(JSON, token);
    } catch (IOException | RuntimeException e) {
      // Only the exception's class: its message may quote the token.
      return reject(Reason.MALFORMED_TOKEN, "the bearer token is not a JWT (" + e.getClass().getSimpleName() + ")");
    }
    JsonWebToken.Payload claims = jws.getPayload();

    Long expiresAt = claims.getExpirationTimeSeconds();
    if (expiresAt == null) {
      return reject(Reason.MALFORMED_TOKEN, "the token has no exp claim");
    }
    if (expiresAt <= clock.millis() / 1000) {
      return reject(Reason.EXPIRED, "the token expired at " + Instant.ofEpochSecond(expiresAt));
    }
    String issuer = claims.getIssuer();
    if (issuer == null || !issuers.contains(issuer)) {
      return reject(Reason.WRONG_ISSUER, "iss " + quoted(issuer) + " is none of " + issuers);
    }
    Object tokenAudience = claims.getAudience();
    if (!audience.equals(tokenAudience)) {
      return reject(
          Reason.WRONG_AUDIENCE, "aud " + quoted(tokenAudience) + " is not \"" + audience + "\"");
    }

    try {
      signatures.verify(token);
    } catch (VerificationException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ExecutionException || cause instanceof UncheckedExecutionException) {
        return reject(
            Reason.KEYS_UNAVAILABLE,
            "the signing keys at " + jwksUri + " cannot be fetched: " + rootMessage(cause));
      }
      return reject(
          Reason.BAD_SIGNATURE,
          "the token (kid " + quoted(jws.getHeader().getKeyId()) + ", alg "
              + quoted(jws.getHeader().getAlgorithm()) + ") fails verification: " + e.getMessage());
    }

    if (serviceAccount.isPresent()) {
      Object email = claims.get("email");
      if (!(email instanceof String text) || !text.equalsIgnoreCase(serviceAccount.get())) {
        return reject(
            Reason.WRONG_SERVICE_ACCOUNT,
            "email " + quoted(email) + " is not the push service account \"" + serviceAccount.get() + "\"");
      }
      Object verified = claims.get("email_verified");
      if (!Boolean.TRUE.equals(verified) && !"true".equals(verified)) {
        return reject(
            Reason.EMAIL_NOT_VERIFIED, "email " + quoted(email) + " has email_verified " + quoted(verified));
      }
    }
    return Optional.empty();
  }

  private static Optional<Rejection> reject(Reason reason, String detail) {
    return Optional.of(new Rejection(reason, detail));
  }

  private static String quoted(Object value) {
    return value == null ? "(none)" : value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
  }

  private static String rootMessage(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.toString();
  }
}
