package io.files2iceberg.batcher.undo;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.DryRunOption;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JsonOption;
import io.files2iceberg.batcher.cli.LedgerAccess;
import io.files2iceberg.batcher.cli.TableOption;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.engine.launch.MainRuns;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.core.ledger.BatchIds;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code drop-partition}: a partition's rows deleted from the table and its files DROPPED in the
 * ledger, in the order {@code rollback} keeps: the change written down INTENDED (no batch of the
 * table is claimed meanwhile), the table's delete (one commit carrying the change id, never made
 * twice), then the ledger. A run killed anywhere is finished by running it again.
 */
@Command(
    name = "drop-partition",
    mixinStandardHelpOptions = true,
    description = {
      "Deletes every row of one partition from the table, in one commit, and marks the partition and its",
      "loaded files DROPPED in the ledger: they are not loaded again unless asked (`replay --force`); a late",
      "file of the partition loads alone, as for an INGESTED one. A rollback to a snapshot before the drop",
      "brings the rows and the files back. Refused while a batch of the table is in flight, or when the",
      "partition is not complete (OPEN) or claimed. The change is written to the ledger before the table is",
      "touched: a drop killed on the way is finished by running the same command again.",
      "Exit codes: 0 dropped, 1 failed or refused by the table, 2 invalid usage or unknown partition."
    })
public final class DropPartitionCommand extends CliCommand {
  static final String KIND = "drop-partition";

  @Mixin ConfigOption.Required config;

  @Mixin TableOption.Required table;

  @Option(names = "--partition", required = true, paramLabel = "VALUE",
      description = "The partition, as the ledger names it (status --partitions, inspect).")
  String partition;

  @Mixin ChangeRun.Options change;

  @Mixin DryRunOption dryRun;

  @Mixin JsonOption json;

  @Mixin HomeOption home;

  @Override
  public Integer call() throws InterruptedException {
    return ChangeRun.run(config, home, table.table(), err(), this::drop);
  }

  private int drop(LedgerAccess.Opened opened, TableProfile profile, Launchers launchers)
      throws InterruptedException {
    PrintWriter out = out();
    PrintWriter err = err();
    Ledger ledger = opened.ledger();
    try {
      if (ledger.partition(profile.table(), partition).isEmpty()) {
        ErrorOutput.print(err, "table " + profile.table() + ": no partition " + partition + " in the ledger");
        return ExitCode.INVALID;
      }
      Optional<TableChange> unfinished = ChangeRun.intended(ledger, profile.table());
      TableChange intended;
      if (unfinished.isPresent()) {
        TableChange open = unfinished.get();
        if (open.kind() != TableChange.ChangeKind.DROP_PARTITION || !open.partitions().equals(List.of(partition))) {
          ErrorOutput.print(err, ChangeRun.unfinished(open));
          return ExitCode.FAILED;
        }
        intended = open;
        err.println("drop-partition " + profile.table() + " " + partition + ": finishing " + open.changeId()
            + " (asked by " + open.actor() + " at " + open.createdAt() + ")");
      } else {
        Instant now = Instant.now();
        intended = new TableChange(BatchIds.of("drop", now), profile.table(), TableChange.ChangeKind.DROP_PARTITION,
            TableChange.ChangeState.INTENDED, Optional.empty(), Optional.empty(), List.of(), List.of(),
            List.of(partition), false, change.actor(), change.reason(), Optional.empty(), now, now);
        if (!dryRun.dryRun()) {
          intended = ledger.intendChange(intended);
        }
      }
      List<String> args = new ArrayList<>(List.of("--partition", partition, "--change-id", intended.changeId()));
      if (dryRun.dryRun()) {
        args.add("--dry-run");
      }
      TableUndo.Result done = TableUndo.run(launchers.apply(profile), profile, opened.registry().deployment(), KIND,
          TableUndo.DROP_PARTITION_MAIN, intended.changeId() + (dryRun.dryRun() ? "-plan" : "-table"), args, change.timeout,
          err);
      switch (done.outcome()) {
        case TableUndo.PLANNED -> {
          print(out, "drop-partition " + profile.table() + " " + partition + " would delete "
              + done.body().path("rowsDeleted").asLong() + " row(s) and mark "
              + ledger.filesOfPartition(profile.table(), partition).stream()
                  .filter(f -> f.state() == io.files2iceberg.core.ledger.FileState.INGESTED).count()
              + " file(s) DROPPED (dry run: nothing changed)", null, done);
          return 0;
        }
        case "dropped", "already-applied" -> {
          ChangeRun.pauseAfterTable();
          TableChange applied = ledger.applyChange(intended.changeId());
          ChangeRun.publishChanges(opened.registry().deployment(), opened.home(), ledger);
          print(out, "dropped partition " + partition + " of " + profile.table() + " (" + applied.changeId() + "): "
              + done.body().path("rowsDeleted").asLong() + " row(s) deleted in snapshot "
              + done.body().path("snapshotId").asText() + ", " + applied.outcome().orElse("")
              + "; `replay --table " + profile.table() + " --partition " + partition + " --force` loads it again",
              applied, done);
          return 0;
        }
        case TableUndo.REFUSED -> {
          ledger.abandonChange(intended.changeId(), done.why());
          ErrorOutput.print(err, "table " + profile.table() + ": drop-partition refused, nothing changed: "
              + done.why());
          return ExitCode.FAILED;
        }
        default -> {
          ErrorOutput.print(err, "table " + profile.table() + ": drop-partition failed: " + done.why() + "; "
              + intended.changeId() + " stays intended (no batch of the table is claimed meanwhile): run the same"
              + " command again to finish it");
          return ExitCode.FAILED;
        }
      }
    } catch (IllegalTransitionException e) {
      ErrorOutput.print(err, e.getMessage());
      return ExitCode.FAILED;
    } catch (MainRuns.MainFailedException | LaunchException | LedgerUnavailableException e) {
      ErrorOutput.print(err, e.getMessage() + "; run the same command again to finish it");
      return ExitCode.FAILED;
    }
  }

  private void print(PrintWriter out, String text, TableChange applied, TableUndo.Result done) {
    if (json.json()) {
      var line = JsonLines.record("drop_partition").put("table", table.table()).put("partition", partition)
          .put("dryRun", dryRun.dryRun());
      if (applied != null) {
        line.set("change", ChangeJson.of(applied));
      }
      line.set("tableSide", done.body());
      out.println(JsonLines.line(line));
    } else {
      out.println(text);
    }
    out.flush();
  }
}
