package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileKeys.doc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.profile.Expectation.OnViolation;
import io.files2iceberg.core.profile.ProfileKeys.Doc;
import io.files2iceberg.core.profile.ProfileKeys.Key;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The keys of a profile's {@code quality} section: expectations the batch's rows are checked
 * against after the transforms. Part of {@link ProfileKeys}.
 */
final class QualityKeys {
  static final String NAME = "name";
  static final String CHECK = "check";
  static final String MIN_ROWS = "min-rows";
  static final String COLUMN = "column";
  static final String MAX_NULL_FRACTION = "max-null-fraction";
  static final String ON_VIOLATION = "on-violation";
  private static final List<String> FIELDS = List.of(NAME, CHECK, MIN_ROWS, COLUMN, MAX_NULL_FRACTION, ON_VIOLATION);

  private static final KeyList<Key<?>> KEYS = new KeyList<>();

  static final Key<List<Map<String, Object>>> QUALITY_EXPECTATIONS =
      key("quality.expectations", ValueType.OBJECTS,
        p -> p.quality().expectations().stream().map(Expectation::rendered).toList(),
        doc("`[]`",
          """
          Named rules the batch's rows must meet, checked after the transforms in the job's one pass
          over the rows. Each is an object with a `name` (letters, digits, `_`; unique), an
          `on-violation` (`fail`, the default: the batch fails naming the expectation and sample keys;
          `reject`: the rows go to `<table>__rejected` with the expectation's name; `drop`: they are
          not loaded, and are counted; `warn`: they load, and are counted) and one rule: `check`, a
          Spark SQL condition on each row by the table's column names, met only when true (NULL is a
          violation; write `amount IS NULL OR amount > 0` to let NULL pass); or, per partition of the
          batch over the rows it would load, `min-rows` (at least that many rows) or
          `max-null-fraction` with `column` (at most that share of rows with the column NULL), whose
          action applies to all the partition's rows. A row that violates several checks gets the
          strongest action: fail, reject, drop, warn. Counts per expectation go to the job's metrics,
          each file's history, the snapshot summary (`files2iceberg.quality.<name>.failed`) and the
          batcher's metrics. See [Data quality](../quality.md).
          """));

  private QualityKeys() {}

  /** This section's keys, in documentation order. */
  static List<Key<?>> keys() {
    return KEYS.keys();
  }

  /** The section, checked field by field; problems name the element ({@code quality.expectations[1].check}). */
  static Quality read(ProfileValues v) {
    Optional<List<Map<String, Object>>> elements = v.optional(QUALITY_EXPECTATIONS);
    if (elements.isEmpty()) {
      return Quality.NONE;
    }
    List<Expectation> expectations = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < elements.get().size(); i++) {
      String path = ProfileKeys.element(QUALITY_EXPECTATIONS.path(), i);
      expectation(v, elements.get().get(i), path).ifPresent(expectation -> {
        if (!names.add(expectation.name().toLowerCase(Locale.ROOT))) {
          v.reject(ProfileKeys.child(path, NAME), "duplicate expectation name " + ValueType.quote(expectation.name())
              + ": each names its own counts and snapshot summary key");
        } else {
          expectations.add(expectation);
        }
      });
    }
    return new Quality(expectations);
  }

  private static Optional<Expectation> expectation(ProfileValues v, Map<String, Object> element, String path) {
    boolean valid = true;
    for (String field : element.keySet()) {
      if (!FIELDS.contains(field)) {
        v.reject(ProfileKeys.child(path, field), "unknown field; an expectation has " + String.join(", ", FIELDS));
        valid = false;
      }
    }
    Optional<String> name = required(v, element, path, NAME, ValueType.NON_BLANK);
    if (name.isPresent() && !Expectation.NAME.matcher(name.get()).matches()) {
      v.reject(ProfileKeys.child(path, NAME), "expected letters, digits and _, not starting with a digit, such as"
          + " \"amount_positive\", got " + ValueType.quote(name.get()));
      name = Optional.empty();
    }
    OnViolation onViolation = OnViolation.FAIL;
    Object action = element.get(ON_VIOLATION);
    if (action != null) {
      Optional<String> text = v.field(ValueType.NON_BLANK, action, ProfileKeys.child(path, ON_VIOLATION));
      Optional<OnViolation> chosen = text.flatMap(t -> Arrays.stream(OnViolation.values())
          .filter(o -> o.code().equalsIgnoreCase(t.strip())).findFirst());
      if (chosen.isEmpty()) {
        text.ifPresent(t -> v.reject(ProfileKeys.child(path, ON_VIOLATION), "expected one of "
            + Arrays.stream(OnViolation.values()).map(OnViolation::code).collect(Collectors.joining(", "))
            + ", got " + ValueType.quote(t)));
        valid = false;
      } else {
        onViolation = chosen.get();
      }
    }
    List<String> rules = List.of(CHECK, MIN_ROWS, MAX_NULL_FRACTION).stream()
        .filter(rule -> element.get(rule) != null).toList();
    if (rules.size() != 1) {
      v.reject(path, rules.isEmpty()
          ? "an expectation needs one rule: check (a condition on each row), min-rows or max-null-fraction"
          : "an expectation has one rule, got " + String.join(" and ", rules) + "; write one expectation for each");
      return Optional.empty();
    }
    if (element.get(COLUMN) != null && !rules.get(0).equals(MAX_NULL_FRACTION)) {
      v.reject(ProfileKeys.child(path, COLUMN), "goes only with max-null-fraction; a check names its columns itself");
      valid = false;
    }
    Optional<Expectation> expectation = Optional.empty();
    if (name.isPresent()) {
      String n = name.get();
      OnViolation action0 = onViolation;
      expectation = switch (rules.get(0)) {
        case CHECK -> v.field(ValueType.NON_BLANK, element.get(CHECK), ProfileKeys.child(path, CHECK))
            .map(check -> Expectation.check(n, check.strip(), action0));
        case MIN_ROWS -> v.field(ValueType.WHOLE_NUMBER, element.get(MIN_ROWS), ProfileKeys.child(path, MIN_ROWS))
            .filter(least -> {
              if (least < 1) {
                v.reject(ProfileKeys.child(path, MIN_ROWS), "must be at least 1, got " + least);
              }
              return least >= 1;
            })
            .map(least -> Expectation.minRows(n, least, action0));
        default -> {
          Optional<String> column = required(v, element, path, COLUMN, ValueType.NON_BLANK);
          Optional<Double> fraction = v.field(ValueType.FRACTION, element.get(MAX_NULL_FRACTION),
              ProfileKeys.child(path, MAX_NULL_FRACTION));
          yield column.isPresent() && fraction.isPresent()
              ? Optional.of(Expectation.maxNullFraction(n, column.get().strip(), fraction.get(), action0))
              : Optional.empty();
        }
      };
    }
    return valid ? expectation : Optional.empty();
  }

  private static <T> Optional<T> required(ProfileValues v, Map<String, Object> element, String path, String field,
      ValueType<T> type) {
    Object raw = element.get(field);
    if (raw == null) {
      v.reject(ProfileKeys.child(path, field), "required field is missing");
      return Optional.empty();
    }
    return v.field(type, raw, ProfileKeys.child(path, field));
  }

  /** The JSON Schema of one element, as the loader checks it. */
  static ObjectNode elementSchema(ObjectMapper json) {
    ObjectNode node = json.createObjectNode();
    node.put("type", "object");
    node.putArray("required").add(NAME);
    node.put("additionalProperties", false);
    ObjectNode properties = node.putObject("properties");
    properties.putObject(NAME).put("type", "string").put("pattern", "^" + Expectation.NAME.pattern() + "$")
        .put("description", "The expectation's name, unique in the profile.");
    properties.putObject(CHECK).put("type", "string").put("pattern", "\\S")
        .put("description", "A Spark SQL condition on each row, by the table's column names; met only when true.");
    properties.putObject(MIN_ROWS).put("type", "integer").put("minimum", 1)
        .put("description", "At least this many rows in each partition of the batch.");
    properties.putObject(COLUMN).put("type", "string").put("pattern", "\\S")
        .put("description", "The column of max-null-fraction.");
    properties.putObject(MAX_NULL_FRACTION).put("type", "number").put("minimum", 0).put("maximum", 1)
        .put("description", "At most this share of each partition's rows with the column NULL.");
    ObjectNode action = properties.putObject(ON_VIOLATION);
    action.put("description", "What a violation does. Default: fail.");
    ArrayNode codes = action.putArray("enum");
    Arrays.stream(OnViolation.values()).map(OnViolation::code).forEach(codes::add);
    ArrayNode oneOf = node.putArray("oneOf");
    for (String rule : List.of(CHECK, MIN_ROWS, MAX_NULL_FRACTION)) {
      oneOf.addObject().putArray("required").add(rule);
    }
    node.putObject("dependentRequired").putArray(MAX_NULL_FRACTION).add(COLUMN);
    return node;
  }

  private static <T> Key<T> key(String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc) {
    return KEYS.add(new Key<>(path, type, resolved, doc));
  }
}
