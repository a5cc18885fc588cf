package io.files2iceberg.core.match;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A {@link Glob} as parts: literals, wildcards, classes and (not nested) alternations, and the
 * regexes built from them.
 */
sealed interface GlobPart permits GlobPart.Literal, GlobPart.Wildcard, GlobPart.CharClass, GlobPart.Alternation {

  /** Bounds the brace expansion that {@link Glob#matchesFolder} is built from. */
  int MAX_ALTERNATIVES = 1024;

  record Literal(String text) implements GlobPart {}

  /**
   * {@code [...]} or, {@code negated}, {@code [!...]}: one character (never {@code /}) of the
   * ranges, or of none of them. A single character is a range from itself to itself.
   */
  record CharClass(boolean negated, List<int[]> ranges) implements GlobPart {

    String regex() {
      StringBuilder regex = new StringBuilder(negated ? "[^/" : "[");
      for (int[] range : ranges) {
        regex.append(String.format("\\x{%x}", range[0]));
        if (range[1] != range[0]) {
          regex.append('-').append(String.format("\\x{%x}", range[1]));
        }
      }
      return regex.append(']').toString();
    }

    boolean contains(int c) {
      return ranges.stream().anyMatch(range -> range[0] <= c && c <= range[1]);
    }

    /** A character the class matches, for {@link Glob#overlaps}. */
    String sample() {
      if (!negated) {
        return Character.toString(ranges.get(0)[0]);
      }
      for (int c : "xyzXYZ0123456789_-=.".codePoints().toArray()) {
        if (!contains(c)) {
          return Character.toString(c);
        }
      }
      return Character.toString(
          IntStream.rangeClosed('a', 0xffff)
              .filter(c -> c != '/' && !contains(c))
              .findFirst()
              .orElse('x'));
    }
  }

  enum Wildcard implements GlobPart {
    /** {@code *} */
    ANY_CHARS("[^/]*", "x"),
    /** {@code ?} */
    ONE_CHAR("[^/]", "x"),
    /** {@code **} not followed by {@code /}, or not at a segment's start */
    ANY_PATH(".*", "x/x"),
    /** {@code **}{@code /} at a segment's start: zero or more whole folders */
    ANY_FOLDERS("(?:.*/)?", "x/");

    final String regex;
    /** What {@link Glob#overlaps} puts in the wildcard's place. */
    final String sample;

    Wildcard(String regex, String sample) {
      this.regex = regex;
      this.sample = sample;
    }
  }

  /** Alternatives hold literals and wildcards only. */
  record Alternation(List<List<GlobPart>> alternatives) implements GlobPart {}

  static String regex(List<GlobPart> parts) {
    StringBuilder regex = new StringBuilder();
    for (GlobPart part : parts) {
      if (part instanceof Literal literal) {
        regex.append(Pattern.quote(literal.text()));
      } else if (part instanceof Wildcard wildcard) {
        regex.append(wildcard.regex);
      } else if (part instanceof CharClass charClass) {
        regex.append(charClass.regex());
      } else if (part instanceof Alternation alternation) {
        regex.append(
            alternation.alternatives().stream()
                .map(GlobPart::regex)
                .collect(Collectors.joining("|", "(?:", ")")));
      }
    }
    return regex.toString();
  }

  /**
   * The regex over {@code folder + "/"} (or {@code ""} for the root) that {@link #matchesFolder}
   * uses. Each brace-free alternative is split after its last {@code /} into a folder part and a
   * last segment. The last segment has no {@code /} of its own, so a folder matches exactly when it
   * matches the folder part, unless the last segment holds {@code **}: then a deeper folder matches
   * when it continues with the last segment's start up to that {@code **}.
   */
  static String folderRegex(String path, List<GlobPart> parts) {
    Set<String> alternatives = new LinkedHashSet<>();
    for (List<GlobPart> alternative : expand(path, parts)) {
      int split = -1;
      for (int i = alternative.size() - 1; i >= 0 && split < 0; i--) {
        GlobPart part = alternative.get(i);
        if (part == Wildcard.ANY_FOLDERS
            || (part instanceof Literal literal && literal.text().indexOf('/') >= 0)) {
          split = i;
        }
      }
      List<GlobPart> folderPart = new ArrayList<>();
      List<GlobPart> lastSegment = new ArrayList<>();
      if (split >= 0) {
        folderPart.addAll(alternative.subList(0, split));
        GlobPart at = alternative.get(split);
        if (at instanceof Literal literal) {
          int slash = literal.text().lastIndexOf('/');
          folderPart.add(new Literal(literal.text().substring(0, slash + 1)));
          if (slash + 1 < literal.text().length()) {
            lastSegment.add(new Literal(literal.text().substring(slash + 1)));
          }
        } else {
          folderPart.add(at);
        }
      }
      lastSegment.addAll(alternative.subList(split + 1, alternative.size()));
      int anyPath = lastSegment.indexOf(Wildcard.ANY_PATH);
      String regex = regex(folderPart);
      if (anyPath >= 0) {
        regex += "(?:" + regex(lastSegment.subList(0, anyPath)) + ".*)?";
      }
      alternatives.add(regex);
    }
    return alternatives.stream().collect(Collectors.joining(")|(?:", "(?:", ")"));
  }

  /** The brace-free globs whose union this glob is. */
  static List<List<GlobPart>> expand(String path, List<GlobPart> parts) {
    List<List<GlobPart>> expanded = new ArrayList<>();
    expanded.add(new ArrayList<>());
    for (GlobPart part : parts) {
      if (part instanceof Alternation alternation) {
        if ((long) expanded.size() * alternation.alternatives().size() > MAX_ALTERNATIVES) {
          throw new IllegalArgumentException(
              "glob \"" + path + "\": its braces expand to more than " + MAX_ALTERNATIVES
                  + " alternatives");
        }
        List<List<GlobPart>> next = new ArrayList<>();
        for (List<GlobPart> prefix : expanded) {
          for (List<GlobPart> alternative : alternation.alternatives()) {
            List<GlobPart> combined = new ArrayList<>(prefix);
            combined.addAll(alternative);
            next.add(combined);
          }
        }
        expanded = next;
      } else {
        expanded.forEach(prefix -> prefix.add(part));
      }
    }
    return expanded;
  }
}
