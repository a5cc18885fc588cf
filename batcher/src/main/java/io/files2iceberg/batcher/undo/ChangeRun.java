package io.files2iceberg.batcher.undo;

import io.files2iceberg.batcher.cli.CommandLineProblem;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JobLaunchers;
import io.files2iceberg.batcher.cli.LedgerAccess;
import io.files2iceberg.batcher.cli.OperatorTable;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.events.ChangePublisher;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/**
 * What {@code rollback} and {@code drop-partition} share: the ledger and the table's launcher
 * opened, who asks and why, and where a crash test stops them.
 */
final class ChangeRun {
  /**
   * For crash tests: a file that the command creates once the table side of its change is done,
   * before the ledger side, and then waits (until killed, at most ten minutes), so that a test can
   * kill it exactly there.
   */
  static final String PAUSE_AFTER_TABLE = "files2iceberg.undo.pause-after-table";

  /** The options both commands take. */
  static final class Options {
    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, kept with the change in the ledger.")
    String reason;

    @Option(names = "--actor", paramLabel = "NAME",
        description = "Who asks, kept with the change (default: the operating system user).")
    String actor;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30m", converter = DurationConverter.class,
        description = "The longest the table side may run before it is cancelled (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    String actor() {
      return actor != null && !actor.isBlank() ? actor : System.getProperty("user.name", "unknown");
    }

    Optional<String> reason() {
      return Optional.ofNullable(reason).filter(r -> !r.isBlank());
    }
  }

  /** The body of a change command, on its opened ledger, its table's profile and launchers. */
  @FunctionalInterface
  interface Body {
    int run(LedgerAccess.Opened opened, TableProfile profile, Launchers launchers) throws InterruptedException;
  }

  private ChangeRun() {}

  static int run(ConfigOption.Required config, HomeOption home, String table, PrintWriter err, Body body)
      throws InterruptedException {
    Home resolvedHome = home.resolve();
    LedgerAccess.Result opened = LedgerAccess.open(config.path(), true, resolvedHome, Clock.systemUTC(), err);
    if (opened instanceof LedgerAccess.Failed failed) {
      return failed.exitCode();
    }
    try (LedgerAccess.Opened access = ((LedgerAccess.Ok) opened).opened()) {
      TableProfile profile;
      try {
        profile = OperatorTable.profile(access.registry(), table, config.path());
      } catch (CommandLineProblem e) {
        return CommandLineProblem.print(err, e.getMessage());
      }
      Optional<Launchers> launchers =
          JobLaunchers.open(List.of(profile), access.registry().deployment(), resolvedHome, config.path(), err);
      if (launchers.isEmpty()) {
        return ExitCode.INVALID;
      }
      try (Launchers open = launchers.get()) {
        return body.run(access, profile, open);
      }
    } finally {
      err.flush();
    }
  }

  /** The table's INTENDED change, if any: at most one. */
  static Optional<TableChange> intended(Ledger ledger, String table) {
    return ledger.changes(table).stream()
        .filter(c -> c.state() == TableChange.ChangeState.INTENDED).findFirst();
  }

  /** Publishes the change's event (and any left by earlier runs); a failure is logged, never thrown. */
  static void publishChanges(Deployment deployment, Home home, Ledger ledger) {
    try (ChangePublisher publisher = ChangePublisher.of(deployment, home, ledger)) {
      publisher.publishPending();
    }
  }

  /** Why another command cannot start: the table's unfinished change, and the command that finishes it. */
  static String unfinished(TableChange open) {
    return "table " + open.table() + ": " + open.kind().code() + " " + open.changeId() + " (asked by " + open.actor()
        + " at " + open.createdAt() + ") is unfinished; run it again to finish it"
        + (open.kind() == TableChange.ChangeKind.ROLLBACK
            ? ": rollback --table " + open.table() + " --to-snapshot " + open.toSnapshot().orElseThrow()
            : ": drop-partition --table " + open.table() + " --partition " + open.partitions().get(0));
  }

  /** Where a crash test asked the command to stop, once the table side is done. */
  static void pauseAfterTable() throws InterruptedException {
    String marker = System.getProperty(PAUSE_AFTER_TABLE);
    if (marker == null) {
      return;
    }
    try {
      Files.writeString(Path.of(marker), "table side done\n");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    TimeUnit.MINUTES.sleep(10);
  }
}
