package io.files2iceberg.batcher.reconcile;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.DryRunOption;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.OperatorOptions;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.OperatorTable;
import io.files2iceberg.batcher.cli.TableOption;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code reconcile}: the bucket against the ledger, for scheduled runs. */
@Command(
    name = "reconcile",
    mixinStandardHelpOptions = true,
    description = {
      "Compares the objects in the bucket with the files in the ledger, per table and partition range, and",
      "reports: data files the ledger never recorded (lost notifications), partitions with a success marker",
      "that are not READY, recorded files gone from the bucket, and partitions READY for longer than",
      "--stuck-after. --fix records the missing files and markers as if notified. Designed for a schedule.",
      "Exit codes: 0 no drift (or all of it fixed), 3 drift left (found without --fix, or gone files and",
      "stuck partitions, which --fix never fixes), 1 failed while running, 2 invalid configuration or usage."
    })
public final class ReconcileCommand extends CliCommand {

  @Mixin OperatorOptions options;

  @Mixin TableOption table;

  @Option(names = "--stuck-after", paramLabel = "DURATION", defaultValue = "6h", converter = DurationConverter.class,
      description = "A partition READY for longer is reported stuck (90s, 30m, 6h). Default: ${DEFAULT-VALUE}.")
  Duration stuckAfter;

  @Option(names = "--fix", description = "Record the missing files and markers as if notified.")
  boolean fix;

  @Mixin DryRunOption dryRun;

  @Override
  public Integer call() {
    return OperatorRun.run(spec(), options, (opened, out, err) -> {
      List<TableProfile> profiles = table.table() == null ? opened.registry().profiles()
          : List.of(OperatorTable.profile(opened.registry(), table.table(), options.config()));
      List<PartitionRange> ranges = new ArrayList<>();
      for (TableProfile profile : profiles) {
        ranges.add(OperatorTable.range(() -> PartitionRange.of(profile, options.from, options.to)));
      }
      StorageListing listing = OperatorTable.listing(opened.registry());
      Reconcile reconcile = new Reconcile(listing, opened.ledger(), Clock.systemUTC());
      List<Reconcile.Report> reports = new ArrayList<>();
      for (int i = 0; i < profiles.size(); i++) {
        reports.add(reconcile.run(profiles.get(i), ranges.get(i), stuckAfter, fix && !dryRun.dryRun(),
            OperatorTable.progress("reconcile", err)));
      }
      if (options.json) {
        // A reconcile line per table, then the summary.
        List<ObjectNode> lines = new ArrayList<>();
        reports.forEach(report -> lines.add(OperatorTable.record("reconcile", report)));
        lines.add(JsonLines.record("reconcile_summary").put("tables", reports.size())
            .put("drift", reports.stream().anyMatch(Reconcile.Report::hasDrift))
            .put("driftLeft", reports.stream().anyMatch(Reconcile.Report::hasDriftLeft)));
        JsonLines.print(out, lines);
      } else {
        reports.forEach(report -> print(report, out));
      }
      return reports.stream().anyMatch(Reconcile.Report::hasDriftLeft) ? ExitCode.DRIFT : 0;
    });
  }

  private static void print(Reconcile.Report report, PrintWriter out) {
    out.println("reconcile " + report.table() + " " + report.range() + ": " + report.partitionsChecked()
        + " partition(s), " + report.objectsListed() + " data file(s) listed in " + report.listCalls()
        + " list call(s): " + (report.hasDrift() ? "drift found" : "no drift"));
    section(out, "missing from the ledger (lost notifications)", report.missingFiles());
    section(out, "success marker present but not READY", report.markedNotReady());
    section(out, "recorded but gone from the bucket", report.deletedFiles());
    if (!report.archiveMissing().isEmpty()) {
      section(out, "moved by landing cleanup but the archive copy is gone", report.archiveMissing());
    }
    section(out, "stuck READY", report.stuckPartitions());
    report.rejected().forEach(reason -> out.println("  rejected: " + reason));
    if (report.fixed() && (!report.missingFiles().isEmpty() || !report.markedNotReady().isEmpty())) {
      out.println("  fixed: recorded " + report.missingFiles().size() + " file(s) and "
          + report.markedNotReady().size() + " marker(s); the next batcher run loads them");
    }
    out.flush();
  }

  private static void section(PrintWriter out, String title, List<String> items) {
    out.println("  " + title + ": " + items.size());
    items.forEach(item -> out.println("    " + item));
  }
}
