package io.files2iceberg.batcher.cli;

import io.files2iceberg.batcher.ops.RetryFormat;
import io.files2iceberg.batcher.ops.RetryPlan;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code retry}: re-queues FAILED batches or partitions after showing their recorded errors. */
@Command(
    name = "retry",
    mixinStandardHelpOptions = true,
    description = {
      "Re-queues FAILED partitions (READY again, attempts reset) so the next batch run loads them,",
      "after printing what will be re-queued with its recorded errors: each partition's attempts and last",
      "error, and the batch that failed it. Fix the cause first (see inspect and quarantine).",
      "Reads the ledger the profiles name (--config), else the embedded ledger <home>/ledger.db."
    })
final class RetryCommand implements Callable<Integer> {
  /** Progress on stderr every this many partitions, when there are more. */
  private static final int PROGRESS_EVERY = 50;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Scope scope;

  static final class Scope {
    @Option(names = "--batch", paramLabel = "ID", description = "The partitions of this FAILED batch.")
    String batch;

    @Option(names = "--table", paramLabel = "TABLE", description = "The FAILED partitions of this table.")
    String table;

    @Option(names = "--all", description = "Every FAILED partition of every table.")
    boolean all;
  }

  @Option(names = "--partition", paramLabel = "P", description = "With --table: only this partition.")
  String partition;

  @Option(names = "--dry-run", description = "Show what would be re-queued; change nothing.")
  boolean dryRun;

  @Option(names = "--json", description = "Print JSON for scripts.")
  boolean json;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE|DIR", description = "Profiles naming the ledger.")
  Path config;

  @Mixin HomeOption home;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (partition != null && scope.table == null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--partition needs --table");
    }
    return OperatorRun.run(spec, config, false, home.resolve(), (opened, out, err) -> {
      Ledger ledger = opened.ledger();
      RetryPlan plan = scope.batch != null ? RetryPlan.ofBatch(ledger, scope.batch)
          : scope.table != null ? RetryPlan.ofTable(ledger, scope.table, Optional.ofNullable(partition))
          : RetryPlan.ofAll(ledger);
      int total = plan.targets().size();
      List<PartitionRecord> requeued = dryRun || plan.isEmpty() ? List.of() : plan.apply(ledger, done -> {
        if (total > PROGRESS_EVERY && (done % PROGRESS_EVERY == 0 || done == total)) {
          err.println("[retry] re-queued " + done + "/" + total + " partitions");
          err.flush();
        }
      });
      out.print(json ? RetryFormat.json(plan, requeued, dryRun) : RetryFormat.human(plan, requeued, dryRun));
      return 0;
    });
  }
}
