package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.profile.Home;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How the commands that read or repair the ledger run: the ledger opened through {@link
 * LedgerAccess}, the body run on it and the ledger closed. For the operator commands ({@link #run}),
 * a table, partition, batch, file or message the ledger does not know, or one in a state the
 * command does not apply to (the body throws {@link NotInLedgerException} or {@link
 * IllegalArgumentException} before changing anything), is a usage error naming it; a {@link
 * CommandLineProblem} is printed as a problem in the command line.
 */
public final class OperatorRun {
  private OperatorRun() {}

  @FunctionalInterface
  public interface Body {
    /** The exit code. */
    int run(LedgerAccess.Opened opened, PrintWriter out, PrintWriter err);
  }

  /** A body that prints through the command's own writers. */
  @FunctionalInterface
  public interface OpenedBody {
    /** The exit code. */
    int run(LedgerAccess.Opened opened);
  }

  public static int run(CommandSpec spec, Path config, boolean configRequired, Home home, OpenedBody body) {
    return run(spec, config, configRequired, home, (opened, out, err) -> body.run(opened));
  }

  /** On the ledger of {@code --config}, else the home's: {@code retry}, {@code inspect}, {@code history}. */
  public static int run(CommandSpec spec, LedgerOptions options, Body body) {
    return run(spec, options.config(), false, options.home().resolve(), body);
  }

  /** On the ledger of the profiles, which {@code replay}, {@code backfill} and {@code reconcile} require. */
  public static int run(CommandSpec spec, OperatorOptions options, Body body) {
    return run(spec, options.config(), true, options.home().resolve(), body);
  }

  public static int run(CommandSpec spec, Path config, boolean configRequired, Home home, Body body) {
    return read(spec, config, configRequired, home, (opened, out, err) -> {
      try {
        return body.run(opened, out, err);
      } catch (CommandLineProblem e) {
        return CommandLineProblem.print(err, e.getMessage());
      } catch (NotInLedgerException | IllegalArgumentException e) {
        ErrorOutput.print(err, e.getMessage());
        return ExitCode.INVALID;
      }
    });
  }

  /**
   * Runs the body on the opened ledger, for the commands that only read it ({@code status}): only a
   * {@link NotInLedgerException} is a usage error; anything else the body throws is a failure.
   */
  public static int read(CommandSpec spec, Path config, boolean configRequired, Home home, Body body) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    LedgerAccess.Result result = LedgerAccess.open(config, configRequired, home, Clock.systemUTC(), err);
    if (result instanceof LedgerAccess.Failed failed) {
      return failed.exitCode();
    }
    try (LedgerAccess.Opened opened = ((LedgerAccess.Ok) result).opened()) {
      return body.run(opened, out, err);
    } catch (NotInLedgerException e) {
      ErrorOutput.print(err, e.getMessage());
      return ExitCode.INVALID;
    } finally {
      out.flush();
      err.flush();
    }
  }
}
