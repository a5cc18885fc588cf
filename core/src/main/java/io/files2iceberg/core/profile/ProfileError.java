package io.files2iceberg.core.profile;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One problem found in a table profile.
 *
 * @param file the profile file (for a registry-wide problem, the second of the files involved)
 * @param keyPath the full key path, such as {@code load.primary-key[0]}; for a syntax error the
 *     line ({@code line 3}); empty when the problem concerns the whole file
 * @param reason what is wrong, with the offending value
 */
public record ProfileError(Path file, String keyPath, String reason) {

  public ProfileError {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(keyPath, "keyPath");
    Objects.requireNonNull(reason, "reason");
  }

  /** {@code file: keyPath: reason}, or {@code file: reason} when there is no key path. */
  @Override
  public String toString() {
    return keyPath.isEmpty() ? file + ": " + reason : file + ": " + keyPath + ": " + reason;
  }
}
