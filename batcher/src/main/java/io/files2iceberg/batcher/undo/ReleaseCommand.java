package io.files2iceberg.batcher.undo;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.CommandLineProblem;
import io.files2iceberg.batcher.cli.LedgerOptions;
import io.files2iceberg.batcher.cli.NotInLedgerException;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.TableOption;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code release}: HELD partitions (a {@code rollback --hold}) READY again, for the next batch run. */
@Command(
    name = "release",
    mixinStandardHelpOptions = true,
    description = {
      "Lets HELD partitions go: a `rollback --hold` held them so that no batch loads them before the profile",
      "is fixed; released, they are READY and the next batch run loads their files.",
      "Exit codes: 0 released, 2 invalid usage, unknown partition or a partition that is not HELD."
    })
public final class ReleaseCommand extends CliCommand {
  @Mixin LedgerOptions options;

  @Mixin TableOption.Required table;

  @Option(names = "--partition", paramLabel = "VALUE", description = "One HELD partition (repeatable).")
  List<String> partitions = new ArrayList<>();

  @Option(names = "--all", description = "Every HELD partition of the table.")
  boolean all;

  @Override
  public Integer call() {
    if (all == !partitions.isEmpty()) {
      return CommandLineProblem.print(err(), "--partition or --all: give one (which partitions to release)");
    }
    return OperatorRun.run(spec(), options, (opened, out, err) -> {
      List<String> tokens = new ArrayList<>(partitions);
      if (all) {
        opened.ledger().partitions(table.table()).stream().filter(p -> p.state() == PartitionState.HELD)
            .forEach(p -> tokens.add(p.partition()));
      }
      for (String token : tokens) {
        PartitionRecord stored = opened.ledger().partition(table.table(), token).orElseThrow(() ->
            new NotInLedgerException("table " + table.table() + ": no partition " + token + " in the ledger"));
        if (stored.state() != PartitionState.HELD) {
          throw new IllegalArgumentException("table " + table.table() + ": partition " + token + " is "
              + stored.state() + ", not HELD; only a rollback --hold holds a partition");
        }
      }
      for (String token : tokens) {
        PartitionRecord released = opened.ledger().releasePartition(table.table(), token);
        if (options.json()) {
          out.println(JsonLines.line(JsonLines.record("released").put("table", table.table())
              .put("partition", released.partition()).put("state", released.state().name())));
        } else {
          out.println("released " + table.table() + " " + released.partition() + ": READY, the next batch run loads it");
        }
      }
      if (tokens.isEmpty() && !options.json()) {
        out.println(table.table() + ": no HELD partition");
      }
      return 0;
    });
  }
}
