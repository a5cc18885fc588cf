package io.files2iceberg.core.profile;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The partition column's name when {@code extract.batch-file.partition-column} is not set: the
 * pattern's named group ({@code (?<day>...)} gives {@code day}); else the identifier of a {@code
 * name=} written just before the group ({@code .+/dt=(\d{4}-\d{2}-\d{2})/.+} gives {@code dt});
 * else {@value #FALLBACK}.
 */
final class DefaultPartitionColumn {

  static final String FALLBACK = "partition";

  private static final Pattern NAME_BEFORE_GROUP = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=$");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private DefaultPartitionColumn() {}

  /** The default for a pattern that has passed {@link ProfileRules#oneCaptureGroup}, if any. */
  static String of(Optional<String> pattern) {
    return pattern.flatMap(DefaultPartitionColumn::fromPattern).orElse(FALLBACK);
  }

  private static Optional<String> fromPattern(String regex) {
    OptionalInt start = captureGroupStart(regex);
    if (start.isEmpty()) {
      return Optional.empty();
    }
    int open = start.getAsInt();
    if (regex.startsWith("(?<", open)) {
      return Optional.of(regex.substring(open + 3, regex.indexOf('>', open)));
    }
    String before = regex.substring(0, open);
    Matcher name = NAME_BEFORE_GROUP.matcher(before);
    if (!name.find()) {
      return Optional.empty();
    }
    String identifier = name.group(1);
    if (isEscaped(before, name.start(1)) && Character.isLetter(identifier.charAt(0))) {
      // In "\bdt=(" the b belongs to the escape \b: the name is dt.
      identifier = identifier.substring(1);
    }
    return NAME.matcher(identifier).matches() ? Optional.of(identifier) : Optional.empty();
  }

  /** Whether the character at {@code index} follows an odd number of backslashes. */
  private static boolean isEscaped(String text, int index) {
    int backslashes = 0;
    for (int i = index - 1; i >= 0 && text.charAt(i) == '\\'; i--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }

  /**
   * The index of the first capture group's opening parenthesis. Escaped characters, {@code
   * \Q...\E} quotes and character classes hold no group; {@code (?:}, {@code (?=}, {@code (?<=},
   * flags and the like are not capture groups, {@code (?<name>} is. Comments of the {@code (?x)}
   * flag are not recognised: a parenthesis in one would be taken for the group.
   */
  private static OptionalInt captureGroupStart(String regex) {
    int classDepth = 0;
    for (int i = 0; i < regex.length(); i++) {
      char c = regex.charAt(i);
      if (c == '\\') {
        if (regex.startsWith("Q", i + 1)) {
          int end = regex.indexOf("\\E", i + 2);
          if (end < 0) {
            return OptionalInt.empty();
          }
          i = end + 1;
        } else {
          i++;
        }
      } else if (c == '[') {
        classDepth++;
        // A ] right after [ or [^ is a literal ], not the end of the class.
        int next = regex.startsWith("^", i + 1) ? i + 2 : i + 1;
        if (regex.startsWith("]", next)) {
          i = next;
        }
      } else if (c == ']' && classDepth > 0) {
        classDepth--;
      } else if (c == '(' && classDepth == 0 && isCaptureGroup(regex, i)) {
        return OptionalInt.of(i);
      }
    }
    return OptionalInt.empty();
  }

  private static boolean isCaptureGroup(String regex, int open) {
    if (!regex.startsWith("?", open + 1)) {
      return true;
    }
    return regex.startsWith("?<", open + 1)
        && open + 3 < regex.length()
        && Character.isLetter(regex.charAt(open + 3));
  }
}
