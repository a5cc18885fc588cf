package io.files2iceberg.sparkjob;

import java.util.Optional;

/**
 * The command line of {@link BatchJob}: {@code --manifest <uri>} (or {@code --manifest=<uri>}) and, from a launcher,
 * {@code --attempt <N>} (or {@code --attempt=<N>}), the launch of the batch this run is.
 */
record Arguments(String manifest, Optional<Integer> attempt) {
  static Optional<Arguments> parse(String[] args) {
    String manifest = null;
    Integer attempt = null;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      String value;
      int equals = name.indexOf('=');
      if (name.startsWith("--") && equals > 0) {
        value = name.substring(equals + 1);
        name = name.substring(0, equals);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        return Optional.empty();
      }
      if (value.isBlank()) {
        return Optional.empty();
      }
      switch (name) {
        case "--manifest" -> manifest = value;
        case "--attempt" -> {
          try {
            attempt = Integer.parseInt(value);
          } catch (NumberFormatException e) {
            return Optional.empty();
          }
          if (attempt < 1) {
            return Optional.empty();
          }
        }
        default -> {
          return Optional.empty();
        }
      }
    }
    return manifest == null ? Optional.empty() : Optional.of(new Arguments(manifest, Optional.ofNullable(attempt)));
  }
}
