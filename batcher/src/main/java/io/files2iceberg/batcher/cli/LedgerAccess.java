package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * How the commands that read or repair the pipeline (status and the operator commands) open the
 * profiles and the ledger: the ledger the deployment file beside the profiles ({@code --config}) names, else the embedded
 * ledger {@code <home>/ledger.db}. Every problem is printed the {@link ConfigProblems} way, with
 * the exit code to return.
 */
public final class LedgerAccess {
  private LedgerAccess() {}

  /** The profiles (when given) and the open ledger; the caller closes {@link #ledger()}. */
  public record Opened(Optional<ProfileRegistry> profiles, Ledger ledger, Home home) implements AutoCloseable {
    /** The profiles; only call when the command required {@code --config}. */
    public ProfileRegistry registry() {
      return profiles.orElseThrow(() -> new IllegalStateException("no --config"));
    }

    @Override
    public void close() {
      ledger.close();
    }
  }

  /** Opened, or the exit code after the problem was printed on {@code err}. */
  public sealed interface Result permits Ok, Failed {}

  public record Ok(Opened opened) implements Result {}

  public record Failed(int exitCode) implements Result {}

  /**
   * Opens the ledger.
   *
   * @param config the profiles ({@code --config}), or null for the embedded ledger of the home
   * @param configRequired true for commands that need the profiles (their globs, their catalogs)
   */
  public static Result open(Path config, boolean configRequired, Home home, Clock clock, PrintWriter err) {
    Optional<ProfileRegistry> profiles = Optional.empty();
    if (config != null) {
      profiles = ConfigProblems.load(config, home, err);
      if (profiles.isEmpty()) {
        return new Failed(ExitCode.INVALID);
      }
    } else if (configRequired) {
      return new Failed(CommandLineProblem.print(err, "--config: required (the profiles of the tables)"));
    } else if (!Files.isRegularFile(home.ledgerDb())) {
      ConfigProblems.print(err, "the home " + home.root(), List.of(home.ledgerDb()
          + ": no embedded ledger (nothing recorded yet); pass --home, or --config for the profiles' ledger"));
      return new Failed(ExitCode.INVALID);
    }
    try {
      Ledger ledger = profiles.isPresent()
          ? Ledgers.open(profiles.get().deployment().ledger(), clock)
          : SqliteLedger.open(home.ledgerDb(), clock);
      return new Ok(new Opened(profiles, ledger, home));
    } catch (IllegalStateException | IllegalArgumentException e) {
      ConfigProblems.print(err, String.valueOf(config), List.of("ledger: " + e.getMessage()));
      return new Failed(ExitCode.INVALID);
    } catch (LedgerUnavailableException e) {
      ErrorOutput.print(err, "the ledger is not available: " + e.getMessage());
      err.flush();
      return new Failed(ExitCode.FAILED);
    }
  }
}
