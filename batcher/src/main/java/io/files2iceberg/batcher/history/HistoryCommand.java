package io.files2iceberg.batcher.history;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.LedgerOptions;
import io.files2iceberg.batcher.cli.NotInLedgerException;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.TableOption;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code history}: each file a table loaded (or failed to) since a time, as Snowpipe's COPY_HISTORY. */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description = {
      "Lists each file load of one table since a time, newest first, as Snowpipe's COPY_HISTORY does.",
      "Each line: when (the batch's commit or failure), what became of the file (ingested, failed, quarantined,"
          + " superseded, ignored), its batch, the Iceberg snapshot that holds its rows, the rows the job read from"
          + " it, rejected (to <table>__rejected) and rescued (into transform.rescued-data-column), its generation"
          + " and URI.",
      "A count the ledger does not know (a file loaded by an older release, or a batch settled without its job's"
          + " result) shows as unknown (JSON null), never 0.",
      "The history reaches back as far as the ledger keeps committed batches (they are pruned).",
      "Reads the ledger the profiles name (--config), else the embedded ledger <home>/ledger.db.",
      "Exit codes: 0 listed (also when nothing was loaded), 2 invalid usage or a table the ledger does not know,"
          + " 1 failure (the ledger unavailable)."
    })
public final class HistoryCommand extends CliCommand {

  @Mixin TableOption.Required table;

  @Option(names = "--since", paramLabel = "WHEN", defaultValue = "1d", converter = Since.Converter.class,
      description = "How far back: a duration back from now (90m, 12h, 1d, 7d) or an ISO-8601 instant"
          + " (2026-12-01T00:00:00Z). Default: ${DEFAULT-VALUE}.")
  Since since;

  @Mixin LedgerOptions options;

  @Override
  public Integer call() {
    Instant from = since.from(Clock.systemUTC());
    String name = table.table();
    return OperatorRun.run(spec(), options, (opened, out, err) -> {
      boolean known = opened.ledger().tables().contains(name)
          || opened.profiles().flatMap(registry -> registry.byTable(name)).isPresent();
      if (!known) {
        throw NotInLedgerException.table(name, opened);
      }
      List<FileLoad> loads = LoadHistory.read(opened.ledger(), name, from);
      out.print(options.json() ? HistoryFormat.json(name, from, loads) : HistoryFormat.human(name, from, loads));
      return 0;
    });
  }
}
