package io.files2iceberg.batcher.history;

import io.files2iceberg.batcher.cli.DurationConverter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import picocli.CommandLine;

/**
 * {@code --since}: how far back a history reaches, a duration back from now ({@code 90m},
 * {@code 1d}, as {@link DurationConverter} reads them) or an ISO-8601 instant ({@code
 * 2026-12-01T00:00:00Z}). Parsed once at the edge; the instant is fixed when the command runs.
 */
public sealed interface Since {

  /** The instant the history starts at. */
  Instant from(Clock clock);

  /** A duration back from now. */
  record Ago(Duration duration) implements Since {
    @Override
    public Instant from(Clock clock) {
      // To the second: a window a fraction of a second wider, and a start that reads well.
      return clock.instant().minus(duration).truncatedTo(ChronoUnit.SECONDS);
    }

    @Override
    public String toString() {
      return duration.toString();
    }
  }

  /** A fixed instant. */
  record At(Instant instant) implements Since {
    @Override
    public Instant from(Clock clock) {
      return instant;
    }

    @Override
    public String toString() {
      return instant.toString();
    }
  }

  /** The picocli converter; a bad value names itself and the accepted forms. */
  final class Converter implements CommandLine.ITypeConverter<Since> {
    @Override
    public Since convert(String value) {
      String trimmed = value.trim();
      if (trimmed.matches("\\d{4}-\\d{2}-\\d{2}T.*")) {
        try {
          return new At(Instant.parse(trimmed));
        } catch (DateTimeParseException e) {
          throw invalid(value);
        }
      }
      try {
        return new Ago(new DurationConverter().convert(trimmed));
      } catch (CommandLine.TypeConversionException e) {
        throw invalid(value);
      }
    }

    private static CommandLine.TypeConversionException invalid(String value) {
      return new CommandLine.TypeConversionException("'" + value + "' is neither a duration with a unit (90m, 12h,"
          + " 1d) nor an ISO-8601 instant (2026-12-01T00:00:00Z)");
    }
  }
}
