package io.files2iceberg.batcher.inspect;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.LedgerOptions;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.batcher.cli.TableOption;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.core.profile.StorageSettings;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code inspect}: one partition, batch or file with its whole history in the ledger. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Shows one partition, one batch or one file with everything the ledger holds about it: states,",
      "attempts, errors, quarantine reasons, events, the batches that claimed it, their snapshot ids and metrics.",
      "A batch also lists each launch with the result its job wrote (exit, error or snapshot and rows) and where its",
      "log is; that needs the profiles (--config), which say where the results and logs are.",
      "Reads the ledger the profiles name (--config), else the embedded ledger <home>/ledger.db."
    })
public final class InspectCommand extends CliCommand {

  @ArgGroup(exclusive = true, multiplicity = "1")
  Subject subject;

  static final class Subject {
    @Option(names = "--partition", paramLabel = "P", description = "A partition of --table (its token, e.g. 2024-01-31).")
    String partition;

    @Option(names = "--batch", paramLabel = "ID", description = "A batch.")
    String batch;

    @Option(names = "--file", paramLabel = "URI|PATH",
        description = "An object: gs://bucket/name, file:///path or a local path; every recorded generation.")
    String file;
  }

  @Mixin TableOption table;

  @Option(names = "--generation", paramLabel = "G", description = "With --file: only this generation.")
  Long generation;

  @Mixin LedgerOptions options;

  @Override
  public Integer call() {
    if ((subject.partition != null) != (table.table() != null)) {
      throw usageError("--partition and --table go together");
    }
    if (generation != null && subject.file == null) {
      throw usageError("--generation needs --file");
    }
    return OperatorRun.run(spec(), options, (opened, out, err) -> {
      History history = subject.batch != null
          ? History.ofBatch(opened.ledger(), subject.batch, t -> opened.profiles().flatMap(r -> r.byTable(t)),
              opened.profiles().flatMap(r -> r.deployment().job().dataprocRegion()),
              opened.home().root().resolve("logs"), AttemptResults.of(
                  opened.profiles().map(r -> r.deployment().storage()).orElse(StorageSettings.GOOGLE)))
          : subject.file != null ? History.ofFile(opened.ledger(), subject.file, Optional.ofNullable(generation))
          : History.ofPartition(opened.ledger(), table.table(), subject.partition);
      out.print(options.json() ? InspectFormat.json(history) : InspectFormat.human(history));
      return 0;
    });
  }
}
