package io.files2iceberg.core.match;

import io.files2iceberg.core.match.GlobPart.CharClass;
import io.files2iceberg.core.match.GlobPart.Literal;
import io.files2iceberg.core.match.GlobPart.Wildcard;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    List<GlobPart> parts = new GlobParser(path, nameGlob).parse();
    this.pattern = Pattern.compile(GlobPart.regex(parts), Pattern.DOTALL);
    this.folderPattern = Pattern.compile(GlobPart.folderRegex(path, parts), Pattern.DOTALL);
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
    for (List<GlobPart> alternative : GlobPart.expand(path, new GlobParser(path, nameGlob).parse())) {
      StringBuilder sample = new StringBuilder();
      for (GlobPart part : alternative) {
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
}
