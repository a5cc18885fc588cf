package io.files2iceberg.core.profile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code extract.schema-hints}, Spark's DDL of columns ({@code "amount DECIMAL(12,2), ts
 * TIMESTAMP"}) as Auto Loader's {@code cloudFiles.schemaHints} spells it.
 *
 * <p>Core has no Spark, so this is the structural check: a comma-separated list of a column name
 * (letters, digits and {@code _}, or in backticks) and a type whose first word is a Spark SQL type
 * name, with balanced brackets; decimal precision and scale are checked here too. The job parses
 * each type with Spark's own parser ({@code DataType.fromDDL}) before it reads a file, and fails
 * the batch naming the key if Spark refuses one.
 */
final class SchemaHints {

  static final String EXAMPLE = "\"amount DECIMAL(12,2), ts TIMESTAMP\"";

  /** The type names Spark's DDL parser knows, lower case. */
  private static final Set<String> TYPE_NAMES = Set.of(
      "string", "varchar", "char", "character", "boolean", "tinyint", "byte", "smallint", "short", "int", "integer",
      "bigint", "long", "float", "real", "double", "date", "timestamp", "timestamp_ntz", "timestamp_ltz", "decimal",
      "dec", "numeric", "binary", "array", "map", "struct", "interval");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern TYPE_WORD = Pattern.compile("([A-Za-z_]+)\\s*(.*)", Pattern.DOTALL);
  private static final Pattern DECIMAL_ARGS = Pattern.compile("\\(\\s*([0-9]+)\\s*(?:,\\s*([0-9]+)\\s*)?\\)\\s*");

  private SchemaHints() {}

  /**
   * The hints, column name to type as written, in the order given.
   *
   * @throws IllegalArgumentException saying which hint is wrong and how
   */
  static Map<String, String> parse(String text) {
    Map<String, String> hints = new LinkedHashMap<>();
    List<String> entries = splitTopLevel(text);
    for (String entry : entries) {
      String hint = entry.strip();
      if (hint.isEmpty()) {
        throw new IllegalArgumentException("has an empty hint; expected \"column TYPE\" entries separated by commas,"
            + " such as " + EXAMPLE + ", got " + ValueType.quote(text));
      }
      String name;
      String rest;
      if (hint.startsWith("`")) {
        int close = hint.indexOf('`', 1);
        if (close < 0) {
          throw new IllegalArgumentException("hint " + ValueType.quote(hint) + ": the backtick before the column name"
              + " is not closed");
        }
        name = hint.substring(1, close);
        rest = hint.substring(close + 1);
      } else {
        Matcher word = Pattern.compile("([^\\s]+)(.*)", Pattern.DOTALL).matcher(hint);
        word.matches();
        name = word.group(1);
        rest = word.group(2);
        if (!NAME.matcher(name).matches()) {
          throw new IllegalArgumentException("hint " + ValueType.quote(hint) + ": " + ValueType.quote(name)
              + " is not a column name (letters, digits and _, not starting with a digit; put other names in"
              + " backticks); a hint names a top-level column, then its type, as in " + EXAMPLE);
        }
      }
      String type = rest.strip();
      if (type.isEmpty()) {
        throw new IllegalArgumentException("hint " + ValueType.quote(hint) + " has no type; expected \"column TYPE\","
            + " as in " + EXAMPLE);
      }
      checkType(hint, type);
      if (hints.put(name, type) != null) {
        throw new IllegalArgumentException("names column " + ValueType.quote(name) + " twice");
      }
    }
    return hints;
  }

  /** The hints as the key spells them: {@code amount DECIMAL(12,2), ts TIMESTAMP}. */
  static String render(Map<String, String> hints) {
    return hints.entrySet().stream()
        .map(hint -> (NAME.matcher(hint.getKey()).matches() ? hint.getKey() : "`" + hint.getKey() + "`") + " "
            + hint.getValue())
        .collect(Collectors.joining(", "));
  }

  private static void checkType(String hint, String type) {
    Matcher word = TYPE_WORD.matcher(type);
    if (!word.matches() || !TYPE_NAMES.contains(word.group(1).toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException("hint " + ValueType.quote(hint) + ": " + ValueType.quote(type)
          + " is not a Spark SQL type (such as STRING, INT, BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP,"
          + " DECIMAL(12,2), ARRAY<STRING>)");
    }
    String name = word.group(1).toLowerCase(Locale.ROOT);
    String args = word.group(2);
    if (Set.of("decimal", "dec", "numeric").contains(name) && !args.isBlank()) {
      Matcher decimal = DECIMAL_ARGS.matcher(args);
      if (!decimal.lookingAt()) {
        throw new IllegalArgumentException("hint " + ValueType.quote(hint) + ": a decimal's precision and scale are"
            + " DECIMAL(p) or DECIMAL(p,s), got " + ValueType.quote(type));
      }
      int precision = Integer.parseInt(decimal.group(1));
      int scale = decimal.group(2) == null ? 0 : Integer.parseInt(decimal.group(2));
      if (precision < 1 || precision > 38 || scale > precision) {
        throw new IllegalArgumentException("hint " + ValueType.quote(hint) + ": a decimal's precision is 1 to 38 and"
            + " its scale at most its precision, got " + ValueType.quote(type));
      }
    }
    int depth = 0;
    for (char c : type.toCharArray()) {
      if (c == '(' || c == '<') {
        depth++;
      } else if (c == ')' || c == '>') {
        depth--;
      }
      if (depth < 0) {
        break;
      }
    }
    if (depth != 0) {
      throw new IllegalArgumentException("hint " + ValueType.quote(hint) + ": the brackets of "
          + ValueType.quote(type) + " do not balance");
    }
  }

  /** The entries between commas that are outside brackets and backticks. */
  private static List<String> splitTopLevel(String text) {
    List<String> entries = new java.util.ArrayList<>();
    int depth = 0;
    boolean quoted = false;
    StringBuilder entry = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c == '`') {
        quoted = !quoted;
      } else if (!quoted && (c == '(' || c == '<')) {
        depth++;
      } else if (!quoted && (c == ')' || c == '>')) {
        depth--;
      } else if (!quoted && depth == 0 && c == ',') {
        entries.add(entry.toString());
        entry.setLength(0);
        continue;
      }
      entry.append(c);
    }
    entries.add(entry.toString());
    return entries;
  }
}
