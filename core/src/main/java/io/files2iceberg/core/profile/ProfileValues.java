package io.files2iceberg.core.profile;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Typed, validated access to one profile's tree. Every problem is recorded in {@link Problems} and
 * the lookup yields nothing (or the fallback), so that parsing goes on and reports them all.
 */
final class ProfileValues {

  /** A validation rule: the reason a value is wrong, or empty when it is fine. */
  @FunctionalInterface
  interface Rule<T> extends Function<T, Optional<String>> {
    static <T> Rule<T> none() {
      return value -> Optional.empty();
    }

    /**
     * A value {@code parse} accepts, for a value checked here and read elsewhere: the message of
     * the {@link IllegalArgumentException} it throws is the problem.
     */
    static Rule<String> parses(Function<String, ?> parse) {
      return text -> {
        try {
          parse.apply(text);
          return Optional.empty();
        } catch (IllegalArgumentException e) {
          return Optional.of(e.getMessage());
        }
      };
    }
  }

  private final Map<String, Object> root;
  private final Problems problems;
  private final KeyPaths known;

  /** The values of a table profile, which may also carry the deployment's keys (of old). */
  ProfileValues(Map<String, Object> root, Problems problems) {
    this(root, problems, ProfileKeys.paths().plus(DeploymentKeys.paths()));
  }

  /** @param known the keys the file may set */
  ProfileValues(Map<String, Object> root, Problems problems, KeyPaths known) {
    this.root = root;
    this.problems = problems;
    this.known = known;
  }

  /** Whether the tree has a top-level section of that name, null or not. */
  boolean hasSection(String name) {
    return root.containsKey(name);
  }

  /**
   * Whether the key holds an object where its type is a single value: in HOCON a dotted key below
   * it ({@code a.b = 1} after {@code a = true}) replaced its value.
   */
  boolean isObject(SettingKey<?> key) {
    return raw(key) instanceof Map;
  }

  /** Whether the key is set to something other than null. */
  boolean isSet(SettingKey<?> key) {
    return raw(key) != null;
  }

  /** The key's value if it is set and valid. */
  <T> Optional<T> optional(SettingKey<T> key, Rule<? super T> rule) {
    Object raw = raw(key);
    if (raw == null) {
      return Optional.empty();
    }
    return key.type()
        .read(raw, key.path(), problems)
        .filter(value -> passes(key.path(), value, rule));
  }

  <T> Optional<T> optional(SettingKey<T> key) {
    return optional(key, Rule.none());
  }

  /**
   * The key's value as {@code parse} reads it, parsed once to check and to build: a value it
   * refuses yields nothing, the message of the {@link IllegalArgumentException} it throws being the
   * problem, as a rule's reason is.
   */
  <R> Optional<R> parsed(SettingKey<String> key, Function<String, R> parse) {
    return optional(key).flatMap(text -> {
      try {
        return Optional.of(parse.apply(text));
      } catch (IllegalArgumentException e) {
        problems.add(key.path(), e.getMessage());
        return Optional.empty();
      }
    });
  }

  /** The key's value if it is set and valid, else the fallback. */
  <T> T get(SettingKey<T> key, T fallback, Rule<? super T> rule) {
    return optional(key, rule).orElse(fallback);
  }

  <T> T get(SettingKey<T> key, T fallback) {
    return get(key, fallback, Rule.none());
  }

  /** A whole number in {@code [min, max]}. */
  int number(SettingKey<Integer> key, int fallback, int min, int max) {
    return get(
        key,
        fallback,
        n ->
            n < min
                ? Optional.of("must be at least " + min + ", got " + n)
                : n > max
                    ? Optional.of("must be at most " + max + ", got " + n)
                    : Optional.empty());
  }

  /** The key's value, or a "missing" problem when it is not set. */
  <T> Optional<T> required(SettingKey<T> key, Rule<? super T> rule) {
    return requiredBecause(key, "required key is missing", rule);
  }

  /** The key's value, or a problem when it is not set although {@code condition} holds. */
  <T> Optional<T> requiredWhen(SettingKey<T> key, String condition, Rule<? super T> rule) {
    return requiredBecause(key, "is required when " + condition, rule);
  }

  <T> Optional<T> requiredWhen(SettingKey<T> key, String condition) {
    return requiredWhen(key, condition, Rule.none());
  }

  private <T> Optional<T> requiredBecause(SettingKey<T> key, String reason, Rule<? super T> rule) {
    if (!isSet(key)) {
      problems.add(key.path(), reason);
      return Optional.empty();
    }
    return optional(key, rule);
  }

  /**
   * One of an enum's codes, case-insensitive. The fallback when unset; empty (with the problem
   * recorded) when the value is not one of the codes.
   */
  <E extends Enum<E>> Optional<E> choice(SettingKey<String> key, E fallback, Function<E, String> code) {
    if (!isSet(key)) {
      return Optional.of(fallback);
    }
    E[] values = fallback.getDeclaringClass().getEnumConstants();
    Optional<String> text = optional(key);
    Optional<E> choice = text.flatMap(t -> match(values, code, t));
    if (choice.isEmpty() && text.isPresent()) {
      problems.add(key.path(), expectedOneOf(values, code, text.get()));
    }
    return choice;
  }

  /**
   * A list of an enum's codes, case-insensitive and distinct; problems name the element ({@code
   * extract.lineage-columns[1]}). Empty when unset; nothing when invalid.
   */
  <E extends Enum<E>> Optional<List<E>> choices(
      SettingKey<List<String>> key, Class<E> type, Function<E, String> code) {
    if (!isSet(key)) {
      return Optional.of(List.of());
    }
    Optional<List<String>> list = optional(key);
    if (list.isEmpty()) {
      return Optional.empty();
    }
    E[] values = type.getEnumConstants();
    List<E> chosen = new ArrayList<>();
    boolean valid = true;
    for (int i = 0; i < list.get().size(); i++) {
      String path = ProfileKeys.element(key.path(), i);
      String text = list.get().get(i);
      Optional<E> choice = match(values, code, text);
      if (choice.isEmpty()) {
        problems.add(path, expectedOneOf(values, code, text));
        valid = false;
      } else if (chosen.contains(choice.get())) {
        problems.add(path, "duplicate entry " + ValueType.quote(text));
        valid = false;
      } else {
        chosen.add(choice.get());
      }
    }
    return valid ? Optional.of(List.copyOf(chosen)) : Optional.empty();
  }

  private static <E> Optional<E> match(E[] values, Function<E, String> code, String text) {
    return Arrays.stream(values)
        .filter(value -> code.apply(value).equalsIgnoreCase(text.trim()))
        .findFirst();
  }

  private static <E> String expectedOneOf(E[] values, Function<E, String> code, String text) {
    return "expected one of "
        + Arrays.stream(values).map(code).collect(Collectors.joining(", "))
        + ", got "
        + ValueType.describe(text);
  }

  /**
   * A list whose elements are distinct and each pass the rule; problems name the element ({@code
   * load.primary-key[1]}). Empty when unset; nothing when invalid.
   */
  Optional<List<String>> each(SettingKey<List<String>> key, Rule<String> rule) {
    if (!isSet(key)) {
      return Optional.of(List.of());
    }
    Optional<List<String>> list = optional(key);
    if (list.isEmpty()) {
      return list;
    }
    List<String> values = list.get();
    Set<String> seen = new HashSet<>();
    boolean valid = true;
    for (int i = 0; i < values.size(); i++) {
      String path = ProfileKeys.element(key.path(), i);
      valid &= passes(path, values.get(i), rule);
      if (!seen.add(values.get(i))) {
        problems.add(path, "duplicate entry " + ValueType.quote(values.get(i)));
        valid = false;
      }
    }
    return valid ? list : Optional.empty();
  }

  /** A value that loads as it is, with a warning that says what to write instead. */
  void warn(SettingKey<?> key, String reason) {
    problems.warn(key.path(), reason);
  }

  void reject(SettingKey<?> key, String reason) {
    problems.add(key.path(), reason);
  }

  /**
   * A field inside a key's value (an element of a list of objects) read as {@code type}: empty,
   * with the problem recorded at {@code path}, when it is not one.
   */
  <T> Optional<T> field(ValueType<T> type, Object raw, String path) {
    return type.read(raw, path, problems);
  }

  /** A problem at a key path that is not one of the known keys' own, such as a provider's. */
  void reject(String keyPath, String reason) {
    problems.add(keyPath, reason);
  }

  /**
   * Whether no problem has been recorded at any of the keys or inside them, so that a rule
   * across keys is checked only on values that are valid on their own.
   */
  boolean isValid(SettingKey<?>... keys) {
    return Arrays.stream(keys).noneMatch(key -> problems.hasAt(key.path()));
  }

  /**
   * Reports every key that is not in {@link ProfileKeys}, with the nearest known key as a
   * suggestion, and every section that is not an object.
   */
  void rejectUnknownKeys() {
    rejectUnknownKeys(root, "");
  }

  @SuppressWarnings("unchecked")
  private void rejectUnknownKeys(Map<String, Object> section, String path) {
    section.forEach(
        (key, value) -> {
          String keyPath = ProfileKeys.child(path, key);
          if (known.isKey(keyPath) || ProfileKeys.isRenderedField(keyPath)) {
            return;
          }
          if (!known.isSection(keyPath)) {
            problems.add(keyPath, "unknown key" + suggestion(known, path, key));
          } else if (value instanceof Map) {
            rejectUnknownKeys((Map<String, Object>) value, keyPath);
          } else if (value != null) {
            problems.add(keyPath, "expected an object, got " + ValueType.describe(value));
          }
        });
  }

  /**
   * A key found deeper under the same section by its last name ({@code table} under {@code load}
   * means {@code iceberg.table}); else the closest sibling by edit distance, when within 3 edits or
   * one is a prefix of the other.
   */
  static String suggestion(KeyPaths keys, String section, String key) {
    Optional<String> deeper =
        keys.below(section).stream()
            .filter(relative -> relative.endsWith("." + key))
            .findFirst();
    Optional<String> near =
        deeper.or(
            () ->
                keys.children(section).stream()
                    .filter(
                        known ->
                            distance(known, key) <= 3
                                || known.startsWith(key)
                                || key.startsWith(known))
                    .min(Comparator.comparingInt(known -> distance(known, key))));
    return near.map(known -> "; did you mean '" + known + "'?")
        .orElse("; expected one of " + String.join(", ", keys.children(section)));
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  private <T> boolean passes(String path, T value, Rule<? super T> rule) {
    Optional<String> reason = rule.apply(value);
    reason.ifPresent(r -> problems.add(path, r));
    return reason.isEmpty();
  }

  /**
   * Whether the key is written with the literal {@code null} (HOCON or YAML), which {@link #isSet}
   * takes for unset. For a key whose own value is the word null.
   */
  boolean isWrittenAsNull(SettingKey<?> key) {
    Object node = root;
    List<String> segments = key.segments();
    for (String segment : segments.subList(0, segments.size() - 1)) {
      if (!(node instanceof Map<?, ?> section)) {
        return false;
      }
      node = section.get(segment);
    }
    String last = segments.get(segments.size() - 1);
    return node instanceof Map<?, ?> section && section.containsKey(last) && section.get(last) == null;
  }

  private Object raw(SettingKey<?> key) {
    Object node = root;
    for (String segment : key.segments()) {
      if (!(node instanceof Map<?, ?> section)) {
        return null;
      }
      node = section.get(segment);
    }
    return node;
  }
}
