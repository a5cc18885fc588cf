package io.files2iceberg.batcher.replay;

import io.files2iceberg.batcher.cli.AllowMissingOption;
import io.files2iceberg.batcher.cli.CommandLineProblem;
import io.files2iceberg.batcher.cli.LedgerAccess;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.OperatorTable;
import io.files2iceberg.batcher.cli.RecordingCommand;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code replay}: re-ingests chosen partitions of a table. */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
      "Re-ingests partitions of a table: lists their objects, records them in the ledger as if notified (known",
      "generations change nothing) and marks the complete ones READY; the next batch loads what changed.",
      "--force reloads INGESTED (and DROPPED or HELD) partitions whole in a new batch (MERGE keeps rows unique).",
      "--no-checkpoint loads the listed files once without touching the ledger. Without --run, the next batcher run",
      "loads them. --force is refused, naming them, when files to load again were deleted by landing cleanup",
      "(load.after-ingest.action = delete), unless --allow-missing (their rows are lost).",
      "Exit codes: 0 done, 1 failed while running, 2 invalid configuration or usage."
    })
public final class ReplayCommand extends RecordingCommand {
  @Option(names = "--partition", paramLabel = "VALUE", description = "One partition value (instead of --from/--to).")
  String partition;

  @Option(names = "--force", description = "Reopen INGESTED partitions (and DROPPED or HELD ones) so that all their"
      + " files load again.")
  boolean force;

  @Mixin AllowMissingOption allowMissing;

  @Option(names = "--no-checkpoint", description = "Load the listed files once, as a backfill with "
      + "save-checkpoint = false: the ledger is neither read for them nor written.")
  boolean noCheckpoint;

  @Override
  public Integer call() {
    PrintWriter err = err();
    if (partition != null && (options.from != null || options.to != null)) {
      return CommandLineProblem.print(err, "--partition: give it or --from/--to, not both");
    }
    if (partition == null && options.from == null && options.to == null) {
      return CommandLineProblem.print(err, "--partition or --from/--to: required (which partitions to replay)");
    }
    if (noCheckpoint && force) {
      return CommandLineProblem.print(err, "--force: not with --no-checkpoint (which never reads the ledger, so"
          + " there is nothing to reopen)");
    }
    return OperatorRun.run(spec(), options, (opened, out, errors) -> {
      TableProfile profile = OperatorTable.profile(opened.registry(), table.table(), options.config());
      PartitionRange range = OperatorTable.range(() -> partition != null ? PartitionRange.only(profile, partition)
          : PartitionRange.of(profile, options.from, options.to));
      Replay replay = new Replay(OperatorTable.listing(opened.registry()), opened.ledger(), Clock.systemUTC());
      if (noCheckpoint) {
        return loadWithoutCheckpoint(opened, profile, replay, range, out, errors);
      }
      Replay.Report report = replay.run(profile, range, force, dryRun.dryRun(), allowMissing,
          OperatorTable.progress("replay", errors));
      print(report, out);
      return loadIfRun(opened, profile, out, errors);
    });
  }

  private int loadWithoutCheckpoint(LedgerAccess.Opened opened, TableProfile profile, Replay replay,
      PartitionRange range, PrintWriter out, PrintWriter err) {
    List<ManifestFile> files = replay.listedFiles(profile, range);
    long partitions = files.stream().map(ManifestFile::partition).distinct().count();
    if (options.json) {
      JsonLines.print(out, JsonLines.record("replay_without_checkpoint_summary").put("table", table.table())
          .put("range", range.toString()).put("files", files.size()).put("partitions", partitions)
          .put("dryRun", dryRun.dryRun()));
    } else {
      out.println("replay " + table.table() + " " + range + " without checkpoint: " + files.size()
          + " file(s) listed in " + partitions + " complete partition(s)" + (dryRun.dryRun() ? " (dry run: nothing loaded)" : ""));
      out.flush();
    }
    if (dryRun.dryRun() || files.isEmpty()) {
      return 0;
    }
    return OperatorTable.runBatches(opened, profile, options, jobTimeout.value(), out, err,
        batches -> batches.runListed(profile, files));
  }

  private void print(Replay.Report report, PrintWriter out) {
    if (options.json) {
      OperatorTable.printJson(out, "replay_summary", report);
      return;
    }
    out.println((report.dryRun() ? "replay (dry run) " : "replay ") + report.table() + " " + report.range() + ": "
        + report.partitions().size() + " partition(s), " + report.filesListed() + " data file(s) listed in "
        + report.listCalls() + " list call(s)");
    out.println("  recorded: " + report.recorded().size() + " new file(s), " + report.known() + " already known");
    out.println("  READY to load: " + OperatorTable.names(report.readyToLoad()));
    if (force) {
      out.println("  reopened: " + OperatorTable.names(report.reopened()));
    }
    if (!report.left().isEmpty()) {
      out.println("  not reopened: " + OperatorTable.names(report.left()));
    }
    if (!report.incomplete().isEmpty()) {
      out.println("  skipped, no success marker: " + OperatorTable.names(report.incomplete()));
    }
    printClosing(out, report.rejected(), "  the next batcher run loads them (or pass --run)");
  }
}
