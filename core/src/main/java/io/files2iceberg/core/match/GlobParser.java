package io.files2iceberg.core.match;

import io.files2iceberg.core.match.GlobPart.Alternation;
import io.files2iceberg.core.match.GlobPart.CharClass;
import io.files2iceberg.core.match.GlobPart.Literal;
import io.files2iceberg.core.match.GlobPart.Wildcard;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses a {@link Glob}'s name glob into {@link GlobPart}s, refusing what the matcher cannot honour
 * with an error that names the path.
 */
final class GlobParser {
  private final String path;
  private final String glob;
  private int pos;

  GlobParser(String path, String glob) {
    this.path = path;
    this.glob = glob;
  }

  List<GlobPart> parse() {
    return sequence(false, true);
  }

  /**
   * Parses up to the end, or inside braces up to the next {@code ,} or {@code }}. {@code
   * segmentStart}: the text before is empty or ends with {@code /}.
   */
  private List<GlobPart> sequence(boolean inBraces, boolean segmentStart) {
    List<GlobPart> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    boolean atSegmentStart = segmentStart;
    while (pos < glob.length()) {
      char c = glob.charAt(pos);
      if (inBraces && (c == ',' || c == '}')) {
        break;
      }
      if (c == '*' || c == '?' || c == '{' || c == '[') {
        flush(literal, parts);
      }
      switch (c) {
        case '\\' -> {
          if (pos + 1 >= glob.length()) {
            throw new IllegalArgumentException(
                "glob \"" + path + "\": a trailing '\\' escapes nothing; write \\\\ for a"
                    + " literal backslash");
          }
          char escaped = glob.charAt(pos + 1);
          pos += 2;
          literal.append(escaped);
          atSegmentStart = escaped == '/';
        }
        case '[' -> {
          parts.add(charClass());
          atSegmentStart = false;
        }
        case '*' -> {
          if (pos + 1 < glob.length() && glob.charAt(pos + 1) == '*') {
            pos += 2;
            if (atSegmentStart && pos < glob.length() && glob.charAt(pos) == '/') {
              pos++;
              parts.add(Wildcard.ANY_FOLDERS);
              atSegmentStart = true;
            } else {
              parts.add(Wildcard.ANY_PATH);
              atSegmentStart = false;
            }
          } else {
            pos++;
            parts.add(Wildcard.ANY_CHARS);
            atSegmentStart = false;
          }
        }
        case '?' -> {
          pos++;
          parts.add(Wildcard.ONE_CHAR);
          atSegmentStart = false;
        }
        case '{' -> {
          if (inBraces) {
            throw new IllegalArgumentException(
                "glob \"" + path + "\": nested braces are not supported (at \""
                    + glob.substring(pos) + "\")");
          }
          int open = pos++;
          List<List<GlobPart>> alternatives = new ArrayList<>();
          boolean allEndAtSegmentStart = true;
          while (true) {
            List<GlobPart> alternative = sequence(true, atSegmentStart);
            alternatives.add(alternative);
            allEndAtSegmentStart &= endsAtSegmentStart(alternative, atSegmentStart);
            if (pos >= glob.length()) {
              throw new IllegalArgumentException(
                  "glob \"" + path + "\": unclosed '{' at \"" + glob.substring(open) + "\"");
            }
            if (glob.charAt(pos++) == '}') {
              break;
            }
          }
          parts.add(new Alternation(List.copyOf(alternatives)));
          atSegmentStart = allEndAtSegmentStart;
        }
        default -> {
          pos++;
          literal.append(c);
          atSegmentStart = c == '/';
        }
      }
    }
    flush(literal, parts);
    return parts;
  }

  /** Parses {@code [...]} from its {@code [} at {@code pos}, up to and past its {@code ]}. */
  private CharClass charClass() {
    int open = pos++;
    boolean negated = pos < glob.length() && glob.charAt(pos) == '!';
    if (negated) {
      pos++;
    }
    List<int[]> ranges = new ArrayList<>();
    while (true) {
      if (pos >= glob.length()) {
        throw new IllegalArgumentException(
            "glob \"" + path + "\": unclosed '[' at \"" + glob.substring(open)
                + "\"; write \\[ for a literal '['");
      }
      char c = glob.charAt(pos);
      if (c == ']') {
        pos++;
        break;
      }
      int from = member();
      int to = from;
      if (pos + 1 < glob.length() && glob.charAt(pos) == '-' && glob.charAt(pos + 1) != ']') {
        pos++;
        to = member();
        if (to < from) {
          throw new IllegalArgumentException(
              "glob \"" + path + "\": the range '" + Character.toString(from) + "-"
                  + Character.toString(to) + "' in \"" + glob.substring(open, pos)
                  + "\" is reversed");
        }
      }
      if (from <= '/' && '/' <= to) {
        throw new IllegalArgumentException(
            "glob \"" + path + "\": the class at \"" + glob.substring(open)
                + "\" names '/', which a class never matches");
      }
      ranges.add(new int[] {from, to});
    }
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException(
          "glob \"" + path + "\": the class \"" + glob.substring(open, pos)
              + "\" is empty; write \\[ for a literal '[' and \\] inside a class for ']'");
    }
    return new CharClass(negated, List.copyOf(ranges));
  }

  /** One member of a class at {@code pos}, {@code \\} escaping it. */
  private int member() {
    if (glob.charAt(pos) == '\\') {
      if (pos + 1 >= glob.length()) {
        throw new IllegalArgumentException(
            "glob \"" + path + "\": a trailing '\\' escapes nothing; write \\\\ for a"
                + " literal backslash");
      }
      pos++;
    }
    int c = glob.codePointAt(pos);
    pos += Character.charCount(c);
    return c;
  }

  private static boolean endsAtSegmentStart(List<GlobPart> parts, boolean startedAtSegmentStart) {
    if (parts.isEmpty()) {
      return startedAtSegmentStart;
    }
    GlobPart last = parts.get(parts.size() - 1);
    return last == Wildcard.ANY_FOLDERS
        || (last instanceof Literal literal && literal.text().endsWith("/"));
  }

  private static void flush(StringBuilder literal, List<GlobPart> parts) {
    if (literal.length() > 0) {
      parts.add(new Literal(literal.toString()));
      literal.setLength(0);
    }
  }
}
