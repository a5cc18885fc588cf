package io.files2iceberg.batcher.changes;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JobLaunchers;
import io.files2iceberg.batcher.cli.JsonOption;
import io.files2iceberg.batcher.cli.LedgerAccess;
import io.files2iceberg.batcher.cli.TableOption;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.engine.launch.MainRuns;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.batcher.history.Since;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code changes}: the table's change feed ({@link ChangesRun}), read from the table's snapshots
 * where its jobs run, so that it answers after the ledger has pruned the batches.
 */
@Command(
    name = "changes",
    mixinStandardHelpOptions = true,
    description = {
      "Lists every change files2iceberg made to one table after a point, oldest first: batches' commits,",
      "rollbacks and dropped partitions. Each line: when, what, its batch (or change), the Iceberg snapshot, the",
      "partitions it changed and its rows inserted (+), updated (~) and deleted (-); a rollback names the batches",
      "it undid. Read from the table's snapshot log and snapshot summaries, where the table's jobs run (locally,",
      "as a Dataproc Serverless batch or as a driver pod on Kubernetes), so it answers after the ledger has",
      "pruned old batches. Snapshots files2iceberg did not write (maintenance, another writer's SQL) are",
      "left out and counted.",
      "--since-snapshot takes the last snapshot a reader saw: a downstream job keeps the currentSnapshotId of",
      "the last run and passes it to the next.",
      "Exit codes: 0 listed (also when nothing changed), 2 invalid usage, a table no profile loads, a table not",
      "created yet, or a snapshot unknown or expired, 1 failure."
    })
public final class ChangesCommand extends CliCommand {
  @Mixin ConfigOption.Required config;

  @Mixin TableOption.Required table;

  @ArgGroup(exclusive = true, multiplicity = "1")
  StartOption start;

  /** Where the feed starts: one of the two. */
  static final class StartOption {
    @Option(names = "--since-snapshot", paramLabel = "SNAPSHOT_ID", required = true,
        description = "The changes after this snapshot was last the table's current one: the snapshotId or"
            + " currentSnapshotId the last run printed.")
    Long sinceSnapshot;

    @Option(names = "--since", paramLabel = "WHEN", required = true, converter = Since.Converter.class,
        description = "The changes after a time: a duration back from now (90m, 12h, 1d, 7d) or an ISO-8601 instant"
            + " (2026-12-01T00:00:00Z).")
    Since since;
  }

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30m", converter = DurationConverter.class,
      description = "The longest the read may run before it is cancelled (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin JsonOption json;

  @Mixin HomeOption home;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = out();
    PrintWriter err = err();
    ChangesRun.Start from = start.sinceSnapshot != null ? ChangesRun.Start.afterSnapshot(start.sinceSnapshot)
        : ChangesRun.Start.afterTime(start.since.from(Clock.systemUTC()));
    String described = start.sinceSnapshot != null ? "snapshot " + start.sinceSnapshot : from.value();
    Home resolvedHome = home.resolve();
    LedgerAccess.Result opened = LedgerAccess.open(config.path(), true, resolvedHome, Clock.systemUTC(), err);
    if (opened instanceof LedgerAccess.Failed failed) {
      return failed.exitCode();
    }
    try (LedgerAccess.Opened access = ((LedgerAccess.Ok) opened).opened()) {
      Optional<TableProfile> profile = access.registry().byTable(table.table());
      if (profile.isEmpty()) {
        ErrorOutput.print(err, "no profile of " + config.path() + " loads table " + table.table());
        return ExitCode.INVALID;
      }
      Optional<Launchers> checked = JobLaunchers.open(List.of(profile.get()), access.registry().deployment(),
          resolvedHome, config.path(), err);
      if (checked.isEmpty()) {
        return ExitCode.INVALID;
      }
      try (Launchers launchers = checked.get()) {
        String runId = ChangesRun.newRunId(Instant.now());
        String resultUri = ChangesRun.resultUri(profile.get(), runId);
        ChangesResult result = ChangesRun.run(launchers.apply(profile.get()), new SparkMainRun(table.table(), runId,
            ChangesRun.MAIN_CLASS, ChangesRun.arguments(profile.get(), access.registry().deployment(), from,
            resultUri)), resultUri, access.registry().deployment().storage(), timeout, err);
        if (result.refused().isPresent()) {
          ErrorOutput.print(err, result.refused().get());
          return ExitCode.INVALID;
        }
        ChangeOperators.add(result, access.ledger().changes(table.table()));
        out.print(json.json() ? ChangesFormat.json(table.table(), described, result)
            : ChangesFormat.human(table.table(), described, result));
        out.flush();
        return 0;
      } catch (MainRuns.MainFailedException | LaunchException | LedgerUnavailableException e) {
        ErrorOutput.print(err, e.getMessage());
        return ExitCode.FAILED;
      }
    }
  }
}
