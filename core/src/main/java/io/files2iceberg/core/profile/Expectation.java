package io.files2iceberg.core.profile;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One element of {@code quality.expectations}: a named rule the batch's rows must meet, and what
 * happens when they do not.
 *
 * <p>A {@link Kind#CHECK} is a Spark SQL condition on each row, by the table's column names (after
 * renames and casts); a row meets it only when it is true (false and NULL are violations). The
 * aggregate kinds are evaluated per partition of the batch, over the rows it would load: {@link
 * Kind#MIN_ROWS} that there are at least {@code minRows}, {@link Kind#MAX_NULL_FRACTION} that no
 * more than that share of them have {@code column} NULL.
 *
 * @param name the expectation's name: letters, digits and {@code _}, unique in the profile; it names
 *     the expectation in errors, counts, the rejected rows and the snapshot summary
 * @param kind which rule it is
 * @param check the condition of a {@link Kind#CHECK}; empty otherwise
 * @param column the column of a {@link Kind#MAX_NULL_FRACTION}; empty otherwise
 * @param minRows the least rows of a {@link Kind#MIN_ROWS}; 0 otherwise
 * @param maxNullFraction the greatest share of a {@link Kind#MAX_NULL_FRACTION}; 0 otherwise
 * @param onViolation what a violation does: to the row (a check) or to the partition's rows
 */
public record Expectation(
    String name,
    Kind kind,
    Optional<String> check,
    Optional<String> column,
    long minRows,
    double maxNullFraction,
    OnViolation onViolation) {

  /** What an expectation's name may be: it becomes a snapshot summary key and a metric label. */
  static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  public Expectation {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(onViolation, "onViolation");
    if (kind == Kind.CHECK != check.isPresent() || kind == Kind.MAX_NULL_FRACTION != column.isPresent()) {
      throw new IllegalArgumentException("expectation " + name + " of kind " + kind.code()
          + " with check " + check + " and column " + column);
    }
  }

  /** A row-level expectation. */
  public static Expectation check(String name, String check, OnViolation onViolation) {
    return new Expectation(name, Kind.CHECK, Optional.of(check), Optional.empty(), 0, 0, onViolation);
  }

  /** At least {@code minRows} rows in each partition of the batch. */
  public static Expectation minRows(String name, long minRows, OnViolation onViolation) {
    return new Expectation(name, Kind.MIN_ROWS, Optional.empty(), Optional.empty(), minRows, 0, onViolation);
  }

  /** At most {@code fraction} of each partition's rows with {@code column} NULL. */
  public static Expectation maxNullFraction(String name, String column, double fraction, OnViolation onViolation) {
    return new Expectation(name, Kind.MAX_NULL_FRACTION, Optional.empty(), Optional.of(column), 0, fraction,
        onViolation);
  }

  /** Whether it is evaluated per row (else per partition). */
  public boolean isRowLevel() {
    return kind == Kind.CHECK;
  }

  /** The rule as a message shows it: {@code amount > 0}, {@code min-rows 1000}. */
  public String rule() {
    return switch (kind) {
      case CHECK -> check.orElseThrow();
      case MIN_ROWS -> "min-rows " + minRows;
      case MAX_NULL_FRACTION -> "max-null-fraction " + maxNullFraction + " of " + column.orElseThrow();
    };
  }

  /** The element as a profile writes it, every field set; what {@code validate} prints. */
  Map<String, Object> rendered() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put(QualityKeys.NAME, name);
    switch (kind) {
      case CHECK -> map.put(QualityKeys.CHECK, check.orElseThrow());
      case MIN_ROWS -> map.put(QualityKeys.MIN_ROWS, minRows);
      case MAX_NULL_FRACTION -> {
        map.put(QualityKeys.COLUMN, column.orElseThrow());
        map.put(QualityKeys.MAX_NULL_FRACTION, maxNullFraction);
      }
    }
    map.put(QualityKeys.ON_VIOLATION, onViolation.code());
    return map;
  }

  /** The kinds of rule. */
  public enum Kind {
    CHECK("check"),
    MIN_ROWS("min-rows"),
    MAX_NULL_FRACTION("max-null-fraction");

    private final String code;

    Kind(String code) {
      this.code = code;
    }

    /** The field that sets it. */
    public String code() {
      return code;
    }
  }

  /**
   * What a violation does. For a check, to the row; for an aggregate, to every row of the
   * partition. When a row violates several checks, the strongest action wins: fail, reject, drop,
   * warn.
   */
  public enum OnViolation {
    /** The batch fails, naming the expectation, and samples of the keys at fault. */
    FAIL("fail"),
    /** The rows go to {@code <table>__rejected} with the expectation's name; the batch loads the rest. */
    REJECT("reject"),
    /** The rows are not loaded, and are counted. */
    DROP("drop"),
    /** The rows load, and are counted. */
    WARN("warn");

    private final String code;

    OnViolation(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    /** Whether this action is stronger than (wins over) {@code other}. */
    public boolean isStrongerThan(OnViolation other) {
      return ordinal() < other.ordinal();
    }
  }
}
