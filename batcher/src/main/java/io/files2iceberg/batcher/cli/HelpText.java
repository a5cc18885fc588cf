package io.files2iceberg.batcher.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * The commands' descriptions as picocli should print them. In the source each description is
 * written as short lines; picocli prints every element on a line of its own and wraps it again at
 * the help's width, so a sentence would break wherever the source wrapped it, and a parent's
 * command list, which shows the first element only, would cut the summary mid-sentence. Lines that
 * end mid-sentence are joined into paragraphs, which picocli wraps whole; the first sentence is an
 * element of its own, the summary the command list shows. Indented lines (examples) and blank lines
 * stay as they are.
 */
final class HelpText {
  /** A sentence's end: a full stop, then space, then a capital. */
  private static final Pattern SENTENCE_END = Pattern.compile("[.]\\s+(?=[A-Z])");

  private HelpText() {}

  /** Rewrites every command's description under {@code root}, {@code root}'s included. */
  static void paragraphs(CommandLine root) {
    CommandLine.Model.UsageMessageSpec usage = root.getCommandSpec().usageMessage();
    usage.description(paragraphs(usage.description()));
    for (CommandLine sub : root.getSubcommands().values()) {
      paragraphs(sub);
    }
  }

  /** The source's lines as paragraphs, the first sentence apart. */
  static String[] paragraphs(String[] lines) {
    List<String> paragraphs = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : lines) {
      if (line.isBlank() || Character.isWhitespace(line.charAt(0))) {
        flush(current, paragraphs);
        paragraphs.add(line);
        continue;
      }
      if (!current.isEmpty()) {
        current.append(' ');
      }
      current.append(line.strip());
      if (endsSentence(line)) {
        flush(current, paragraphs);
      }
    }
    flush(current, paragraphs);
    if (!paragraphs.isEmpty()) {
      Matcher end = SENTENCE_END.matcher(paragraphs.get(0));
      if (end.find()) {
        String first = paragraphs.get(0);
        paragraphs.set(0, first.substring(0, end.start() + 1));
        paragraphs.add(1, first.substring(end.end()));
      }
    }
    return paragraphs.toArray(String[]::new);
  }

  private static boolean endsSentence(String line) {
    String stripped = line.strip();
    return stripped.endsWith(".") || stripped.endsWith(":");
  }

  private static void flush(StringBuilder current, List<String> paragraphs) {
    if (!current.isEmpty()) {
      paragraphs.add(current.toString());
      current.setLength(0);
    }
  }
}
