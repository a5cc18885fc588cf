package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code --help} reads as sentences: each command's summary in its parent's command list is a
 * whole sentence, and no description line stops mid-sentence where the source wrapped it.
 */
class HelpTextTest {

  @Test
  void everyCommandsSummaryInTheCommandListIsAWholeSentence() {
    for (CommandLine parent : commandsWithSubcommands(Files2Iceberg.newCommandLine())) {
      String help = parent.getUsageMessage(CommandLine.Help.Ansi.OFF);
      String list = help.substring(help.indexOf("Commands:"));
      for (CommandLine sub : parent.getSubcommands().values()) {
        if (sub.getCommandName().equals("help")) {
          continue;
        }
        String summary = sub.getCommandSpec().usageMessage().description()[0];
        assertThat(summary).as(sub.getCommandSpec().qualifiedName() + "'s summary").endsWith(".");
        assertThat(list.replaceAll("\\s+", " ")).as(parent.getCommandSpec().qualifiedName() + " --help")
            .contains(" " + sub.getCommandName() + " " + summary.replaceAll("\\s+", " "));
      }
    }
  }

  @Test
  void noDescriptionLineEndsMidSentenceWhereTheSourceWrappedIt() {
    for (CommandLine command : all(Files2Iceberg.newCommandLine())) {
      if (command.getCommandName().equals("help")) {
        continue; // picocli's own
      }
      for (String paragraph : command.getCommandSpec().usageMessage().description()) {
        if (paragraph.isBlank() || Character.isWhitespace(paragraph.charAt(0))) {
          continue;
        }
        assertThat(paragraph.strip()).as(command.getCommandSpec().qualifiedName() + ": \"" + paragraph + "\"")
            .matches("(?s).*[.:)]$");
      }
    }
  }

  @Test
  void theUsageHelpIsWrappedAtItsWidthOnly() {
    StringWriter out = new StringWriter();
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.execute("local", "--help");

    // The first lines of the description: each is filled up to the width before the next begins.
    List<String> lines = out.toString().lines().toList();
    int start = lines.indexOf(lines.stream().filter(l -> l.startsWith("Runs the embedded")).findFirst().orElseThrow());
    for (int i = start; i < start + 3; i++) {
      String next = lines.get(i + 1);
      if (next.isBlank() || next.startsWith(" ")) {
        break;
      }
      String firstWord = next.split(" ")[0];
      assertThat(lines.get(i).length() + 1 + firstWord.length()).as("line %d of local --help: %s", i, lines.get(i))
          .isGreaterThan(commandLine.getUsageHelpWidth());
    }
  }

  private static List<CommandLine> all(CommandLine root) {
    List<CommandLine> all = new ArrayList<>();
    all.add(root);
    for (CommandLine sub : root.getSubcommands().values()) {
      all.addAll(all(sub));
    }
    return all;
  }

  private static List<CommandLine> commandsWithSubcommands(CommandLine root) {
    return all(root).stream().filter(c -> !c.getSubcommands().isEmpty()).toList();
  }
}
