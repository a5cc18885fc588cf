package io.files2iceberg.core.profile;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
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

  /**
   * What a file read gives when nothing is wrong with it.
   *
   * @throws ProfileException listing the problems, if there are any
   */
  static <T> T unlessAny(List<ProfileError> errors, Optional<T> read) throws ProfileException {
    if (!errors.isEmpty()) {
      throw new ProfileException(errors);
    }
    return read.orElseThrow();
  }

  /**
   * What a file read gives when nothing is wrong with it: {@code read} adds its problems to the
   * list it is given.
   *
   * @throws ProfileException listing the problems, if there are any
   */
  static <T> T unlessAny(Function<List<ProfileError>, Optional<T>> read) throws ProfileException {
    List<ProfileError> errors = new ArrayList<>();
    Optional<T> value = read.apply(errors);
    return unlessAny(errors, value);
  }

  /**
   * What a read of text standing for {@code source} gives when nothing is wrong with it: {@code read}
   * records its problems, naming the source.
   *
   * @throws ProfileException listing the problems, if there are any
   */
  static <T> T unlessAny(Path source, Function<Problems, Optional<T>> read) throws ProfileException {
    Problems problems = new Problems(source);
    Optional<T> value = read.apply(problems);
    return unlessAny(problems.errors(), value);
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
