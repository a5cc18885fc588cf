package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Mixin;

/**
 * A command that records partitions of one table in the ledger as if notified, then leaves them to
 * the next batcher run or, with {@code --run}, loads them at once: {@code backfill} and {@code
 * replay}.
 */
public abstract class RecordingCommand extends CliCommand {
  @Mixin protected OperatorOptions options;
  @Mixin protected JobTimeoutOption jobTimeout;

  @Mixin protected TableOption.Required table;

  @Mixin protected RunOption run;

  @Mixin protected DryRunOption dryRun;

  /**
   * With {@code --run} (and no {@code --dry-run}), loads the table's READY partitions and prints the
   * run's summary ({@link OperatorTable#runBatches}); else 0.
   */
  protected final int loadIfRun(LedgerAccess.Opened opened, TableProfile profile, PrintWriter out, PrintWriter err) {
    if (!run.run() || dryRun.dryRun()) {
      return 0;
    }
    return OperatorTable.runBatches(opened, profile, options, jobTimeout.value(), out, err,
        batches -> batches.runTable(profile));
  }

  /**
   * The last lines of the summary for people: each object the listing rejected, then {@code
   * whenTheyLoad} unless {@code --run} loads the partitions now or a dry run recorded nothing.
   */
  protected final void printClosing(PrintWriter out, List<String> rejected, String whenTheyLoad) {
    rejected.forEach(reason -> out.println("  rejected: " + reason));
    if (!run.run() && !dryRun.dryRun()) {
      out.println(whenTheyLoad);
    }
    out.flush();
  }
}
