package io.files2iceberg.batcher.batch;

import io.files2iceberg.batcher.events.ChangePublisher;
import io.files2iceberg.batcher.cli.BatcherOptions;
import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.CommandGroup;
import io.files2iceberg.batcher.cli.ConfigProblems;
import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JobLaunchers;
import io.files2iceberg.batcher.cli.JsonEventsOption;
import io.files2iceberg.batcher.cli.OperatorTable;
import io.files2iceberg.batcher.cli.StopSignals;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.metrics.BatcherMetrics;
import io.files2iceberg.batcher.metrics.MetricsEndpoint;
import io.files2iceberg.batcher.output.EventJson;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchRunner;
import io.files2iceberg.batcher.engine.RunOptions;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code batch}: runs the planner, once or as a service. */
@Command(
    name = "batch",
    mixinStandardHelpOptions = true,
    description = {
      "Loads READY partitions into their Iceberg tables: claims them into batches, runs the Spark job on each,",
      "recovers batches whose batcher died. One batch at a time per table, tables in parallel."
    },
    subcommands = {BatchCommand.RunOnce.class, BatchCommand.Serve.class})
public final class BatchCommand extends CommandGroup {

  /**
   * The planner and what it holds open, built from the options; empty after printing every
   * configuration problem.
   */
  record Planner(ProfileRegistry profiles, Ledger ledger, Launchers launchers, BatchRunner runner,
      ChangePublisher changes) implements AutoCloseable {

    /** With each event printed on {@code out} as a line for people. */
    static Optional<Planner> open(BatcherOptions settings, RunOptions options, Home home, PrintWriter out,
        PrintWriter err) {
      return open(settings, options, home, event -> {
        synchronized (out) {
          out.println(event.describe());
          out.flush();
        }
      }, err);
    }

    static Optional<Planner> open(BatcherOptions settings, RunOptions options, Home home, Consumer<BatchEvent> events,
        PrintWriter err) {
      if (settings.concurrency() < 1) {
        ConfigProblems.print(err, "the options", List.of("--concurrency: must be at least 1, got "
            + settings.concurrency()));
        return Optional.empty();
      }
      Optional<ProfileRegistry> loaded = ConfigProblems.load(settings.config(), home, err);
      if (loaded.isEmpty()) {
        return Optional.empty();
      }
      ProfileRegistry profiles = loaded.get();
      Optional<Launchers> checked =
          JobLaunchers.open(profiles.profiles(), profiles.deployment(), home, settings.config(), err);
      if (checked.isEmpty()) {
        return Optional.empty();
      }
      Launchers launchers = checked.get();
      Ledger ledger;
      try {
        ledger = Ledgers.open(profiles.deployment().ledger(), Clock.systemUTC());
      } catch (IllegalStateException | IllegalArgumentException e) {
        launchers.close();
        ConfigProblems.print(err, settings.config().toString(), List.of("ledger: " + e.getMessage()));
        return Optional.empty();
      }
      ChangePublisher changes = ChangePublisher.of(profiles.deployment(), home, ledger);
      BatchRunner runner = BatchRunner.builder(profiles, ledger, launchers)
          .options(options)
          .events(events)
          .changes(changes)
          .build();
      return Optional.of(new Planner(profiles, ledger, launchers, runner, changes));
    }

    @Override
    public void close() {
      launchers.close();
      changes.close();
      ledger.close();
    }
  }

  /** A subcommand of {@code batch}: the batcher's options and the home it runs in. */
  abstract static class Subcommand extends CliCommand {
    @Mixin BatcherOptions settings;
    @Mixin HomeOption home;
    @CommandLine.ParentCommand BatchCommand batch;

    /** Its own {@code --home}, else {@code batch}'s, else the default. */
    Home home() {
      return batch.home(home);
    }
  }

  @Command(
      name = "run-once",
      mixinStandardHelpOptions = true,
      description = {
        "Recovers expired batches, then loads every READY partition of every table and exits: the trigger for",
        "Cloud Scheduler or a Cloud Run job. A table that lists storage (ingestion-type = full, save-checkpoint =",
        "false) runs only when named with --table. Without --wait it returns once the batches' jobs are launched;",
        "with it, once every batch it claimed is settled. Exits 0 when nothing failed (also when there was nothing",
        "to do), 1 when a batch failed, 2 on configuration errors (all of them listed)."
      })
  static final class RunOnce extends Subcommand {
    @Option(
        names = "--table",
        paramLabel = "TABLE",
        description = "Only this table (catalog.namespace.table), whatever its mode; repeatable. The way to run a"
            + " table that lists storage.")
    List<String> tables = new ArrayList<>();

    @Option(
        names = "--wait",
        description = "Wait for every batch this run claims to be settled (committed, failed or rejected) before"
            + " exiting, as a scheduler's task that reports the outcome needs. Without it, the run returns once the"
            + " jobs are launched: a job settles the batch it commits, and a later run settles one it does not once"
            + " its lease (job.lease-timeout) expires. A table that lists storage is always waited for.")
    boolean waitForJobs;

    @Mixin JsonEventsOption json;

    @Override
    public Integer call() {
      PrintWriter out = out();
      PrintWriter err = err();
      RunOptions options = settings.runOptions().waitingForJobs(waitForJobs);
      Optional<Planner> opened = json.json()
          ? Planner.open(settings, options, home(), event -> EventJson.print(out, EventJson.batch(event)), err)
          : Planner.open(settings, options, home(), out, err);
      if (opened.isEmpty()) {
        return ExitCode.INVALID;
      }
      try (Planner planner = opened.get()) {
        List<String> unknown = tables.stream().filter(t -> planner.profiles().byTable(t).isEmpty()).toList();
        if (!unknown.isEmpty()) {
          ErrorOutput.print(err, "--table " + String.join(", ", unknown) + ": no profile in " + settings.config()
              + " loads it");
          return ExitCode.INVALID;
        }
        RunSummary summary = tables.isEmpty() ? planner.runner().runOnce() : planner.runner().runOnce(tables);
        return OperatorTable.summarize(summary, json.json(), out, err);
      }
    }
  }

  @Command(
      name = "serve",
      mixinStandardHelpOptions = true,
      description = {
        "Runs the planner in a loop, one run every --interval, for a container. SIGTERM (or Ctrl-C) lets the",
        "current run finish, then exits 0. Exits 2 at start on configuration errors (all of them listed)."
      })
  static final class Serve extends Subcommand {
    private static final Logger LOG = LoggerFactory.getLogger(Serve.class);

    @Option(
        names = "--interval",
        paramLabel = "DURATION",
        defaultValue = "60s",
        converter = DurationConverter.class,
        description = "Time from the end of one run to the start of the next (30s, 5m). Default: ${DEFAULT-VALUE}.")
    Duration interval;

    @Option(
        names = "--metrics-port",
        paramLabel = "PORT",
        defaultValue = "${env:PORT:-9464}",
        description = "Port of the HTTP endpoints /prometheus (the batcher's metrics) and /health (0: any free port, -1: none)."
            + " Default: $PORT (Cloud Run's), else 9464.")
    int metricsPort;

    @Option(
        names = "--metrics-address",
        paramLabel = "HOST",
        description = "Address /prometheus and /health listen on. Default: 0.0.0.0 (every interface) where $PORT is"
            + " set, as on Cloud Run; else 127.0.0.1 (this machine only).")
    String metricsAddress;

    private final CountDownLatch stop = new CountDownLatch(1);
    /** Whether the last run ended in an exception (the ledger unreachable, say) rather than a summary. */
    private volatile boolean lastRunFailed;

    /**
     * The address the endpoint binds: {@code --metrics-address} when given; else every interface where
     * {@code PORT} is set (Cloud Run sends its probes and requests to the container's port from outside
     * the loopback), else the loopback, so a laptop does not expose the metrics to its network.
     */
    static String metricsAddress(String option, Map<String, String> env) {
      if (option != null) {
        return option;
      }
      return env.containsKey("PORT") ? "0.0.0.0" : "127.0.0.1";
    }
    /** Tests stop the loop with {@link #requestStop()} and leave the JVM's signals alone. */
    boolean handleSignals = true;

    /** Asks the loop to stop once the current run has finished. */
    void requestStop() {
      stop.countDown();
    }

    @Override
    public Integer call() throws InterruptedException {
      PrintWriter out = out();
      PrintWriter err = err();
      Optional<Planner> opened = Planner.open(settings, settings.runOptions(), home(), out, err);
      if (opened.isEmpty()) {
        return ExitCode.INVALID;
      }
      if (handleSignals) {
        StopSignals.onTermination(this::requestStop);
      }
      BatcherMetrics metrics = new BatcherMetrics(Clock.systemUTC());
      MetricsEndpoint endpoint = null;
      try {
        endpoint = metricsPort < 0 ? null
            : MetricsEndpoint.start(
                new InetSocketAddress(metricsAddress(metricsAddress, System.getenv()), metricsPort),
                metrics::scrape, () -> stop.getCount() > 0 && !lastRunFailed);
      } catch (IOException e) {
        opened.get().close();
        ErrorOutput.print(err, "--metrics-port: " + e.getMessage());
        err.flush();
        return ExitCode.INVALID;
      }
      // A null endpoint (--metrics-port -1) is skipped by try-with-resources.
      try (Planner planner = opened.get(); MetricsEndpoint served = endpoint) {
        for (TableProfile profile : planner.profiles().profiles()) {
          if (!BatchRunner.isLedgerDriven(profile)) {
            LOG.warn("Table {} lists storage (ingestion-type = full or save-checkpoint = false): serve does not run"
                + " it; run it with batch run-once --table {}", profile.table(), profile.table());
          }
        }
        List<String> tables = planner.profiles().profiles().stream().filter(BatchRunner::isLedgerDriven)
            .map(TableProfile::table).toList();
        metrics.refresh(planner.ledger(), tables);
        out.println("serving " + planner.profiles().profiles().size() + " table(s), a run every " + interval
            + (served == null ? "" : ", metrics at " + served.uri() + ", health at "
                + served.uri().resolve(MetricsEndpoint.HEALTH_PATH)));
        out.flush();
        while (stop.getCount() > 0) {
          try {
            RunSummary summary = planner.runner().runOnce();
            metrics.record(summary);
            metrics.refresh(planner.ledger(), tables);
            out.println("run: " + summary.describe());
            summary.errors().forEach(error -> ErrorOutput.print(err, error));
            lastRunFailed = false;
          } catch (RuntimeException e) {
            // The next run tries again: the ledger may be back by then. Until one succeeds, /health is DOWN.
            lastRunFailed = true;
            LOG.error("The run failed: {}", e.toString(), e);
            ErrorOutput.print(err, "the run failed: " + e.getMessage());
          }
          out.flush();
          err.flush();
          stop.await(interval.toMillis(), TimeUnit.MILLISECONDS);
        }
        out.println("stopped");
        out.flush();
        return 0;
      }
    }
  }
}
