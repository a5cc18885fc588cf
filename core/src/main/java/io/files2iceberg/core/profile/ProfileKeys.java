package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ValueType.NON_BLANK;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Every key a table profile may set: its dotted path, its value type and where the resolved value
 * lives in a {@link TableProfile}, declared section by section in {@link ExtractKeys}, {@link
 * LoadKeys}, {@link QualityKeys}, {@link CatalogKeys} and {@link MaintainKeys}. The one list that the parser's unknown-key check, the JSON
 * rendering, the reference page and the JSON Schema ({@link ProfileReference}) all read. The deployment's keys ({@code ledger}, {@code listener},
 * {@code job}) are {@link DeploymentKeys}.
 */
final class ProfileKeys {

  /**
   * One leaf key.
   *
   * @param path the dotted path, such as {@code extract.batch-file.pattern}
   * @param type the value's type
   * @param resolved the resolved value in a profile, as the key spells it (enum codes, null for
   *     none)
   * @param doc what the reference page and the JSON Schema say about it
   */
  record Key<T>(String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc)
      implements SettingKey<T> {}

  /**
   * A key's documentation, the one source of docs/reference/profile-keys.md and
   * docs/profile.schema.json.
   *
   * @param defaultValue the default as the reference table shows it: a value in backticks
   *     ({@code `100`}), or words ({@code required}, {@code none}, a rule)
   * @param description Markdown, its links relative to docs/reference/; line breaks are spaces
   * @param values the codes the value (or each element of a list) must be one of, matched in any
   *     case; empty when free
   * @param minimum the least whole number the loader accepts; empty when any
   * @param pattern a regex the whole text must match, as the loader checks it; empty when free
   * @param deprecatedValues values the loader still accepts with a warning (a boolean of old)
   */
  record Doc(String defaultValue, String description, List<String> values, Optional<Long> minimum,
      Optional<String> pattern, List<String> deprecatedValues) {
    Doc {
      description = description.strip().replaceAll("\\s*\\n\\s*", " ");
      values = List.copyOf(values);
      deprecatedValues = List.copyOf(deprecatedValues);
    }

    Doc(String defaultValue, String description, List<String> values) {
      this(defaultValue, description, values, Optional.empty(), Optional.empty(), List.of());
    }

    /** Whether the profile must set the key. */
    boolean isRequired() {
      return defaultValue.equals("required");
    }

    Doc atLeast(long least) {
      return new Doc(defaultValue, description, values, Optional.of(least), pattern, deprecatedValues);
    }

    Doc matching(String regex) {
      return new Doc(defaultValue, description, values, minimum, Optional.of(regex), deprecatedValues);
    }

    Doc alsoAccepting(List<String> deprecated) {
      return new Doc(defaultValue, description, values, minimum, pattern, deprecated);
    }
  }

  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  /**
   * The two top-level fields a rendered profile ({@link ProfileJson}) carries besides its keys.
   * They are not profile keys: the file decides a profile's name and source. The loader accepts
   * them, so that a rendered profile loads as it is, and checks that {@code name} is the file's.
   */
  static final Key<String> RENDERED_NAME = new Key<>("name", NON_BLANK, TableProfile::name,
      doc("the file name without its extension",
          "The profile's name, as `validate` prints it; when present, the file name without the extension."));

  static final Key<String> RENDERED_SOURCE = new Key<>("source", NON_BLANK, p -> p.source().toString(),
      doc("the file", "The file the profile was read from, as `validate` prints it."));

  private ProfileKeys() {}

  /** Whether a top-level field is one of the fields a rendered profile carries. */
  static boolean isRenderedField(String path) {
    return path.equals(RENDERED_NAME.path()) || path.equals(RENDERED_SOURCE.path());
  }

  static Doc doc(String defaultValue, String description) {
    return new Doc(defaultValue, description, List.of());
  }

  static Doc doc(String defaultValue, String description, List<String> values) {
    return new Doc(defaultValue, description, values);
  }

  /** The codes of an enum's constants, in declaration order. */
  static <E extends Enum<E>> List<String> codes(E[] values, Function<E, String> code) {
    return Arrays.stream(values).map(code).toList();
  }

  static List<String> all() {
    return keys().stream().map(Key::path).toList();
  }

  /** Every table key in documentation order: the sections in the order a profile lists them. */
  static List<Key<?>> keys() {
    return Stream.of(ExtractKeys.keys(), LoadKeys.keys(), QualityKeys.keys(), CatalogKeys.keys(),
        MaintainKeys.keys()).flatMap(List::stream).toList();
  }

  /** The table keys, for the unknown-key check. */
  static KeyPaths paths() {
    return new KeyPaths(keys());
  }

  /**
   * Whether {@code path} is a map whose keys are the user's (Spark properties and such), in a
   * profile or the deployment file.
   */
  static boolean isFreeForm(String path) {
    return paths().plus(DeploymentKeys.paths()).isFreeForm(path);
  }

  /** The path of a key inside {@code parent}; keys that are not plain names are quoted. */
  static String child(String parent, String key) {
    String segment = PLAIN_KEY.matcher(key).matches() ? key : ValueType.quote(key);
    return parent.isEmpty() ? segment : parent + "." + segment;
  }

  /** The path of a list element. */
  static String element(String list, int index) {
    return list + "[" + index + "]";
  }
}
