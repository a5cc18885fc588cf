package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.profile.Home;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How the operator commands run: the ledger opened through {@link
 * LedgerAccess}, the body run on it and the ledger closed. A table, partition, batch, file or
 * message the ledger does not know, or one in a state the command does not apply to (the body
 * throws {@link NotInLedgerException} or {@link IllegalArgumentException} before changing
 * anything), is a usage error naming it.
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

  public static int run(CommandSpec spec, Path config, boolean configRequired, Home home, Body body) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    LedgerAccess.Result result = LedgerAccess.open(config, configRequired, home, Clock.systemUTC(), err);
    if (result instanceof LedgerAccess.Failed failed) {
      return failed.exitCode();
    }
    try (LedgerAccess.Opened opened = ((LedgerAccess.Ok) result).opened()) {
      return body.run(opened, out, err);
    } catch (NotInLedgerException | IllegalArgumentException e) {
      ErrorOutput.print(err, e.getMessage());
      return ExitCode.INVALID;
    } finally {
      out.flush();
      err.flush();
    }
  }
}
