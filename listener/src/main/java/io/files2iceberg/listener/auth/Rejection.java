package io.files2iceberg.listener.auth;

import io.micronaut.http.HttpStatus;
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

  /** The reasons, with their metric tag and HTTP status. */
  enum Reason {
    MISSING_TOKEN("missing-token", HttpStatus.UNAUTHORIZED),
    MALFORMED_TOKEN("malformed-token", HttpStatus.UNAUTHORIZED),
    EXPIRED("expired", HttpStatus.UNAUTHORIZED),
    WRONG_ISSUER("wrong-issuer", HttpStatus.UNAUTHORIZED),
    WRONG_AUDIENCE("wrong-audience", HttpStatus.UNAUTHORIZED),
    BAD_SIGNATURE("bad-signature", HttpStatus.UNAUTHORIZED),
    WRONG_SERVICE_ACCOUNT("wrong-service-account", HttpStatus.FORBIDDEN),
    EMAIL_NOT_VERIFIED("email-not-verified", HttpStatus.FORBIDDEN),
    KEYS_UNAVAILABLE("keys-unavailable", HttpStatus.SERVICE_UNAVAILABLE);

    private final String tag;
    private final HttpStatus status;

    Reason(String tag, HttpStatus status) {
      this.tag = tag;
      this.status = status;
    }

    /** The {@code reason} tag of the rejection counter. */
    String tag() {
      return tag;
    }

    HttpStatus status() {
      return status;
    }
  }
}
