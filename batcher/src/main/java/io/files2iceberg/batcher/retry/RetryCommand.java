package io.files2iceberg.batcher.retry;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.DryRunOption;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.LedgerOptions;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.OperatorTable;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import java.util.Optional;
import java.util.function.Consumer;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code retry}: revives FAILED batches that gave up with an unknown outcome and re-queues other
 * FAILED partitions, after showing their recorded errors.
 */
@Command(
    name = "retry",
    mixinStandardHelpOptions = true,
    description = {
      "Re-queues FAILED partitions (READY again, attempts reset) so the next batch run loads them,",
      "after printing what will be re-queued with its recorded errors: each partition's attempts and last",
      "error, and the batch that failed it. Fix the cause first (see inspect and quarantine).",
      "A batch that gave up without knowing whether its job committed is revived",
      "instead: relaunched under its own id by the next batcher run, which finds",
      "it in the table if it committed.",
      "Reads the ledger the profiles name (--config), else the embedded ledger <home>/ledger.db."
    })
public final class RetryCommand extends CliCommand {
  /** Progress on stderr every this many partitions, when there are more. */
  private static final int PROGRESS_EVERY = 50;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Scope scope;

  static final class Scope {
    @Option(names = "--batch", paramLabel = "ID", description = "This FAILED batch: revived, or its partitions re-queued.")
    String batch;

    @Option(names = "--table", paramLabel = "TABLE", description = "The FAILED partitions of this table.")
    String table;

    @Option(names = "--all", description = "Every FAILED partition of every table.")
    boolean all;
  }

  @Option(names = "--partition", paramLabel = "P", description = "With --table: only this partition.")
  String partition;

  @Mixin DryRunOption dryRun;

  @Mixin LedgerOptions options;

  @Override
  public Integer call() {
    if (partition != null && scope.table == null) {
      throw usageError("--partition needs --table");
    }
    return OperatorRun.run(spec(), options, (opened, out, err) -> {
      Ledger ledger = opened.ledger();
      RetryPlan plan = scope.batch != null ? RetryPlan.ofBatch(ledger, scope.batch)
          : scope.table != null ? RetryPlan.ofTable(ledger, scope.table, Optional.ofNullable(partition))
          : RetryPlan.ofAll(ledger);
      int total = plan.size();
      Consumer<String> progress = OperatorTable.progress("retry", err);
      RetryPlan.Applied applied;
      try {
        applied = dryRun.dryRun() || plan.isEmpty() ? RetryPlan.Applied.NOTHING : plan.apply(ledger, done -> {
          if (total > PROGRESS_EVERY && (done % PROGRESS_EVERY == 0 || done == total)) {
            progress.accept("revived or re-queued " + done + "/" + total);
          }
        });
      } catch (IllegalTransitionException e) {
        // A batch to revive whose file or partition moved since: nothing of it changed.
        ErrorOutput.print(err, e.getMessage());
        return ExitCode.FAILED;
      }
      out.print(options.json() ? RetryFormat.json(plan, applied, dryRun.dryRun()) : RetryFormat.human(plan, applied, dryRun.dryRun()));
      return 0;
    });
  }
}
