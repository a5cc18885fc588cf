package io.files2iceberg.listener;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * One JSON object per line, in the shape Cloud Logging reads from a container's stdout: {@code
 * severity} and {@code message} become the entry's severity and text, {@code time} its timestamp;
 * {@code logger}, {@code thread} and every MDC entry (the handler's {@code messageId} and {@code
 * objectUri}) stay as fields of the JSON payload. A stack trace is appended to the message, where
 * Error Reporting looks for it.
 */
public final class CloudLoggingLayout extends LayoutBase<ILoggingEvent> {

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
      for (Map.Entry<String, String> entry : new TreeMap<>(mdc).entrySet()) {
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
