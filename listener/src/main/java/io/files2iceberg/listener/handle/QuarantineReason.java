package io.files2iceberg.listener.handle;

/**
 * Why a message can never succeed, as a stable code: the {@code reason} tag of the quarantine
 * metrics. The quarantine record itself carries a sentence naming the message and the fault.
 */
public enum QuarantineReason {
  /** The push request body is not a Pub/Sub envelope (not JSON, no {@code message}, ...). */
  MALFORMED_ENVELOPE("malformed-envelope"),
  /**
   * The push request's content type is not {@code application/json}: Pub/Sub always posts JSON,
   * so such a request never becomes readable.
   */
  UNSUPPORTED_CONTENT_TYPE("unsupported-content-type"),
  /** {@code message.data} is not base64. */
  BAD_BASE64("bad-base64"),
  /** A required attribute ({@code eventType}, {@code bucketId}, ...) is absent. */
  MISSING_ATTRIBUTE("missing-attribute"),
  /** An attribute does not parse: a generation that is not a positive number, a bad time. */
  BAD_ATTRIBUTE("bad-attribute"),
  /** {@code payloadFormat} is neither {@code JSON_API_V1} nor {@code NONE}. */
  UNKNOWN_PAYLOAD_FORMAT("unknown-payload-format"),
  /** The data of a {@code JSON_API_V1} notification is not an object resource. */
  BAD_OBJECT_RESOURCE("bad-object-resource"),
  /**
   * The object belongs to a profile but cannot be placed in a partition: it misses the pattern
   * under {@code strict-pattern = true} (the table's batches stop until it is cleared), or its
   * date token does not parse.
   */
  REJECTED_BY_MATCHER("rejected-by-matcher"),
  /**
   * The object matches a profile's glob but not its pattern, with {@code strict-pattern = false}:
   * quarantined with a warning, and the table goes on.
   */
  PATTERN_MISMATCH("pattern-mismatch"),
  /** The marker's folder cannot be listed, and retrying will not help (a permission, a 404). */
  LISTING_FAILED("listing-failed");

  private final String code;

  QuarantineReason(String code) {
    this.code = code;
  }

  /** The metrics tag value. */
  public String code() {
    return code;
  }
}
