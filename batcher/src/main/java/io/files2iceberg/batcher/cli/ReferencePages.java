package io.files2iceberg.batcher.cli;

import io.files2iceberg.batcher.reconcile.ReconcileCommand;
import io.files2iceberg.core.manifest.JobExit;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * The reference pages generated from the command line: docs/reference/cli.md (every command's
 * usage help, as {@code --help} prints it) and docs/reference/exit-codes.md (the codes the commands
 * and the Spark job exit with). Tests compare both with the committed files.
 */
final class ReferencePages {

  static final String CLI_PAGE = "docs/reference/cli.md";
  static final String EXIT_CODES_PAGE = "docs/reference/exit-codes.md";
  static final String REGENERATE =
      "mvn -o -B -pl batcher -am test -Dtest=ReferencePagesTest -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dfiles2iceberg.docs.regenerate=true";

  /** The width the usage help is laid out in, whatever the terminal. */
  private static final int WIDTH = 100;

  private ReferencePages() {}

  /** Every command and subcommand's usage help, in the order {@code --help} lists them. */
  static String cli() {
    StringBuilder page = new StringBuilder();
    header(page, "Command line");
    page.append("`bin/files2iceberg` runs these commands; each prints the same with `--help`. Every command\n")
        .append("takes `--home DIR` (the embedded home: `--home`, else `$FILES2ICEBERG_HOME`, else\n")
        .append("`.files2iceberg/` in the working directory) and `--deployment FILE`, and `-V` prints the build's\n")
        .append("version. What the commands do, with examples: [Getting started](../getting-started.md),\n")
        .append("[The batcher](../batcher.md), [The listener](../listener.md) and [Operate](../operate.md); what\n")
        .append("they exit with: [Exit codes](exit-codes.md).\n");
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

  /** The exit codes of the commands and of the Spark job. */
  static String exitCodes() {
    StringBuilder page = new StringBuilder();
    header(page, "Exit codes");
    page.append("## `bin/files2iceberg`\n\n")
        .append("| code | meaning |\n|---|---|\n")
        .append("| `0` | done: nothing failed (`reconcile`: no drift, or drift fixed) |\n")
        .append(row(Files2Iceberg.EXIT_FAILED, "failed while running: the message on stderr names the table,"
            + " partition, batch or file at fault (`batch run-once`: a batch failed; `local --until-idle`: a"
            + " partition ran out of attempts)"))
        .append(row(Files2Iceberg.EXIT_INVALID, "invalid configuration or usage: every problem is listed, each"
            + " with the file, the key path or the option and the reason; nothing was changed"))
        .append(row(ReconcileCommand.EXIT_DRIFT, "`reconcile` found drift and was not asked to `--fix` it,"
            + " so a scheduled run can alert"))
        .append("| `130` | `demo` interrupted (Ctrl-C): it stopped the listener; the next run finishes the work |\n")
        .append("\n## The Spark job\n\n")
        .append("What a run of the job exits with, and what the batcher does with it (see\n")
        .append("[The batcher](../batcher.md#planning)); the job also writes it to its result file beside the\n")
        .append("manifest. A code the job does not use (a crash, a kill) counts as `1`.\n\n")
        .append("| code | exit | retryable | meaning |\n|---|---|---|---|\n");
    for (JobExit exit : JobExit.values()) {
      page.append("| `").append(exit.code()).append("` | `").append(exit.name()).append("` | ")
          .append(exit.isRetryable() ? "yes" : "no").append(" | ").append(meaning(exit)).append(" |\n");
    }
    return page.toString();
  }

  private static String meaning(JobExit exit) {
    return switch (exit) {
      case LOADED -> "loaded, or already committed (the table's snapshots hold the batch id); stdout's only"
          + " line is the metrics line";
      case FAILED -> "the batch failed and nothing was committed (Spark, the catalog or the storage failed);"
          + " running it again may succeed";
      case INVALID_MANIFEST -> "the manifest cannot be read, is invalid, or does not match the ledger's batch";
      case CHECKPOINT_FAILED -> "the rows are committed to Iceberg but the ledger checkpoint failed; running"
          + " the same manifest again finalizes the ledger from the snapshot summary";
      case REJECTED -> "the batch cannot be loaded as it is (an unreadable file without"
          + " `quarantine-bad-files`, a bad record with `on-bad-record = fail`, a schema change the table"
          + " cannot take); nothing was committed, and running it again fails the same way until the input"
          + " or the profile is fixed";
    };
  }

  private static String row(int code, String meaning) {
    return "| `" + code + "` | " + meaning + " |\n";
  }

  private static void header(StringBuilder page, String title) {
    page.append("<!-- Generated from the code by ReferencePagesTest; do not edit. Regenerate with\n     ")
        .append(REGENERATE).append(" -->\n# ").append(title).append("\n\n");
  }
}
