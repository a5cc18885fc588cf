package io.files2iceberg.batcher.backfill;

import io.files2iceberg.batcher.cli.CommandLineProblem;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.OperatorTable;
import io.files2iceberg.batcher.cli.RecordingCommand;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Clock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code backfill}: the first load of a bucket that already holds many partitions. */
@Command(
    name = "backfill",
    mixinStandardHelpOptions = true,
    description = {
      "Records every complete partition already in the bucket (its success marker present when",
      "success-file-filter is on), oldest first, as if notified; the batcher then loads them oldest first in",
      "max-batch-size steps (--run, or the next batcher run). Resumable: partitions the ledger already has",
      "complete are skipped without listing them again (with success-file-filter off, their folders are listed",
      "again and known files change nothing). Exit codes: 0 done, 1 failed while running, 2 invalid",
      "configuration or usage."
    })
public final class BackfillCommand extends RecordingCommand {
  @Option(names = "--limit", paramLabel = "N", defaultValue = "0",
      description = "Record at most N partitions in this run (0: all); a rerun goes on where it stopped.")
  int limit;

  @Override
  public Integer call() {
    if (limit < 0) {
      return CommandLineProblem.print(err(), "--limit: must be 0 (all) or more, got " + limit);
    }
    return OperatorRun.run(spec(), options, (opened, out, err) -> {
      TableProfile profile = OperatorTable.profile(opened.registry(), table.table(), options.config());
      PartitionRange range = OperatorTable.range(() -> PartitionRange.of(profile, options.from, options.to));
      Backfill.Report report = new Backfill(OperatorTable.listing(opened.registry()), opened.ledger(), Clock.systemUTC())
          .run(profile, range, limit, dryRun.dryRun(), OperatorTable.progress("backfill", err));
      print(report, out);
      return loadIfRun(opened, profile, out, err);
    });
  }

  private void print(Backfill.Report report, PrintWriter out) {
    if (options.json) {
      OperatorTable.printJson(out, "backfill_summary", report);
      return;
    }
    out.println((report.dryRun() ? "backfill (dry run) " : "backfill ") + report.table() + " " + report.range() + ": "
        + report.folders() + " partition folder(s) found, " + report.listCalls() + " list call(s)");
    out.println("  recorded: " + report.recordedPartitions().size() + " partition(s), " + report.filesRecorded()
        + " new file(s), " + report.filesKnown() + " already known");
    out.println("  skipped, already recorded: " + report.skipped().size() + " partition(s)");
    if (report.remaining() > 0) {
      out.println("  left for the next run (--limit " + limit + "): " + report.remaining() + " partition(s)");
    }
    if (!report.incomplete().isEmpty()) {
      out.println("  waiting for their success marker: " + OperatorTable.names(report.incomplete()));
    }
    printClosing(out, report.rejected(), "  the next batcher run loads them, oldest first (or pass --run)");
  }
}
