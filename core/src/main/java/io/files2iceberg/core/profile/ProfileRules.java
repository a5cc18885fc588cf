package io.files2iceberg.core.profile;

import io.files2iceberg.core.match.Glob;
import io.files2iceberg.core.profile.ProfileValues.Rule;
import io.files2iceberg.core.storage.GcsUri;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The checks on single values; each returns the reason a value is wrong, or empty. */
final class ProfileRules {

  private static final String NAME = "[A-Za-z0-9_]+";
  /** {@code catalog.namespace.table}, as the loader and the JSON Schema check it. */
  static final String TABLE_NAME = NAME + "\\." + NAME + "\\." + NAME;
  private static final Pattern TABLE = Pattern.compile(TABLE_NAME);
  private static final String COLUMN = "[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*";
  private static final Pattern PARTITION_COLUMN = Pattern.compile(COLUMN);
  private static final Pattern COLUMN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern PARTITION_TRANSFORM =
      Pattern.compile(
          "(?:identity|years|months|days|hours)\\(\\s*" + COLUMN + "\\s*\\)",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern IDENTITY =
      Pattern.compile("identity\\(\\s*(" + COLUMN + ")\\s*\\)", Pattern.CASE_INSENSITIVE);
  private static final Pattern PARTITION_WIDTH_TRANSFORM =
      Pattern.compile(
          "(bucket|truncate)\\(\\s*([0-9]+)\\s*,\\s*" + COLUMN + "\\s*\\)",
          Pattern.CASE_INSENSITIVE);

  /** A day that is not also a month, so that a format mixing up day and month does not pass. */
  private static final LocalDate SAMPLE_DATE = LocalDate.of(2024, 1, 31);

  private ProfileRules() {}

  /**
   * {@code gs://bucket/glob} or {@code file:///absolute/glob}, whose glob {@link Glob} can compile
   * (balanced, flat braces; closed, non-empty classes; no trailing escape).
   */
  static Optional<String> globUri(String path) {
    String got = ", got " + ValueType.quote(path);
    if (GcsUri.is(path)) {
      String bucket;
      try {
        bucket = GcsUri.parse(path).bucket();
      } catch (IllegalArgumentException e) {
        return Optional.of("must name a bucket, as in gs://my-bucket/raw/*.parquet" + got);
      }
      if (bucket.chars().anyMatch(c -> c == '*' || c == '?' || c == '{' || c == '[' || c == '\\')) {
        return Optional.of("the bucket must not contain wildcards" + got);
      }
    } else if (path.startsWith("file://")) {
      if (!path.startsWith("file:///")) {
        return Optional.of(
            "a file:// path must be absolute, as in file:///data/landing/*.parquet" + got);
      }
    } else {
      return Optional.of("must start with gs:// or file://" + got);
    }
    return glob(path);
  }

  /** The glob as {@link Glob} compiles it: a pattern it cannot honour is refused here, never taken literally. */
  private static Optional<String> glob(String path) {
    return Rule.parses(Glob::parse).apply(path);
  }

  /** {@code catalog.namespace.table}. */
  static Optional<String> tableName(String table) {
    return matching(TABLE, "catalog.namespace.table, three names of letters, digits and _", table);
  }

  /** A top-level column name: a letter or {@code _}, then letters, digits and {@code _}. */
  static Optional<String> columnName(String name) {
    return matching(COLUMN_NAME, "a column name of letters, digits and _, not starting with a digit", name);
  }
  /** A value the whole of which {@code pattern} matches; the problem says what was {@code expected}. */
  private static Optional<String> matching(Pattern pattern, String expected, String value) {
    return pattern.matcher(value).matches()
        ? Optional.empty()
        : Optional.of("expected " + expected + ", got " + ValueType.quote(value));
  }


  /** Whether a partition spec entry is {@code column} itself or {@code identity(column)}. */
  static boolean isIdentityOf(String field, String column) {
    String trimmed = field.trim();
    if (trimmed.equals(column)) {
      return true;
    }
    Matcher identity = IDENTITY.matcher(trimmed);
    return identity.matches() && identity.group(1).equals(column);
  }

  /** A column (identity) or one of Iceberg's partition transforms. */
  static Optional<String> partitionField(String field) {
    String trimmed = field.trim();
    if (PARTITION_COLUMN.matcher(trimmed).matches()
        || PARTITION_TRANSFORM.matcher(trimmed).matches()) {
      return Optional.empty();
    }
    Matcher width = PARTITION_WIDTH_TRANSFORM.matcher(trimmed);
    if (width.matches()) {
      return isPositive(width.group(2))
          ? Optional.empty()
          : Optional.of(
              "the N of "
                  + width.group(1).toLowerCase(Locale.ROOT)
                  + "(N, col) must be at least 1, got "
                  + ValueType.quote(field));
    }
    return Optional.of(
        "expected a column or an Iceberg transform: col, identity(col), years(col), "
            + "months(col), days(col), hours(col), bucket(N, col) or truncate(N, col); got "
            + ValueType.quote(field));
  }

  private static boolean isPositive(String digits) {
    return digits.length() > 9 || Integer.parseInt(digits) >= 1;
  }

  /** A Java regex with exactly one capture group (named groups count). */
  static Optional<String> oneCaptureGroup(String regex) {
    int groups;
    try {
      groups = Pattern.compile(regex).matcher("").groupCount();
    } catch (PatternSyntaxException e) {
      return Optional.of(
          "is not a valid regular expression: "
              + e.getDescription()
              + " near index "
              + e.getIndex()
              + " of "
              + ValueType.quote(regex));
    }
    return groups == 1
        ? Optional.empty()
        : Optional.of("must have exactly one capture group, has " + groups);
  }

  /**
   * A {@link DateTimeFormatter} pattern that formats a date and parses it back to the same date,
   * both as written and in the strict form the matcher parses partitions with.
   */
  static Optional<String> dateFormat(String pattern) {
    String quoted = ValueType.quote(pattern);
    List<DateTimeFormatter> formatters;
    try {
      formatters =
          List.of(
              DateTimeFormatter.ofPattern(pattern), BatchFile.strictDateFormat(pattern));
    } catch (IllegalArgumentException e) {
      return Optional.of("is not a valid date format: " + e.getMessage());
    }
    for (DateTimeFormatter formatter : formatters) {
      String text;
      try {
        text = formatter.format(SAMPLE_DATE);
      } catch (DateTimeException e) {
        return Optional.of("date format " + quoted + " cannot format a date: " + e.getMessage());
      }
      Optional<LocalDate> back = parse(text, formatter);
      if (!back.equals(Optional.of(SAMPLE_DATE))) {
        return Optional.of(
            "date format "
                + quoted
                + " does not round-trip a date: "
                + SAMPLE_DATE
                + " formats as "
                + ValueType.quote(text)
                + ", which "
                + back.map(date -> "parses back as " + date)
                    .orElse("does not parse back to a date"));
      }
    }
    return Optional.empty();
  }

  private static Optional<LocalDate> parse(String text, DateTimeFormatter formatter) {
    try {
      return Optional.of(LocalDate.parse(text, formatter));
    } catch (DateTimeException e) {
      return Optional.empty();
    }
  }

  /** An HTTP path. */
  static Optional<String> httpPath(String path) {
    return path.startsWith("/")
        ? Optional.empty()
        : Optional.of("must start with /, got " + ValueType.quote(path));
  }
}
