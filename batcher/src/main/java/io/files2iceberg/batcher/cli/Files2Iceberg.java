package io.files2iceberg.batcher.cli;

import java.nio.file.Path;
import java.util.Optional;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code files2iceberg} command line: the entry point of {@code bin/files2iceberg}.
 *
 * <p>Exit codes: 0 success, 1 failure while running, 2 invalid configuration or usage.
 */
@Command(
    name = "files2iceberg",
    mixinStandardHelpOptions = true,
    versionProvider = Files2Iceberg.Version.class,
    description = "Lands files from Google Cloud Storage (or a local folder) in Apache Iceberg tables, exactly once.",
    footer = {
      "",
      "Also:",
      "  listen    Runs the listener service (GCS notifications into the ledger):",
      "            bin/files2iceberg listen --config DIR [--deployment FILE] [--home DIR] [--port N]",
      "            (see bin/files2iceberg listen --help)."
    },
    subcommands = {ValidateCommand.class, BatchCommand.class, StatusCommand.class, DemoCommand.class, LocalCommand.class,
      SqlCommand.class, ReplayCommand.class, BackfillCommand.class, ReconcileCommand.class, RetryCommand.class,
      InspectCommand.class, QuarantineCommand.class, MaintainCommand.class, CommandLine.HelpCommand.class})
public final class Files2Iceberg implements Runnable {

  /** Exit code for invalid configuration or usage. */
  public static final int EXIT_INVALID = 2;
  /** Exit code for a failure while running. */
  public static final int EXIT_FAILED = 1;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(
      names = "--deployment",
      paramLabel = "FILE",
      scope = CommandLine.ScopeType.INHERIT,
      description = "The deployment file (ledger, listener, job); default $FILES2ICEBERG_DEPLOYMENT, else"
          + " deployment.conf beside the profiles.")
  void deployment(Path file) {
    DeploymentFile.choose(Optional.ofNullable(file));
  }

  public static void main(String[] args) {
    System.exit(newCommandLine().execute(args));
  }

  /** The configured command line, for {@link #main} and tests. */
  public static CommandLine newCommandLine() {
    DeploymentFile.choose(Optional.empty());
    CommandLine commandLine = new CommandLine(new Files2Iceberg());
    commandLine.setExecutionExceptionHandler(
        (exception, cmd, parseResult) -> {
          cmd.getErr().println(cmd.getColorScheme().errorText("error: " + exception.getMessage()));
          return EXIT_FAILED;
        });
    return commandLine;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Files2Iceberg.class.getPackage().getImplementationVersion();
      return new String[] {"files2iceberg " + (version == null ? "development build" : version)};
    }
  }
}
