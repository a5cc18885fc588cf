package io.files2iceberg.core.logging;

import ch.qos.logback.core.PropertyDefinerBase;

/**
 * {@link LogFormat#current()} as a logback property: {@code <define name="format"
 * class="io.files2iceberg.core.logging.LogFormatDefiner"/>}, then {@code <appender-ref
 * ref="${format}"/>} with appenders named {@code JSON} and {@code TEXT}.
 */
public final class LogFormatDefiner extends PropertyDefinerBase {
  @Override
  public String getPropertyValue() {
    return LogFormat.current();
  }
}
