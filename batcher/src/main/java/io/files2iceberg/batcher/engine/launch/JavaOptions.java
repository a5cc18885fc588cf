package io.files2iceberg.batcher.engine.launch;

import java.util.Arrays;
import java.util.List;

/** JVM options given in one environment variable, as a shell splits them: on whitespace. */
public final class JavaOptions {
  private JavaOptions() {}

  /** The options of {@code text}; none for {@code null} or blank. */
  public static List<String> parse(String text) {
    return text == null || text.isBlank() ? List.of() : Arrays.asList(text.strip().split("\\s+"));
  }
}
