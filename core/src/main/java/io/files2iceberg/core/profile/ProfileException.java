package io.files2iceberg.core.profile;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Table profiles that cannot be used. Carries every problem of every file read, not only the first,
 * so that one {@code validate} run shows them all.
 */
public final class ProfileException extends Exception {

  private final transient List<ProfileError> errors;

  public ProfileException(List<ProfileError> errors) {
    super(message(errors));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a ProfileException needs at least one error");
    }
    this.errors = List.copyOf(errors);
  }

  /** Every problem found, in file order. */
  public List<ProfileError> errors() {
    return errors;
  }

  private static String message(List<ProfileError> errors) {
    String count = errors.size() == 1 ? "1 problem" : errors.size() + " problems";
    return errors.stream()
        .map(ProfileError::toString)
        .collect(Collectors.joining("\n  ", "invalid table profiles, " + count + ":\n  ", ""));
  }
}
