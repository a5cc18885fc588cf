package io.files2iceberg.batcher.sql;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JsonOption;
import io.files2iceberg.batcher.cli.LedgerAccess;
import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.core.profile.Home;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sql}: Spark SQL against the pipeline's Iceberg catalogs, in a Spark child JVM ({@value
 * SparkMain#SQL}) started as the local launcher starts the job. When a statement names the
 * catalog {@code files2iceberg}, the ledger is opened as {@code status} opens it ({@link
 * LedgerAccess}) and its records handed over as files ({@link LedgerTableFiles}), deleted once
 * the child has ended.
 */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = {
      "Runs Spark SQL statements against the Iceberg catalogs and prints each result as a table.",
      "The embedded catalog 'local' (under the home) is always there and is the default catalog;",
      "--config adds the catalogs of those profiles. Iceberg's SQL extensions are on, so time",
      "travel and metadata tables work:",
      "  SELECT * FROM local.demo.clicks VERSION AS OF 1234567890",
      "  SELECT * FROM local.demo.clicks.snapshots",
      "The ledger's records are the read-only tables files2iceberg.files, files2iceberg.partitions",
      "and files2iceberg.batches (the ledger of --config's deployment, else the home's), read when",
      "a statement names them:",
      "  SELECT * FROM files2iceberg.files WHERE table = 'local.demo.clicks' AND state = 'QUARANTINED'",
      "Exit 0 when every statement ran, 1 when one failed (the error names it), 2 for bad arguments."
    })
public final class SqlCommand extends CliCommand {

  @Parameters(arity = "1..*", paramLabel = "STATEMENT", description = "Spark SQL statements, run in order.")
  List<String> statements;

  @Mixin ConfigOption config;

  @Mixin JsonOption json;

  @Option(
      names = "--max-rows",
      paramLabel = "N",
      defaultValue = "1000",
      description = "The most rows printed per statement, 0 for all (default: ${DEFAULT-VALUE}).")
  int maxRows;

  @Mixin HomeOption home;

  @Override
  public Integer call() throws Exception {
    if (config.path() != null && !Files.exists(config.path())) {
      ErrorOutput.print(err(), "--config " + config.path() + ": no such file or folder");
      return ExitCode.INVALID;
    }
    if (maxRows < 0) {
      ErrorOutput.print(err(), "--max-rows must be 0 or more, was " + maxRows);
      return ExitCode.INVALID;
    }
    Home resolved = home.resolve();
    Path ledgerTables = null;
    if (LedgerTableFiles.areNamedIn(statements)) {
      LedgerAccess.Result access = LedgerAccess.open(config.path(), false, resolved, Clock.systemUTC(),
          err());
      if (access instanceof LedgerAccess.Failed failed) {
        return failed.exitCode();
      }
      ledgerTables = Files.createTempDirectory("files2iceberg-ledger-tables-");
      try (LedgerAccess.Opened opened = ((LedgerAccess.Ok) access).opened()) {
        LedgerTableFiles.write(opened.ledger(), ledgerTables);
      } catch (IOException | RuntimeException e) {
        LedgerTableFiles.delete(ledgerTables);
        throw e;
      }
    }
    try {
      return run(resolved, ledgerTables);
    } finally {
      if (ledgerTables != null) {
        LedgerTableFiles.delete(ledgerTables);
      }
    }
  }

  private int run(Home resolved, Path ledgerTables) throws InterruptedException {
    List<String> args = new ArrayList<>(List.of("--home", resolved.root().toString()));
    if (config.path() != null) {
      args.add("--config");
      args.add(config.path().toAbsolutePath().toString());
    }
    if (ledgerTables != null) {
      args.add("--ledger-tables");
      args.add(ledgerTables.toString());
    }
    if (json.json()) {
      args.add("--json");
    }
    if (statements.size() > 1) {
      args.add("--echo");
    }
    args.add("--max-rows");
    args.add(Integer.toString(maxRows));
    args.add("--");
    args.addAll(statements);
    out().flush();
    return SparkMain.locate(System.getenv(), resolved.root()).runInheritingOutput(SparkMain.SQL, args);
  }
}
