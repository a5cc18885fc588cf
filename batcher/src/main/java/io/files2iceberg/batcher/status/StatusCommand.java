package io.files2iceberg.batcher.status;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JsonOption;
import io.files2iceberg.batcher.cli.NotInLedgerException;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.TableOption;
import io.files2iceberg.batcher.history.Since;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code status}: the pipeline at a glance, from the ledger. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Shows, per table: partitions and files by state, batches in flight, the last committed batch and its",
      "snapshot, the lag (how long the oldest READY partition has waited) and the failures with their errors.",
      "Reads the ledger the profiles name (--config), else the embedded ledger <home>/ledger.db.",
      "Exits 5 when a partition is FAILED, a table STOPPED (--config) or a table waits for an unfinished rollback or",
      "drop-partition (run it again to finish it), so that a scheduled run can alert."
    })
public final class StatusCommand extends CliCommand {


  @Mixin ConfigOption config;

  @Mixin JsonOption json;

  @Option(names = "--files", arity = "0..1", paramLabel = "SINCE", fallbackValue = "1d",
      converter = Since.Converter.class,
      description = {"Also list each table's file loads since then, newest first, as the history command does:"
          + " time, URI, generation, state, batch, snapshot, rows read, rejected and rescued (unknown, never 0, when"
          + " the ledger does not know them). A duration back from now (12h, 1d) or an ISO-8601 instant;"
          + " without a value, 1d. In JSON, each table gets a fileLoads array."})
  Since files;

  @Option(names = "--exit-zero",
      description = "Exit 0 even when a partition is FAILED, a table STOPPED or a change unfinished (for scripts that"
          + " only read the output).")
  boolean exitZero;

  @Mixin TableOption only;

  @Mixin HomeOption home;

  @Override
  public Integer call() {
    return OperatorRun.read(spec(), config.path(), false, home.resolve(), (opened, out, err) -> {
      Clock clock = Clock.systemUTC();
      StatusReport report = StatusReport.read(opened.ledger(), opened.profiles(), Optional.ofNullable(only.table()),
          Optional.ofNullable(files).map(since -> since.from(clock)), clock);
      if (only.table() != null && report.tables().isEmpty()) {
        throw NotInLedgerException.table(only.table(), opened);
      }
      out.print(json.json() ? StatusFormat.json(report) : StatusFormat.human(report));
      out.flush();
      Optional<String> attention = attention(report);
      if (attention.isEmpty() || exitZero) {
        return 0;
      }
      err.println("attention: " + attention.get());
      err.flush();
      return ExitCode.ATTENTION;
    });
  }

  /**
   * What needs an operator: the FAILED partitions, the STOPPED tables and the tables waiting for an
   * unfinished rollback or drop, named; empty when none.
   */
  static Optional<String> attention(StatusReport report) {
    List<String> failed = report.tables().stream()
        .flatMap(table -> table.status().failedPartitions().stream())
        .map(partition -> partition.table() + " " + partition.partition())
        .toList();
    List<String> stopped = report.tables().stream()
        .filter(table -> !table.stoppedBy().isEmpty())
        .map(StatusReport.TableView::table)
        .toList();
    List<String> changing = report.tables().stream()
        .flatMap(table -> table.unfinishedChange().stream())
        .map(change -> change.table() + " (" + change.kind().code() + " " + change.changeId() + ")")
        .toList();
    List<String> parts = new ArrayList<>();
    if (!failed.isEmpty()) {
      parts.add(failed.size() + " partition(s) FAILED (" + String.join(", ", failed) + ")");
    }
    if (!stopped.isEmpty()) {
      parts.add(stopped.size() + " table(s) STOPPED (" + String.join(", ", stopped) + ")");
    }
    if (!changing.isEmpty()) {
      parts.add(changing.size() + " table(s) waiting for an unfinished change to be run again ("
          + String.join(", ", changing) + ")");
    }
    return parts.isEmpty() ? Optional.empty()
        : Optional.of(String.join("; ", parts) + "; exit " + ExitCode.ATTENTION + " (--exit-zero keeps 0)");
  }
}
