package io.files2iceberg.batcher.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** docs/reference/cli.md: every command's usage help, as {@code --help} prints it. */
final class CommandLineReference {

  /** The width the usage help is laid out in, whatever the terminal. */
  private static final int WIDTH = 100;

  private CommandLineReference() {}

  /** Every command and subcommand's usage help, in the order {@code --help} lists them. */
  static String page() {
    StringBuilder page = ReferencePages.begin("Command line").append("`bin/files2iceberg` runs these commands; each prints the same with `--help`. Every command\n")
        .append("takes `--home DIR` (the embedded home: `--home`, else `$FILES2ICEBERG_HOME`, else\n")
        .append("`.files2iceberg/` in the working directory) and `--deployment FILE`, and `-V` prints the build's\n")
        .append("version. What the commands do, with examples: [Getting started](../getting-started.md),\n")
        .append("[The batcher](../batcher.md), [The listener](../listener.md) and [Operate](../operate.md); what\n")
        .append("they exit with: [Exit codes](exit-codes.md). `--json` prints JSON lines, the same shape on every\n")
        .append("command: [JSON output](json-output.md).\n");
    CommandLine top = Files2Iceberg.newCommandLine();
    List<CommandLine> commands = new ArrayList<>();
    collect(top, commands);
    for (CommandLine command : commands) {
      command.setUsageHelpWidth(WIDTH);
      page.append("\n## `").append(command.getCommandSpec().qualifiedName()).append("`\n\n```\n")
          .append(command.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing())
          .append("\n```\n");
    }
    return page.toString();
  }

  private static void collect(CommandLine command, List<CommandLine> into) {
    if (command.getCommandSpec().userObject() instanceof CommandLine.HelpCommand) {
      return;
    }
    into.add(command);
    for (CommandLine sub : command.getSubcommands().values()) {
      if (!into.contains(sub)) {
        collect(sub, into);
      }
    }
  }

}
