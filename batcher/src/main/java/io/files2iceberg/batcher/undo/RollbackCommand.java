package io.files2iceberg.batcher.undo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.cli.AllowMissingOption;
import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.CommandLineProblem;
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
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code rollback}: the table back to an earlier snapshot, and the ledger with it. In this order,
 * each step safe to repeat: the plan (a dry run of the table side: the current snapshot C, the
 * target S, the snapshots between and their batches); the change written down INTENDED in the
 * ledger (from C to S, its batches, partitions, who and why), after which no batch of the table is
 * claimed; the table rolled back, only if it is still at C; the ledger changed (the batches' files
 * RECORDED again, their partitions READY or HELD, the batches ROLLED_BACK) and the change APPLIED.
 * A run killed anywhere is finished by running it again: the table side finds the table at S
 * already and the ledger side moves what is left.
 */
@Command(
    name = "rollback",
    mixinStandardHelpOptions = true,
    description = {
      "Rolls a table back to an earlier snapshot of its history (Iceberg's rollback_to_snapshot) and its",
      "ledger with it: the files of every batch committed after that snapshot are RECORDED again and their",
      "partitions READY, so the next batch run loads them again (with --hold: HELD, which batches skip until",
      "`release` or `retry --partition`, so a broken profile can be fixed first). The rows rejected by those",
      "batches leave <table>__rejected too. Refused, naming the reason, when the target is not an ancestor",
      "of the current snapshot, has been expired or is unknown, or while a batch of the table is in flight.",
      "The change is written to the ledger before the table is touched: a rollback killed on the way is",
      "finished by running the same command again. Who asked, when and why are kept (`inspect --table`).",
      "A batch to undo whose files landing cleanup deleted (load.after-ingest.action = delete) is refused,",
      "naming them, unless --allow-missing (their rows are lost); moved files are read from their archive.",
      "Exit codes: 0 rolled back (or nothing to undo), 1 failed or refused by the table, 2 invalid usage or",
      "refused (unknown, expired or non-ancestor target, or deleted files without --allow-missing)."
    })
public final class RollbackCommand extends CliCommand {
  static final String KIND = "rollback";
  /** For crash tests: see {@link ChangeRun#PAUSE_AFTER_TABLE}. */
  public static final String PAUSE_AFTER_TABLE = ChangeRun.PAUSE_AFTER_TABLE;

  @Mixin ConfigOption.Required config;

  @Mixin TableOption.Required table;

  static final class Target {
    @Option(names = "--to-snapshot", paramLabel = "SNAPSHOT_ID", required = true,
        description = "The snapshot to roll back to: an ancestor of the current one (`changes` lists them).")
    Long snapshot;

    @Option(names = "--to-tag", paramLabel = "TAG", required = true,
        description = "The tagged snapshot to roll back to: files2iceberg-before-<batch id>, kept by maintain while"
            + " the tag lives.")
    String tag;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Target target;

  @Option(names = "--hold", description = "Hold the rolled-back partitions (HELD) instead of loading them again at"
      + " the next batch run: `release` lets them go.")
  boolean hold;

  @Mixin ChangeRun.Options change;

  @Mixin AllowMissingOption allowMissing;

  @Mixin DryRunOption dryRun;

  @Mixin JsonOption json;

  @Mixin HomeOption home;

  private Deployment deployment;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = err();
    return ChangeRun.run(config, home, table.table(), err, this::rollback);
  }

  private int rollback(LedgerAccess.Opened opened, TableProfile profile, Launchers launchers)
      throws InterruptedException {
    PrintWriter out = out();
    PrintWriter err = err();
    Ledger ledger = opened.ledger();
    deployment = opened.registry().deployment();
    try {
      Optional<TableChange> unfinished = ChangeRun.intended(ledger, profile.table());
      if (unfinished.isPresent()) {
        TableChange open = unfinished.get();
        if (open.kind() != TableChange.ChangeKind.ROLLBACK || target.snapshot == null
            || !open.toSnapshot().equals(Optional.of(target.snapshot))) {
          ErrorOutput.print(err, ChangeRun.unfinished(open));
          return ExitCode.FAILED;
        }
        if (dryRun.dryRun()) {
          print(out, "rollback " + open.changeId() + " of " + profile.table() + " to snapshot "
              + open.toSnapshot().orElseThrow() + " is unfinished: running it again finishes it (dry run: nothing"
              + " changed)", open, null);
          return 0;
        }
        err.println("rollback " + profile.table() + ": finishing " + open.changeId() + " (to snapshot "
            + open.toSnapshot().orElseThrow() + ", asked by " + open.actor() + " at " + open.createdAt() + ")");
        err.flush();
        return applyToTable(ledger, profile, launchers, open, out, err);
      }

      // The plan: the table side's dry run.
      List<String> targetArgs = target.snapshot != null
          ? List.of("--to-snapshot", Long.toString(target.snapshot)) : List.of("--to-tag", target.tag);
      List<String> planArgs = new ArrayList<>(targetArgs);
      planArgs.add("--dry-run");
      TableUndo.Result plan = TableUndo.run(launchers.apply(profile), profile, deployment, KIND,
          TableUndo.ROLLBACK_MAIN, BatchIds.of("rollback-plan", Instant.now()), planArgs, change.timeout, err);
      if (plan.outcome().equals(TableUndo.REFUSED)) {
        ErrorOutput.print(err, "table " + profile.table() + ": rollback refused: " + plan.why());
        return ExitCode.INVALID;
      }
      if (!plan.outcome().equals(TableUndo.PLANNED)) {
        if (plan.outcome().equals("nothing-to-undo")) {
          print(out, "rollback " + profile.table() + ": snapshot " + plan.body().path("targetSnapshot").asLong()
              + " is the current snapshot; nothing to undo", null, plan.body());
          return 0;
        }
        ErrorOutput.print(err, "table " + profile.table() + ": rollback plan failed: " + plan.why());
        return ExitCode.FAILED;
      }
      TableChange intended = intent(ledger, profile, plan.body());
      Optional<String> missing = allowMissing.refusal("rollback of table " + profile.table(),
          deletedToReload(ledger, intended));
      if (missing.isPresent()) {
        ErrorOutput.print(err, missing.get());
        return ExitCode.INVALID;
      }
      if (dryRun.dryRun()) {
        print(out, describePlan(ledger, intended, plan.body()) + "\n(dry run: nothing changed)", null, plan.body());
        return 0;
      }
      TableChange written = ledger.intendChange(intended);
      // Cleanup may have deleted objects between the check and the intent; from the intent on, the
      // ledger refuses to clean the table, so this second look is the last word.
      Optional<String> deletedSince = allowMissing.refusal("rollback of table " + profile.table(),
          deletedToReload(ledger, written));
      if (deletedSince.isPresent()) {
        ledger.abandonChange(written.changeId(), "landing cleanup deleted files to load again meanwhile");
        ErrorOutput.print(err, deletedSince.get() + " (nothing changed: " + written.changeId() + " abandoned)");
        return ExitCode.INVALID;
      }
      err.println(describePlan(ledger, written, plan.body()));
      err.flush();
      return applyToTable(ledger, profile, launchers, written, out, err);
    } catch (IllegalTransitionException e) {
      ErrorOutput.print(err, e.getMessage());
      return ExitCode.FAILED;
    } catch (MainRuns.MainFailedException | LaunchException | LedgerUnavailableException e) {
      ErrorOutput.print(err, e.getMessage() + unfinishedHint(ledger, profile.table()));
      return ExitCode.FAILED;
    }
  }

  /** The table side, guarded by the snapshot the change was planned on, then the ledger side. */
  private int applyToTable(Ledger ledger, TableProfile profile, Launchers launchers, TableChange change,
      PrintWriter out, PrintWriter err) throws InterruptedException {
    List<String> args = List.of("--to-snapshot", Long.toString(change.toSnapshot().orElseThrow()), "--expect-current",
        Long.toString(change.fromSnapshot().orElseThrow()));
    TableUndo.Result done = TableUndo.run(launchers.apply(profile), profile, deployment, KIND,
        TableUndo.ROLLBACK_MAIN, change.changeId() + "-table", args, this.change.timeout, err);
    switch (done.outcome()) {
      case "rolled-back", "already-rolled-back" -> {
        ChangeRun.pauseAfterTable();
        TableChange applied = ledger.applyChange(change.changeId());
        ChangeRun.publishChanges(deployment, home.resolve(), ledger);
        print(out, "rolled back " + profile.table() + " to snapshot " + applied.toSnapshot().orElseThrow() + " ("
            + applied.changeId() + "): " + applied.outcome().orElse("") + (applied.hold()
                ? "; `release --table " + profile.table() + " --all` lets them load" : "; the next batch run loads them"),
            applied, done.body());
        return 0;
      }
      case TableUndo.REFUSED -> {
        // Nothing was changed in the table: the change is given up, and claims go on.
        ledger.abandonChange(change.changeId(), done.why());
        ErrorOutput.print(err, "table " + profile.table() + ": rollback refused, nothing changed: " + done.why());
        return ExitCode.FAILED;
      }
      default -> {
        ErrorOutput.print(err, "table " + profile.table() + ": rollback failed: " + done.why()
            + unfinishedHint(ledger, profile.table()));
        return ExitCode.FAILED;
      }
    }
  }

  /**
   * The files the change loads again (the INGESTED or since DROPPED files of the batches it undoes)
   * whose landed object landing cleanup deleted: a moved one is read from its archive.
   */
  private static List<FileRecord> deletedToReload(Ledger ledger, TableChange change) {
    List<FileRecord> files = new ArrayList<>();
    for (String batchId : change.batchIds()) {
      files.addAll(ledger.filesOfBatch(batchId));
    }
    return AllowMissingOption.deleted(files);
  }

  /** The change to write down: from the plan, with the ledger's own partitions of the batches it knows. */
  private TableChange intent(Ledger ledger, TableProfile profile, JsonNode plan) {
    List<String> batchIds = new ArrayList<>();
    plan.path("batchIds").forEach(id -> batchIds.add(id.asText()));
    List<String> undoneChanges = new ArrayList<>();
    Set<String> partitions = new LinkedHashSet<>();
    for (JsonNode snapshot : plan.path("undone")) {
      if (snapshot.hasNonNull("changeId")) {
        undoneChanges.add(snapshot.path("changeId").asText());
      }
      snapshot.path("partitions").forEach(p -> partitions.add(p.asText()));
    }
    for (String batchId : batchIds) {
      ledger.batch(batchId).map(BatchRecord::partitions).ifPresent(partitions::addAll);
    }
    Instant now = Instant.now();
    return new TableChange(BatchIds.of(KIND, now), profile.table(), TableChange.ChangeKind.ROLLBACK,
        TableChange.ChangeState.INTENDED, Optional.of(plan.path("fromSnapshot").asLong()),
        Optional.of(plan.path("targetSnapshot").asLong()), batchIds, undoneChanges, List.copyOf(partitions), hold,
        change.actor(), change.reason(), Optional.empty(), now, now);
  }

  private static String describePlan(Ledger ledger, TableChange change, JsonNode plan) {
    StringBuilder text = new StringBuilder("rollback " + change.table() + " from snapshot "
        + change.fromSnapshot().orElseThrow() + " to snapshot " + change.toSnapshot().orElseThrow()
        + plan.path("targetTag").asText("").transform(tag -> tag.isEmpty() ? "" : " (tag " + tag + ")") + " undoes "
        + plan.path("undone").size() + " snapshot(s):");
    for (JsonNode snapshot : plan.path("undone")) {
      text.append("\n  ").append(snapshot.path("snapshotId").asLong()).append(' ')
          .append(snapshot.path("committedAt").asText()).append(' ');
      if (snapshot.hasNonNull("batchId")) {
        String batchId = snapshot.path("batchId").asText();
        text.append("batch ").append(batchId).append(ledger.batch(batchId).map(b -> " (" + b.fileIds().size()
            + " file(s))").orElse(" (pruned from the ledger)"));
      } else if (snapshot.hasNonNull("change")) {
        text.append(snapshot.path("change").asText()).append(' ').append(snapshot.path("changeId").asText());
      } else {
        text.append(snapshot.path("operation").asText()).append(", not written by files2iceberg");
      }
      if (snapshot.path("partitions").size() > 0) {
        List<String> listed = new ArrayList<>();
        snapshot.path("partitions").forEach(p -> listed.add(p.asText()));
        text.append(": ").append(String.join(", ", listed));
      }
    }
    text.append("\n  partitions ").append(change.hold() ? "held: " : "to load again: ")
        .append(change.partitions().isEmpty() ? "(from the ledger's files)" : String.join(", ", change.partitions()));
    if (plan.path("schemaDiffers").asBoolean()) {
      text.append("\n  note: ").append(plan.path("schemaNote").asText());
    }
    return text.toString();
  }

  private static String unfinishedHint(Ledger ledger, String table) {
    try {
      return ChangeRun.intended(ledger, table)
          .map(c -> "; " + c.kind().code() + " " + c.changeId() + " stays intended (no batch of the table is claimed"
              + " meanwhile): run the same command again to finish it")
          .orElse("");
    } catch (RuntimeException e) {
      return "";
    }
  }

  private void print(PrintWriter out, String text, TableChange applied, JsonNode table) {
    if (json.json()) {
      ObjectNode line = JsonLines.record("rollback").put("table", this.table.table()).put("dryRun", dryRun.dryRun());
      if (applied != null) {
        line.set("change", ChangeJson.of(applied));
      }
      if (table != null) {
        line.set("tableSide", table);
      }
      out.println(JsonLines.line(line));
    } else {
      out.println(text);
    }
    out.flush();
  }
}
