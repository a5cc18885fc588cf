package io.files2iceberg.core.profile;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the problems of one profile file, so that all of them are reported at once, and its
 * warnings: values still accepted that the file should change (a key's spelling of old).
 */
final class Problems {

  private final Path file;
  private final List<ProfileError> errors = new ArrayList<>();
  private final List<ProfileError> warnings = new ArrayList<>();

  Problems(Path file) {
    this.file = file;
  }

  void add(String keyPath, String reason) {
    errors.add(new ProfileError(file, keyPath, reason));
  }

  /** Whether a problem was recorded at {@code keyPath} or inside it ({@code [i]}, {@code .key}). */
  boolean hasAt(String keyPath) {
    return errors.stream()
        .map(ProfileError::keyPath)
        .anyMatch(
            path ->
                path.equals(keyPath)
                    || path.startsWith(keyPath + "[")
                    || path.startsWith(keyPath + "."));
  }

  /** A value that loads, but should be changed; never a reason to refuse the file. */
  void warn(String keyPath, String reason) {
    warnings.add(new ProfileError(file, keyPath, reason));
  }

  List<ProfileError> warnings() {
    return List.copyOf(warnings);
  }

  boolean isEmpty() {
    return errors.isEmpty();
  }

  List<ProfileError> errors() {
    return List.copyOf(errors);
  }
}
