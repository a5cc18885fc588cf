package io.files2iceberg.batcher.quarantine;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.CommandGroup;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.DryRunOption;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JsonOption;
import io.files2iceberg.batcher.cli.LedgerOptions;
import io.files2iceberg.batcher.cli.OperatorRun;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.storage.StorageClients;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code quarantine}: lists quarantined messages and files, and releases them after a fix. */
@Command(
    name = "quarantine",
    mixinStandardHelpOptions = true,
    description = {
      "Quarantined messages (notifications that could never be recorded) and files (left out of batches),",
      "with their reasons; release them once the cause is fixed."
    },
    subcommands = {QuarantineCommand.ListCommand.class, QuarantineCommand.ReleaseCommand.class})
public final class QuarantineCommand extends CommandGroup {

  /** {@code quarantine list}. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Lists quarantined messages (id, received time, object, reason) and files (table, partition,"
          + " URI, generation, reason, file id).")
  static final class ListCommand extends CliCommand {
    @Mixin LedgerOptions options;

    @CommandLine.ParentCommand QuarantineCommand parent;

    @Override
    public Integer call() {
      return OperatorRun.run(spec(), options.config(), false, parent.home(options.home()), (opened, out, err) -> {
        Ledger ledger = opened.ledger();
        out.print(options.json() ? QuarantineFormat.json(ledger.quarantinedMessages(), ledger.quarantinedFiles())
            : QuarantineFormat.human(ledger.quarantinedMessages(), ledger.quarantinedFiles()));
        return 0;
      });
    }
  }

  /** {@code quarantine release}. */
  @Command(name = "release", mixinStandardHelpOptions = true,
      description = {
        "Releases a quarantined file (RECORDED again; its partition READY again when it was INGESTED, so the",
        "next batch loads it) or message (its object is looked up in storage, matched to its profile as the",
        "listener would and recorded, then the message record is deleted; needs --config)."
      })
  static final class ReleaseCommand extends CliCommand {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Subject subject;

    static final class Subject {
      @Option(names = "--file", paramLabel = "URI|ID",
          description = "A quarantined file: its file id, gs:// or file:// URI or local path (every quarantined"
              + " generation).")
      String file;

      @Option(names = "--message", paramLabel = "ID", description = "A quarantined message, by its message id.")
      String message;
    }

    @Option(names = "--discard",
        description = "With --message: delete the message even when it names no object, or one that is gone or"
            + " matches no profile.")
    boolean discard;

    @Mixin DryRunOption dryRun;

    @Mixin JsonOption json;

    @Mixin ConfigOption config;

    @Mixin HomeOption home;

    @CommandLine.ParentCommand QuarantineCommand parent;

    @Override
    public Integer call() {
      if (discard && subject.message == null) {
        throw usageError("--discard goes with --message");
      }
      boolean message = subject.message != null;
      return OperatorRun.run(spec(), config.path(), message, parent.home(home), (opened, out, err) -> {
        if (message) {
          MessageRelease release = new MessageRelease(opened.ledger(), opened.registry(),
              () -> StorageClients.shared(opened.registry().deployment().storage()));
          try {
            out.print(QuarantineFormat.releasedMessage(release.release(subject.message, discard, dryRun.dryRun()), json.json()));
          } catch (IllegalStateException e) {
            ErrorOutput.print(err, e.getMessage());
            return ExitCode.FAILED;
          }
          return 0;
        }
        List<FileRecord> files = QuarantinedFiles.named(opened.ledger(), subject.file);
        List<FileRecord> released = dryRun.dryRun() ? files : QuarantinedFiles.release(opened.ledger(), files);
        out.print(QuarantineFormat.releasedFiles(released, dryRun.dryRun(), json.json()));
        return 0;
      });
    }
  }
}
