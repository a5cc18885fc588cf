package io.files2iceberg.listener.auth;

import io.micronaut.http.HttpStatus;
import java.util.Locale;
import java.util.Objects;

/**
 * Why a push request was turned away, and the status it gets.
 *
 * <p>401: the request does not prove who sent it (no token, not a token, not signed by a key of
 * the key set, expired, issued by someone else or for another audience). 403: the token is
 * Google's, current and for this audience, but names another principal than the push service
 * account. 503: the signing keys could not be fetched, so nothing can be verified; not the
 * sender's fault. Pub/Sub redelivers after any of them.
 *
 * @param reason what failed
 * @param detail one sentence for the log: claim values, never the token
 */
record Rejection(Reason reason, String detail) {

  Rejection {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(detail, "detail");
  }

  /** The reasons, with their HTTP status. */
  enum Reason {
    MISSING_TOKEN(HttpStatus.UNAUTHORIZED),
    MALFORMED_TOKEN(HttpStatus.UNAUTHORIZED),
    EXPIRED(HttpStatus.UNAUTHORIZED),
    WRONG_ISSUER(HttpStatus.UNAUTHORIZED),
    WRONG_AUDIENCE(HttpStatus.UNAUTHORIZED),
    BAD_SIGNATURE(HttpStatus.UNAUTHORIZED),
    WRONG_SERVICE_ACCOUNT(HttpStatus.FORBIDDEN),
    EMAIL_NOT_VERIFIED(HttpStatus.FORBIDDEN),
    KEYS_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE);

    private final HttpStatus status;

    Reason(HttpStatus status) {
      this.status = status;
    }

    /** The {@code reason} tag of the rejection counter: the name in kebab case ({@code missing-token}). */
    String tag() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    HttpStatus status() {
      return status;
    }
  }
}
