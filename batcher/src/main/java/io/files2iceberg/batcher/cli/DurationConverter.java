package io.files2iceberg.batcher.cli;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import picocli.CommandLine;

/** A duration with a unit, as profiles write them: {@code 90s}, {@code 30m}, {@code 2h}. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    String expected = "expected a duration with a unit, such as 90s, 30m or 2h, got '" + value + "'";
    if (value.isBlank() || value.trim().matches("[0-9.]+")) {
      throw new CommandLine.TypeConversionException(expected);
    }
    Duration duration;
    try {
      duration = ConfigFactory.parseString("d = \"" + value.replace("\"", "") + "\"").getDuration("d");
    } catch (ConfigException e) {
      throw new CommandLine.TypeConversionException(expected);
    }
    if (duration.isNegative() || duration.isZero()) {
      throw new CommandLine.TypeConversionException("must be longer than zero, got '" + value + "'");
    }
    return duration;
  }
}
