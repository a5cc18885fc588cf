package io.files2iceberg.listener.handle;

import java.util.Optional;

/**
 * A message that can never be handled as it is (a missing attribute, a bad number, an unknown
 * payload format): it is quarantined and acknowledged, never retried.
 */
final class UnreadableNotificationException extends Exception {
  private static final long serialVersionUID = 1L;

  private final QuarantineReason reason;
  private final transient Optional<String> objectUri;

  UnreadableNotificationException(QuarantineReason reason, String message, Optional<String> objectUri) {
    super(message);
    this.reason = reason;
    this.objectUri = objectUri;
  }

  QuarantineReason reason() {
    return reason;
  }

  Optional<String> objectUri() {
    return objectUri;
  }
}
