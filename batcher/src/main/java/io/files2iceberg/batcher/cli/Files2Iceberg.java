package io.files2iceberg.batcher.cli;

import io.files2iceberg.batcher.backfill.BackfillCommand;
import io.files2iceberg.batcher.batch.BatchCommand;
import io.files2iceberg.batcher.changes.ChangesCommand;
import io.files2iceberg.batcher.demo.DemoCommand;
import io.files2iceberg.batcher.history.HistoryCommand;
import io.files2iceberg.batcher.inspect.InspectCommand;
import io.files2iceberg.batcher.listen.ListenCommand;
import io.files2iceberg.batcher.local.LocalCommand;
import io.files2iceberg.batcher.maintain.MaintainCommand;
import io.files2iceberg.batcher.quarantine.QuarantineCommand;
import io.files2iceberg.batcher.reconcile.ReconcileCommand;
import io.files2iceberg.batcher.replay.ReplayCommand;
import io.files2iceberg.batcher.retry.RetryCommand;
import io.files2iceberg.batcher.sql.SqlCommand;
import io.files2iceberg.batcher.status.StatusCommand;
import io.files2iceberg.batcher.undo.DropPartitionCommand;
import io.files2iceberg.batcher.undo.ReleaseCommand;
import io.files2iceberg.batcher.undo.RollbackCommand;
import io.files2iceberg.batcher.validate.ValidateCommand;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code files2iceberg} command line: the entry point of {@code bin/files2iceberg}.
 *
 * <p>Exit codes: 0 success, 1 failure while running, 2 invalid configuration or usage; {@code
 * reconcile} and {@code status} add their own (docs/reference/exit-codes.md).
 */
@Command(
    name = "files2iceberg",
    mixinStandardHelpOptions = true,
    versionProvider = Files2Iceberg.Version.class,
    resourceBundle = "io.files2iceberg.batcher.cli.OptionText",
    description = "Lands files from Google Cloud Storage (or a local folder) in Apache Iceberg tables, exactly once.",
    subcommands = {ValidateCommand.class, BatchCommand.class, StatusCommand.class, DemoCommand.class, LocalCommand.class,
      ListenCommand.class, SqlCommand.class, ReplayCommand.class, BackfillCommand.class, ReconcileCommand.class, RetryCommand.class,
      InspectCommand.class, HistoryCommand.class, ChangesCommand.class, QuarantineCommand.class, MaintainCommand.class,
      RollbackCommand.class, DropPartitionCommand.class, ReleaseCommand.class, CommandLine.HelpCommand.class})
public final class Files2Iceberg implements Runnable {

  /** The build's version ({@code version=...}), filtered by Maven from src/main/resources-filtered. */
  static final String VERSION_RESOURCE = "version.properties";


  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(
      names = "--deployment",
      paramLabel = "FILE",
      scope = CommandLine.ScopeType.INHERIT,
      description = "The deployment file (ledger, listener, job, storage); default $FILES2ICEBERG_DEPLOYMENT, else"
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
    withVersion(commandLine, new Version());
    HelpText.paragraphs(commandLine);
    commandLine.setParameterExceptionHandler(ErrorOutput::usageError);
    commandLine.setExecutionExceptionHandler(ErrorOutput::failure);
    return commandLine;
  }

  @Override
  public void run() {
    throw ErrorOutput.missingCommand(spec);
  }

  /** Every command's {@code -V}/{@code --version} prints the top level's version. */
  private static void withVersion(CommandLine commandLine, CommandLine.IVersionProvider version) {
    for (CommandLine sub : commandLine.getSubcommands().values()) {
      sub.getCommandSpec().versionProvider(version);
      withVersion(sub, version);
    }
  }

  /** The build's version: {@value #VERSION_RESOURCE}, written by the Maven build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"files2iceberg " + version()};
    }

    static String version() {
      Properties properties = new Properties();
      try (InputStream in = Files2Iceberg.class.getResourceAsStream(VERSION_RESOURCE)) {
        if (in != null) {
          properties.load(in);
        }
      } catch (IOException e) {
        // a build without the file: as below
      }
      String version = properties.getProperty("version", "");
      return version.isBlank() || version.startsWith("${") ? "development build" : version;
    }
  }
}
