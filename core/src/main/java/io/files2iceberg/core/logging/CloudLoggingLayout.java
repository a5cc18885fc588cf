package io.files2iceberg.core.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.MDC;

/**
 * One JSON object per line, in the shape Cloud Logging reads from a container's stdout: {@code
 * severity} and {@code message} become the entry's severity and text, {@code time} its timestamp;
 * {@code logger}, {@code thread} and every MDC entry (the handler's {@code messageId} and {@code
 * objectUri}) stay as fields of the JSON payload. A stack trace is appended to the message, where
 * Error Reporting looks for it.
 *
 * <p>The trace set at the push edge ({@link #putTrace}) becomes {@code logging.googleapis.com/trace}
 * ({@code projects/<project>/traces/<trace id>}, the project from {@code GOOGLE_CLOUD_PROJECT}; the
 * bare trace id without one), {@code logging.googleapis.com/spanId} and {@code
 * logging.googleapis.com/trace_sampled}, so that the entries of one request group under it. The MDC
 * keys of {@link #LABELS} also become {@code logging.googleapis.com/labels}, which Cloud Logging
 * indexes: {@code table}, {@code partition}, {@code batch_id}, {@code object_uri}, {@code message_id}.
 */
public final class CloudLoggingLayout extends LayoutBase<ILoggingEvent> {
  /** MDC key of the request's trace id (32 hex digits). */
  public static final String MDC_TRACE_ID = "traceId";
  /** MDC key of the request's span id (16 hex digits). */
  public static final String MDC_SPAN_ID = "spanId";
  /** MDC key of whether the request's trace is sampled ({@code true}, {@code false}). */
  public static final String MDC_TRACE_SAMPLED = "traceSampled";
  /** MDC keys that become entry labels, with the label each becomes ({@link LogLabels}). */
  public static final Map<String, String> LABELS = LogLabels.LABELS;

  private String project = System.getenv("GOOGLE_CLOUD_PROJECT");

  /** The project that qualifies trace ids; default {@code GOOGLE_CLOUD_PROJECT}. */
  public void setProject(String project) {
    this.project = project;
  }

  /** Puts a request's trace into the MDC, for every line logged until {@link #removeTrace}. */
  public static void putTrace(String traceId, String spanId, boolean sampled) {
    MDC.put(MDC_TRACE_ID, traceId);
    MDC.put(MDC_SPAN_ID, spanId);
    MDC.put(MDC_TRACE_SAMPLED, Boolean.toString(sampled));
  }

  public static void removeTrace() {
    MDC.remove(MDC_TRACE_ID);
    MDC.remove(MDC_SPAN_ID);
    MDC.remove(MDC_TRACE_SAMPLED);
  }

  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder json = new StringBuilder(256);
    json.append('{');
    field(json, "severity", severity(event.getLevel()));
    json.append(',');
    String message = event.getFormattedMessage();
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown != null) {
      message = message + CoreConstants.LINE_SEPARATOR + ThrowableProxyUtil.asString(thrown);
    }
    field(json, "message", message);
    json.append(',');
    field(json, "time", Instant.ofEpochMilli(event.getTimeStamp()).toString());
    json.append(',');
    field(json, "logger", event.getLoggerName());
    json.append(',');
    field(json, "thread", event.getThreadName());
    Map<String, String> mdc = event.getMDCPropertyMap();
    if (mdc != null) {
      String traceId = mdc.get(MDC_TRACE_ID);
      if (traceId != null) {
        json.append(',');
        field(json, "logging.googleapis.com/trace",
            project == null || project.isBlank() ? traceId : "projects/" + project + "/traces/" + traceId);
        String spanId = mdc.get(MDC_SPAN_ID);
        if (spanId != null) {
          json.append(',');
          field(json, "logging.googleapis.com/spanId", spanId);
        }
        json.append(",\"logging.googleapis.com/trace_sampled\":")
            .append(Boolean.parseBoolean(mdc.get(MDC_TRACE_SAMPLED)));
      }
      StringBuilder labels = new StringBuilder();
      for (Map.Entry<String, String> label : LABELS.entrySet()) {
        String value = mdc.get(label.getKey());
        if (value != null) {
          labels.append(labels.isEmpty() ? "" : ",");
          field(labels, label.getValue(), value);
        }
      }
      if (!labels.isEmpty()) {
        json.append(",\"logging.googleapis.com/labels\":{").append(labels).append('}');
      }
      for (Map.Entry<String, String> entry : new TreeMap<>(mdc).entrySet()) {
        if (entry.getKey().equals(MDC_TRACE_ID) || entry.getKey().equals(MDC_SPAN_ID)
            || entry.getKey().equals(MDC_TRACE_SAMPLED)) {
          continue;
        }
        json.append(',');
        field(json, entry.getKey(), entry.getValue());
      }
    }
    json.append('}').append(CoreConstants.LINE_SEPARATOR);
    return json.toString();
  }

  @Override
  public String getContentType() {
    return "application/json";
  }

  static String severity(Level level) {
    if (level.isGreaterOrEqual(Level.ERROR)) {
      return "ERROR";
    }
    if (level.isGreaterOrEqual(Level.WARN)) {
      return "WARNING";
    }
    if (level.isGreaterOrEqual(Level.INFO)) {
      return "INFO";
    }
    return "DEBUG";
  }

  private static void field(StringBuilder json, String name, String value) {
    quote(json, name);
    json.append(':');
    if (value == null) {
      json.append("null");
    } else {
      quote(json, value);
    }
  }

  private static void quote(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
