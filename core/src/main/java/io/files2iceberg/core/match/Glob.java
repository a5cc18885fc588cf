package io.files2iceberg.core.match;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A profile's {@code extract.path}: a bucket plus a glob over object names, compiled once.
 *
 * <p>The path is {@code gs://bucket/glob} or {@code file:///absolute/glob}; the bucket (for
 * {@code file}, the empty bucket of {@link ObjectLocation}) is literal and the glob applies to the
 * object name. Supported in the name:
 *
 * <ul>
 *   <li>{@code *}: any characters except {@code /}
 *   <li>{@code ?}: one character except {@code /}
 *   <li>{@code **}: any characters including {@code /}; at the start of a segment and followed by
 *       {@code /} it also matches zero folders, so {@code raw/**}{@code /x.parquet} matches
 *       {@code raw/x.parquet}
 *   <li>{@code [abc]}, {@code [a-z0-9]}: one character of the class; {@code [!abc]}: one character
 *       not in it. A class never matches {@code /}, and must not name it; {@code -} first or last is
 *       literal, {@code \} escapes a member ({@code [\]]} holds {@code ]})
 *   <li>{@code {a,b,c}}: one of the alternatives, which may hold wildcards and classes but not
 *       braces
 *   <li>{@code \}: the next character is literal, so {@code \[}, {@code \{}, {@code \*}, {@code
 *       \?}, {@code \\} (and inside braces {@code \,}, {@code \}}) match themselves
 * </ul>
 *
 * Every other character is literal, including regex metacharacters, a {@code ]} or {@code }}
 * without its opening bracket and a {@code ,} outside braces. A pattern this matcher cannot honour
 * (an unclosed {@code [} or {@code {}, an empty class, a reversed range, a class naming {@code /},
 * nested braces, a {@code \} that escapes nothing) is refused, never taken literally.
 *
 * <p>Before classes and escapes were supported, {@code [} and {@code \} were literal; {@link
 * #changedMeanings()} names the ones a glob holds, so that {@code validate} can warn.
 */
public final class Glob {

  /** Bounds the brace expansion that {@link #matchesFolder} is built from. */
  private static final int MAX_ALTERNATIVES = 1024;

  private final String path;
  private final String scheme;
  private final String bucket;
  private final String nameGlob;
  private final Pattern pattern;
  private final Pattern folderPattern;
  private final String fixedPrefix;
  private final List<String> changedMeanings;

  private Glob(String path, String scheme, String bucket, String nameGlob) {
    this.path = path;
    this.scheme = scheme;
    this.bucket = bucket;
    this.nameGlob = nameGlob;
    List<Part> parts = new Parser(path, nameGlob).parse();
    this.pattern = Pattern.compile(regex(parts), Pattern.DOTALL);
    this.folderPattern = Pattern.compile(folderRegex(path, parts), Pattern.DOTALL);
    this.fixedPrefix =
        !parts.isEmpty() && parts.get(0) instanceof Literal literal ? literal.text() : "";
    this.changedMeanings = changedMeanings(nameGlob);
  }

  /**
   * Compiles {@code gs://bucket/glob} or {@code file:///absolute/glob}.
   *
   * @throws IllegalArgumentException naming the path: not a gs:// or file:// URI, a wildcard in the
   *     bucket, a pattern the matcher cannot honour (nested or unclosed braces, an unclosed, empty or
   *     reversed class, a class naming {@code /}, a trailing {@code \})
   */
  public static Glob parse(String path) {
    ObjectLocation root;
    try {
      root = ObjectLocation.parse(path);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("glob \"" + path + "\": " + e.getMessage(), e);
    }
    if (root.bucket().chars().anyMatch(c -> c == '*' || c == '?' || c == '{' || c == '[' || c == '\\')) {
      throw new IllegalArgumentException(
          "glob \"" + path + "\": the bucket \"" + root.bucket() + "\" must not contain wildcards");
    }
    return new Glob(path, root.scheme(), root.bucket(), root.name());
  }

  /**
   * {@code literal} as glob text that matches exactly it: every character the glob gives a
   * meaning ({@code * ? [ ] { } , \}) is escaped with {@code \}. For a folder written into a
   * profile's {@code extract.path}, whose name may hold them.
   */
  public static String escape(String literal) {
    StringBuilder escaped = new StringBuilder(literal.length());
    for (int i = 0; i < literal.length(); i++) {
      char c = literal.charAt(i);
      if ("*?[]{},\\".indexOf(c) >= 0) {
        escaped.append('\\');
      }
      escaped.append(c);
    }
    return escaped.toString();
  }

  /** {@value ObjectLocation#GS} or {@value ObjectLocation#FILE}. */
  public String scheme() {
    return scheme;
  }

  /** The literal bucket; empty for {@code file}. */
  public String bucket() {
    return bucket;
  }

  /** The glob over object names, as written after the bucket. */
  public String nameGlob() {
    return nameGlob;
  }

  /** The compiled name glob; it must match the whole name. */
  public Pattern pattern() {
    return pattern;
  }

  /**
   * The literal start of the name glob, up to its first wildcard, class or brace, with its escapes
   * resolved ({@code raw/a\[1]/*} gives {@code raw/a[1]/}): every matching name starts with it, so
   * it is the prefix to list.
   */
  public String fixedPrefix() {
    return fixedPrefix;
  }

  /**
   * Whether some name that starts with {@code prefix} (say a landing folder's name with its
   * trailing {@code /}) could match: the prefix matches, or a match runs out of input before it
   * fails.
   */
  public boolean canMatchBelow(String prefix) {
    // hitEnd: the engine read the whole prefix on some path without failing first, so a longer
    // input could still match. A literal compares character by character and a class or a
    // wildcard fails on its own character, so a prefix that leaves the glob never hits the end.
    Matcher matcher = pattern.matcher(prefix);
    return matcher.matches() || matcher.hitEnd();
  }

  /**
   * What this glob holds that matched literally before classes and escapes were supported: each
   * entry names the text, its meaning now and how to write the old meaning. Empty for most globs.
   */
  public List<String> changedMeanings() {
    return changedMeanings;
  }

  private static List<String> changedMeanings(String glob) {
    List<String> changed = new ArrayList<>();
    int open = -1;
    for (int i = 0; i < glob.length() && open < 0; i++) {
      if (glob.charAt(i) == '\\') {
        i++;
      } else if (glob.charAt(i) == '[') {
        open = i;
      }
    }
    if (open >= 0) {
      int close = glob.indexOf(']', open + 1);
      String klass = close < 0 ? glob.substring(open) : glob.substring(open, close + 1);
      changed.add("\"" + klass + "\" is now a character class (one character of those listed),"
          + " no longer the literal text; write \\" + klass + " for a literal '['");
    }
    if (glob.indexOf('\\') >= 0) {
      changed.add("'\\' now escapes the character after it, no longer a literal backslash;"
          + " write \\\\ for one");
    }
    return List.copyOf(changed);
  }

  /** Whether the object name matches, whatever the bucket. */
  public boolean matches(String name) {
    return pattern.matcher(name).matches();
  }

  /** Whether the object is in this glob's bucket and its name matches. */
  public boolean matches(ObjectLocation object) {
    return isInBucket(object) && matches(object.name());
  }

  /**
   * Whether some object directly inside {@code folder} (a name with or without a trailing
   * {@code /}; empty for the bucket's root) could match. Used to place success markers, which do
   * not match a data glob themselves: {@code raw/clicks/dt=2024-01-01} matches the folder part of
   * {@code raw/clicks/dt=*}{@code /*.parquet}. When the glob's last segment holds {@code **}, folders
   * below the folder part match as well, as far as the last segment's start before {@code **}
   * allows.
   */
  public boolean matchesFolder(String folder) {
    String trimmed = folder.endsWith("/") ? folder.substring(0, folder.length() - 1) : folder;
    return folderPattern.matcher(trimmed.isEmpty() ? "" : trimmed + "/").matches();
  }

  /**
   * Whether this glob and {@code other} can claim the same object: same scheme and bucket, fixed
   * prefixes that are prefixes of one another, and a sample name of one alternative (each wildcard
   * replaced by a plain name) matching the other glob. It finds the overlaps that come from copying
   * a profile and widening or narrowing its glob; it does not prove two globs disjoint.
   */
  public boolean overlaps(Glob other) {
    if (!scheme.equals(other.scheme) || !bucket.equals(other.bucket)) {
      return false;
    }
    if (!fixedPrefix.startsWith(other.fixedPrefix) && !other.fixedPrefix.startsWith(fixedPrefix)) {
      return false;
    }
    return samples().stream().anyMatch(other::matches)
        || other.samples().stream().anyMatch(this::matches);
  }

  /**
   * Whether a folder can hold objects of both globs (say {@code raw/*.csv} and {@code raw/*.json}),
   * so that one success marker there would complete a partition of each. Found the way {@link
   * #overlaps} finds overlaps: by sample names.
   */
  public boolean sharesFolders(Glob other) {
    if (!scheme.equals(other.scheme) || !bucket.equals(other.bucket)) {
      return false;
    }
    if (!fixedPrefixFolder().startsWith(other.fixedPrefixFolder())
        && !other.fixedPrefixFolder().startsWith(fixedPrefixFolder())) {
      return false;
    }
    return samples().stream().anyMatch(sample -> other.matchesFolder(folderOf(sample)))
        || other.samples().stream().anyMatch(sample -> matchesFolder(folderOf(sample)));
  }

  private static String folderOf(String name) {
    return name.substring(0, name.lastIndexOf('/') + 1);
  }

  /** One concrete object name per brace-free alternative, each wildcard filled with a plain name. */
  private List<String> samples() {
    List<String> samples = new ArrayList<>();
    for (List<Part> alternative : expand(path, new Parser(path, nameGlob).parse())) {
      StringBuilder sample = new StringBuilder();
      for (Part part : alternative) {
        // Expanded alternatives hold only literals and wildcards.
        sample.append(
            part instanceof Literal literal
                ? literal.text()
                : part instanceof CharClass charClass ? charClass.sample() : ((Wildcard) part).sample);
      }
      samples.add(sample.toString());
    }
    return samples;
  }

  /** Whether the object is in this glob's bucket, whatever its name. */
  boolean isInBucket(ObjectLocation object) {
    return object.isInBucketOf(scheme, bucket);
  }

  /** The folder of {@link #fixedPrefix()}: its part up to and including the last {@code /}. */
  String fixedPrefixFolder() {
    return fixedPrefix.substring(0, fixedPrefix.lastIndexOf('/') + 1);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Glob glob && glob.path.equals(path);
  }

  @Override
  public int hashCode() {
    return path.hashCode();
  }

  /** The path as written in the profile. */
  @Override
  public String toString() {
    return path;
  }

  // ---------------------------------------------------------------------------------------------
  // The glob as parts: literals, wildcards, classes and (not nested) alternations.

  private sealed interface Part permits Literal, Wildcard, CharClass, Alternation {}

  private record Literal(String text) implements Part {}

  /**
   * {@code [...]} or, {@code negated}, {@code [!...]}: one character (never {@code /}) of the
   * ranges, or of none of them. A single character is a range from itself to itself.
   */
  private record CharClass(boolean negated, List<int[]> ranges) implements Part {

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

    /** A character the class matches, for {@link #overlaps}. */
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

  private enum Wildcard implements Part {
    /** {@code *} */
    ANY_CHARS("[^/]*", "x"),
    /** {@code ?} */
    ONE_CHAR("[^/]", "x"),
    /** {@code **} not followed by {@code /}, or not at a segment's start */
    ANY_PATH(".*", "x/x"),
    /** {@code **}{@code /} at a segment's start: zero or more whole folders */
    ANY_FOLDERS("(?:.*/)?", "x/");

    private final String regex;
    /** What {@link #overlaps} puts in the wildcard's place. */
    private final String sample;

    Wildcard(String regex, String sample) {
      this.regex = regex;
      this.sample = sample;
    }
  }

  /** Alternatives hold literals and wildcards only. */
  private record Alternation(List<List<Part>> alternatives) implements Part {}

  private static final class Parser {
    private final String path;
    private final String glob;
    private int pos;

    Parser(String path, String glob) {
      this.path = path;
      this.glob = glob;
    }

    List<Part> parse() {
      return sequence(false, true);
    }

    /**
     * Parses up to the end, or inside braces up to the next {@code ,} or {@code }}. {@code
     * segmentStart}: the text before is empty or ends with {@code /}.
     */
    private List<Part> sequence(boolean inBraces, boolean segmentStart) {
      List<Part> parts = new ArrayList<>();
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
            List<List<Part>> alternatives = new ArrayList<>();
            boolean allEndAtSegmentStart = true;
            while (true) {
              List<Part> alternative = sequence(true, atSegmentStart);
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

    private static boolean endsAtSegmentStart(List<Part> parts, boolean startedAtSegmentStart) {
      if (parts.isEmpty()) {
        return startedAtSegmentStart;
      }
      Part last = parts.get(parts.size() - 1);
      return last == Wildcard.ANY_FOLDERS
          || (last instanceof Literal literal && literal.text().endsWith("/"));
    }

    private static void flush(StringBuilder literal, List<Part> parts) {
      if (literal.length() > 0) {
        parts.add(new Literal(literal.toString()));
        literal.setLength(0);
      }
    }
  }

  private static String regex(List<Part> parts) {
    StringBuilder regex = new StringBuilder();
    for (Part part : parts) {
      if (part instanceof Literal literal) {
        regex.append(Pattern.quote(literal.text()));
      } else if (part instanceof Wildcard wildcard) {
        regex.append(wildcard.regex);
      } else if (part instanceof CharClass charClass) {
        regex.append(charClass.regex());
      } else if (part instanceof Alternation alternation) {
        regex.append(
            alternation.alternatives().stream()
                .map(Glob::regex)
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
  private static String folderRegex(String path, List<Part> parts) {
    Set<String> alternatives = new LinkedHashSet<>();
    for (List<Part> alternative : expand(path, parts)) {
      int split = -1;
      for (int i = alternative.size() - 1; i >= 0 && split < 0; i--) {
        Part part = alternative.get(i);
        if (part == Wildcard.ANY_FOLDERS
            || (part instanceof Literal literal && literal.text().indexOf('/') >= 0)) {
          split = i;
        }
      }
      List<Part> folderPart = new ArrayList<>();
      List<Part> lastSegment = new ArrayList<>();
      if (split >= 0) {
        folderPart.addAll(alternative.subList(0, split));
        Part at = alternative.get(split);
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
  private static List<List<Part>> expand(String path, List<Part> parts) {
    List<List<Part>> expanded = new ArrayList<>();
    expanded.add(new ArrayList<>());
    for (Part part : parts) {
      if (part instanceof Alternation alternation) {
        if ((long) expanded.size() * alternation.alternatives().size() > MAX_ALTERNATIVES) {
          throw new IllegalArgumentException(
              "glob \"" + path + "\": its braces expand to more than " + MAX_ALTERNATIVES
                  + " alternatives");
        }
        List<List<Part>> next = new ArrayList<>();
        for (List<Part> prefix : expanded) {
          for (List<Part> alternative : alternation.alternatives()) {
            List<Part> combined = new ArrayList<>(prefix);
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
