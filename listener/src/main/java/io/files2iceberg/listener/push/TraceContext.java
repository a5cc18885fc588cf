package io.files2iceberg.listener.push;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The trace a push request belongs to, from its W3C {@code traceparent} header
 * ({@code 00-<32 hex trace>-<16 hex span>-<2 hex flags>}) or else Google's
 * {@code X-Cloud-Trace-Context} ({@code <32 hex trace>/<decimal span>;o=<0|1>}), which Cloud Run
 * sets on every request. A header that matches neither is no trace, not an error: logging must
 * never refuse a message.
 *
 * @param traceId 32 lowercase hex digits
 * @param spanId 16 lowercase hex digits, as Cloud Logging's {@code spanId} wants it
 * @param sampled whether the caller sampled the trace
 */
public record TraceContext(String traceId, String spanId, boolean sampled) {
  public static final String TRACEPARENT = "traceparent";
  public static final String CLOUD_TRACE_CONTEXT = "X-Cloud-Trace-Context";

  private static final Pattern W3C =
      Pattern.compile("[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?");
  private static final Pattern CLOUD = Pattern.compile("([0-9a-fA-F]{32})(?:/([0-9]{1,20}))?(?:;o=([01]))?");

  /** The trace of the first header that reads as one, {@code traceparent} first; either may be null. */
  public static Optional<TraceContext> of(String traceparent, String cloudTraceContext) {
    return fromTraceparent(traceparent).or(() -> fromCloudTraceContext(cloudTraceContext));
  }

  static Optional<TraceContext> fromTraceparent(String header) {
    if (header == null) {
      return Optional.empty();
    }
    Matcher m = W3C.matcher(header.strip());
    if (!m.matches() || m.group(1).equals("0".repeat(32)) || m.group(2).equals("0".repeat(16))) {
      return Optional.empty();
    }
    boolean sampled = (Integer.parseInt(m.group(3), 16) & 1) == 1;
    return Optional.of(new TraceContext(m.group(1), m.group(2), sampled));
  }

  static Optional<TraceContext> fromCloudTraceContext(String header) {
    if (header == null) {
      return Optional.empty();
    }
    Matcher m = CLOUD.matcher(header.strip());
    if (!m.matches() || m.group(2) == null) {
      return Optional.empty();
    }
    long span;
    try {
      span = Long.parseUnsignedLong(m.group(2));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.of(new TraceContext(m.group(1).toLowerCase(Locale.ROOT), String.format("%016x", span),
        "1".equals(m.group(3))));
  }
}
