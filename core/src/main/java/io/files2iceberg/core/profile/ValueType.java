package io.files2iceberg.core.profile;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The type of a profile key's value, and its conversion from the parsed tree.
 *
 * <p>The tree holds what both HOCON and YAML produce: {@code Map<String, Object>} (in declaration
 * order), {@code List<Object>}, {@code String}, {@code Boolean}, {@link BigDecimal} (numbers keep
 * the digits as written, so {@code 2.10} stays {@code "2.10"} as a string) and {@code null}. A
 * conversion that fails records the problem under the value's key path and yields nothing.
 */
final class ValueType<T> {

  /** A string, possibly blank; numbers and booleans are taken as their text. */
  static final ValueType<String> STRING =
      new ValueType<>("string, may be empty", false, (raw, path, p) -> text(raw, path, p, true));

  /** A string that is not blank. */
  static final ValueType<String> NON_BLANK =
      new ValueType<>("string", false, (raw, path, p) -> text(raw, path, p, false));

  /** {@code true}/{@code false}, as booleans or strings. */
  static final ValueType<Boolean> BOOLEAN = new ValueType<>("boolean", false, ValueType::bool);

  /** An int, as a number or a numeric string. */
  static final ValueType<Integer> WHOLE_NUMBER = new ValueType<>("whole number", false, ValueType::wholeNumber);

  /** A number from 0 to 1, such as {@code 0.5}, as a number or a numeric string. */
  static final ValueType<Double> FRACTION = new ValueType<>("number from 0 to 1", false, ValueType::fraction);

  /**
   * A size in bytes: a whole number of bytes, or a HOCON size with a unit ({@code 512MB}, {@code
   * 2GiB}, {@code 1g}).
   */
  static final ValueType<Long> BYTES = new ValueType<>("size in bytes", false, ValueType::bytes);

  /** A positive HOCON duration with a unit: {@code 30m}, {@code 1h}, {@code 90s}. */
  static final ValueType<Duration> DURATION = new ValueType<>("duration", false,
      (raw, path, p) -> duration(raw, path, p, false));

  /** A HOCON duration with a unit, or {@code 0} for none (a setting that {@code 0} turns off): {@code 30d}, {@code 12h}. */
  static final ValueType<Duration> DURATION_OR_ZERO = new ValueType<>("duration, or 0 for none", false,
      (raw, path, p) -> duration(raw, path, p, true));

  /** A list of non-blank strings. */
  static final ValueType<List<String>> LIST = new ValueType<>("list of strings", false, ValueType::list);

  /** A free-form map of literal keys to strings, possibly blank. */
  static final ValueType<Map<String, String>> MAP =
      new ValueType<>("map of strings", true, (raw, path, p) -> map(raw, path, p, true));

  /** A free-form map of literal keys to non-blank strings. */
  static final ValueType<Map<String, String>> NON_BLANK_MAP =
      new ValueType<>("map of non-blank strings", true, (raw, path, p) -> map(raw, path, p, false));

  /**
   * A list of objects, each a map of its fields as the tree holds them; the section that owns the
   * key checks the fields ({@link QualityKeys}).
   */
  static final ValueType<List<Map<String, Object>>> OBJECTS =
      new ValueType<>("list of objects", false, ValueType::objects);

  @FunctionalInterface
  private interface Conversion<T> {
    Optional<T> read(Object raw, String path, Problems problems);
  }

  private final String name;
  private final boolean freeForm;
  private final Conversion<T> conversion;

  private ValueType(String name, boolean freeForm, Conversion<T> conversion) {
    this.name = name;
    this.freeForm = freeForm;
    this.conversion = conversion;
  }

  /** What the keys' reference calls the type: {@code whole number}, {@code map of strings}. */
  String name() {
    return name;
  }

  /** Converts a non-null tree value found at {@code path}. */
  Optional<T> read(Object raw, String path, Problems problems) {
    return conversion.read(raw, path, problems);
  }

  /** Whether the value is a map whose keys are the user's, taken literally (dots included). */
  boolean isFreeForm() {
    return freeForm;
  }

  /** The value as an error message shows it: strings quoted, containers by kind. */
  static String describe(Object raw) {
    if (raw == null) {
      return "null";
    }
    if (raw instanceof String s) {
      return quote(s);
    }
    if (raw instanceof BigDecimal n) {
      return n.toPlainString();
    }
    if (raw instanceof List) {
      return "a list";
    }
    if (raw instanceof Map) {
      return "an object";
    }
    return raw.toString();
  }

  static String quote(String s) {
    return ConfigUtil.quoteString(s);
  }

  /**
   * Formats a duration in the syntax {@link #DURATION} reads: the largest of h, m, s, ms that
   * divides it, else ns.
   */
  static String format(Duration duration) {
    long nanos = duration.toNanos();
    long[] sizes = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L};
    String[] units = {"h", "m", "s", "ms"};
    for (int i = 0; i < sizes.length; i++) {
      if (nanos % sizes[i] == 0) {
        return nanos / sizes[i] + units[i];
      }
    }
    return nanos + "ns";
  }

  private static Optional<String> text(
      Object raw, String path, Problems problems, boolean blankAllowed) {
    String text;
    if (raw instanceof String s) {
      text = s;
    } else if (raw instanceof BigDecimal n) {
      text = n.toPlainString();
    } else if (raw instanceof Boolean b) {
      text = b.toString();
    } else {
      problems.add(path, "expected a string, got " + describe(raw));
      return Optional.empty();
    }
    if (!blankAllowed && text.isBlank()) {
      problems.add(path, "must not be blank");
      return Optional.empty();
    }
    return Optional.of(text);
  }

  private static Optional<Boolean> bool(Object raw, String path, Problems problems) {
    if (raw instanceof Boolean b) {
      return Optional.of(b);
    }
    if (raw instanceof String s && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) {
      return Optional.of(Boolean.parseBoolean(s));
    }
    problems.add(path, "expected true or false, got " + describe(raw));
    return Optional.empty();
  }

  private static Optional<Integer> wholeNumber(Object raw, String path, Problems problems) {
    return number(raw, path, problems, "expected a whole number", BigDecimal::intValueExact,
        text -> new BigDecimal(text).intValueExact());
  }

  private static Optional<Double> fraction(Object raw, String path, Problems problems) {
    Optional<BigDecimal> number = number(raw, path, problems, "expected a number from 0 to 1, such as 0.5",
        n -> n, BigDecimal::new);
    if (number.isPresent() && (number.get().signum() < 0 || number.get().compareTo(BigDecimal.ONE) > 0)) {
      problems.add(path, "must be from 0 to 1, got " + number.get().toPlainString());
      return Optional.empty();
    }
    return number.map(BigDecimal::doubleValue);
  }

  private static Optional<Long> bytes(Object raw, String path, Problems problems) {
    return number(raw, path, problems, "expected a size in bytes, such as 536870912, 512MB or 2GiB",
        BigDecimal::longValueExact, text -> ConfigFactory.parseString("b = " + quote(text)).getBytes("b"));
  }

  /**
   * A number written as one (HOCON and YAML numbers are read as {@link BigDecimal}) or as text,
   * trimmed; a value neither reader takes is reported as not what was {@code expected}.
   */
  private static <N> Optional<N> number(Object raw, String path, Problems problems, String expected,
      Function<BigDecimal, N> fromNumber, Function<String, N> fromText) {
    try {
      if (raw instanceof BigDecimal n) {
        return Optional.of(fromNumber.apply(n));
      }
      if (raw instanceof String s && !s.isBlank()) {
        return Optional.of(fromText.apply(s.trim()));
      }
    } catch (NumberFormatException | ArithmeticException | ConfigException e) {
      // reported below
    }
    problems.add(path, expected + ", got " + describe(raw));
    return Optional.empty();
  }

  private static Optional<Duration> duration(Object raw, String path, Problems problems, boolean zeroAllowed) {
    if (zeroAllowed && (raw instanceof BigDecimal number && number.signum() == 0
        || raw instanceof String zero && zero.trim().matches("0+"))) {
      return Optional.of(Duration.ZERO);
    }
    String expected = "expected a duration with a unit, such as 30m, 1h or 90s" + (zeroAllowed ? ", or 0" : "") + ","
        + " got " + describe(raw);
    // A bare number would be read as milliseconds: too easy to get wrong for a lease timeout.
    if (!(raw instanceof String text) || text.isBlank() || text.trim().matches("[0-9.]+")) {
      problems.add(path, expected);
      return Optional.empty();
    }
    Duration duration;
    try {
      duration = ConfigFactory.parseString("d = " + quote(text)).getDuration("d");
    } catch (ConfigException e) {
      problems.add(path, expected);
      return Optional.empty();
    }
    if (duration.isNegative() || duration.isZero() && !zeroAllowed) {
      problems.add(path, "must be longer than zero, got " + describe(raw));
      return Optional.empty();
    }
    return Optional.of(duration);
  }

  private static Optional<List<String>> list(Object raw, String path, Problems problems) {
    if (!(raw instanceof List<?> items)) {
      problems.add(path, "expected a list, got " + describe(raw));
      return Optional.empty();
    }
    List<String> values = new ArrayList<>();
    boolean valid = true;
    for (int i = 0; i < items.size(); i++) {
      Optional<String> value = text(items.get(i), ProfileKeys.element(path, i), problems, false);
      value.ifPresent(values::add);
      valid &= value.isPresent();
    }
    return valid ? Optional.of(List.copyOf(values)) : Optional.empty();
  }

  @SuppressWarnings("unchecked")
  private static Optional<List<Map<String, Object>>> objects(Object raw, String path, Problems problems) {
    if (!(raw instanceof List<?> items)) {
      problems.add(path, "expected a list of objects, got " + describe(raw));
      return Optional.empty();
    }
    List<Map<String, Object>> values = new ArrayList<>();
    boolean valid = true;
    for (int i = 0; i < items.size(); i++) {
      if (items.get(i) instanceof Map<?, ?> object) {
        values.add(Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, Object>) object)));
      } else {
        problems.add(ProfileKeys.element(path, i), "expected an object, got " + describe(items.get(i)));
        valid = false;
      }
    }
    return valid ? Optional.of(List.copyOf(values)) : Optional.empty();
  }

  private static Optional<Map<String, String>> map(
      Object raw, String path, Problems problems, boolean blankAllowed) {
    if (!(raw instanceof Map<?, ?> entries)) {
      problems.add(path, "expected an object, got " + describe(raw));
      return Optional.empty();
    }
    Map<String, String> values = new LinkedHashMap<>();
    boolean valid = true;
    for (Map.Entry<?, ?> entry : entries.entrySet()) {
      String key = entry.getKey().toString();
      String keyPath = ProfileKeys.child(path, key);
      if (key.isBlank()) {
        problems.add(keyPath, "a key must not be blank");
        valid = false;
      } else if (entry.getValue() instanceof Map) {
        problems.add(
            keyPath,
            "expected a string, got an object; in HOCON, quote keys that contain dots, as in"
                + " \"spark.executor.memory\" = 4g");
        valid = false;
      } else {
        Optional<String> value = text(entry.getValue(), keyPath, problems, blankAllowed);
        value.ifPresent(v -> values.put(key, v));
        valid &= value.isPresent();
      }
    }
    return valid ? Optional.of(Collections.unmodifiableMap(values)) : Optional.empty();
  }
}
