package io.files2iceberg.batcher.maintain;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.CommandLineProblem;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.DryRunOption;
import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JobLaunchers;
import io.files2iceberg.batcher.cli.JsonOption;
import io.files2iceberg.batcher.cli.LedgerAccess;
import io.files2iceberg.batcher.cli.TableOption;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.engine.launch.MainRuns;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.storage.StorageClients;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code maintain}: snapshot expiry, compaction or sort, the rewrites of delete files and manifests
 * and orphan removal of the tables, through {@link MaintainRun}, with
 * what the ledger protects ({@link MaintenanceGuard}), then the pruning of the files settled
 * batches left beside their manifests ({@link BatchFilePruning}). A table the main skipped (not
 * created yet) is reported and does not fail the run. Last, the landing cleanup of each table whose
 * profile sets {@code load.after-ingest.action} ({@link LandingCleanup}), in the batcher itself: it
 * needs the ledger and the storage, not Spark.
 */
@Command(
    name = "maintain",
    mixinStandardHelpOptions = true,
    description = {
      "Expires old snapshots and compacts small files of each table (Iceberg's expire_snapshots and",
      "rewrite_data_files), where the table's jobs run (locally, as a Dataproc Serverless batch or as a",
      "driver pod on Kubernetes); on request also sorts (--sort), rewrites position delete files and",
      "manifests, and removes orphan files older than --orphan-older-than under the table's location",
      "(--remove-orphan-files).",
      "Keeps exactly-once intact: the newest snapshot carrying the batch id of every batch that may run",
      "again (in flight with an expired lease, FAILED, and the extract.keep-checkpoints newest batches),",
      "and every snapshot after it, is never expired. Refuses (exit 1, naming the batch) while a batch",
      "of the table is PLANNED or RUNNING with a live lease. Skips a table not created yet (no batch has",
      "loaded it), which is no failure. Then deletes, for every table, the files each batch left beside",
      "its manifest (the manifest, its attempts' results, local logs and pid files) once the batch is",
      "COMMITTED or gone from the ledger and older than --batch-files-retention; never those of a",
      "PLANNED, RUNNING or FAILED batch. Last, for each table whose profile sets load.after-ingest.action to",
      "delete or move, deletes or moves the landed objects of the files loaded longer ago than",
      "load.after-ingest.retention, each pinned to the file's generation (an object rewritten since stays),",
      "and records each in the ledger as DELETED or ARCHIVED; --skip-cleanup leaves the landing alone."
    })
public final class MaintainCommand extends CliCommand {
  /**
   * Test only: the instant landing cleanup takes as now (ISO-8601), so that an end-to-end test can
   * make loaded files look older than a retention of days. Read here and nowhere else.
   */
  static final String CLEANUP_NOW_PROPERTY = "files2iceberg.cleanup.now";

  /** The youngest orphan file removed: the spark job's floor too (far beyond the longest job, 2h by default). */
  static final Duration ORPHAN_FLOOR = Duration.ofDays(1);
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)(i?b)?", Pattern.CASE_INSENSITIVE);

  @Mixin ConfigOption.Required config;

  @Mixin TableOption only;

  @Option(names = "--retention", paramLabel = "DURATION", defaultValue = "7d",
      description = "Snapshots younger than this are kept: 7d, 12h, 0 (default: ${DEFAULT-VALUE}).")
  String retention;

  @Option(names = "--retain-last", paramLabel = "N", defaultValue = "1",
      description = "The most recent snapshots always kept, at least 1 (default: ${DEFAULT-VALUE}).")
  int retainLast;

  @Option(names = "--compact", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Rewrite small data files (binpack) before expiring; --no-compact skips it (default: on).")
  boolean compact;

  @Option(names = "--sort", description = "Rewrite data files in the table's order instead of binpack: the profile's"
      + " maintain.sort-by or maintain.z-order-by, else the table's sort order; a table with none is reported, and"
      + " compacted if --compact (default: off).")
  boolean sort;

  @Option(names = "--target-file-size", paramLabel = "SIZE", defaultValue = "512MB",
      description = "Compaction's and the sort's target file size: 512MB, 128m, 1g or bytes (default: ${DEFAULT-VALUE}).")
  String targetFileSize;

  @Option(names = "--min-input-files", paramLabel = "N", defaultValue = "5",
      description = "Compaction and the sort rewrite a partition's small files, and --rewrite-position-deletes its"
          + " delete files, when it has at least N (default: ${DEFAULT-VALUE}).")
  int minInputFiles;

  @Option(names = "--rewrite-position-deletes", description = "Rewrite the position delete files of merge-on-read"
      + " tables (rewrite_position_delete_files): a partition's, once it has --min-input-files of them, merged and"
      + " without deletes of files gone (default: off).")
  boolean rewritePositionDeletes;

  @Option(names = "--rewrite-manifests", description = "Rewrite the data manifests, grouped by partition"
      + " (rewrite_manifests), for faster planning (default: off).")
  boolean rewriteManifests;

  @Option(names = "--remove-orphan-files", description = "After the expiry, delete the files under the table's"
      + " location that no snapshot references and that are older than --orphan-older-than (remove_orphan_files)"
      + " (default: off).")
  boolean removeOrphanFiles;

  @Option(names = "--orphan-older-than", paramLabel = "DURATION", defaultValue = "3d",
      converter = DurationConverter.class,
      description = "Only files older than this are removed as orphans, at least 1d: a batch's job writes its files"
          + " before it commits them (default: ${DEFAULT-VALUE}).")
  Duration orphanOlderThan;

  @Option(names = "--skip-table", paramLabel = "TABLE",
      description = "A table to leave alone (repeatable): one maintained on a schedule of its own; a table no profile"
          + " loads is an error.")
  List<String> skipTables = new ArrayList<>();

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "2h", converter = DurationConverter.class,
      description = "The longest one table's maintenance may run before it is cancelled (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(names = "--batch-files-retention", paramLabel = "DURATION", defaultValue = "7d",
      converter = DurationConverter.class,
      description = "The files of a batch COMMITTED (or gone from the ledger) longer ago than this are deleted: 7d,"
          + " 12h (default: ${DEFAULT-VALUE}).")
  Duration batchFilesRetention;

  @Option(names = "--skip-cleanup", description = "Leave every table's landing alone this run, whatever its"
      + " load.after-ingest says (default: off).")
  boolean skipCleanup;

  @Mixin DryRunOption dryRun;

  @Mixin JsonOption json;

  @Mixin HomeOption home;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = out();
    PrintWriter err = err();
    MaintainRun.Options options;
    try {
      options = options();
    } catch (IllegalArgumentException e) {
      return CommandLineProblem.print(err, e.getMessage());
    }
    Home resolvedHome = home.resolve();
    LedgerAccess.Result opened = LedgerAccess.open(config.path(), true, resolvedHome, Clock.systemUTC(), err);
    if (opened instanceof LedgerAccess.Failed failed) {
      return failed.exitCode();
    }
    try (LedgerAccess.Opened access = ((LedgerAccess.Ok) opened).opened()) {
      Optional<String> skipProblem = skipProblem(access.registry().profiles());
      if (skipProblem.isPresent()) {
        ErrorOutput.print(err, skipProblem.get());
        return ExitCode.INVALID;
      }
      List<TableProfile> profiles = access.registry().profiles().stream()
          .filter(p -> only.table() == null || p.table().equals(only.table()))
          .filter(p -> !skipTables.contains(p.table())).toList();
      if (profiles.isEmpty() && only.table() == null) {
        // Every table is maintained on a schedule of its own: this run has nothing to do, and that is no error.
        err.println("nothing to maintain: --skip-table leaves out every table of " + config.path());
        err.flush();
        return 0;
      }
      if (profiles.isEmpty()) {
        ErrorOutput.print(err, "no profile of " + config.path() + " loads table " + only.table());
        return ExitCode.INVALID;
      }
      Optional<Launchers> checked =
          JobLaunchers.open(profiles, access.registry().deployment(), resolvedHome, config.path(), err);
      if (checked.isEmpty()) {
        return ExitCode.INVALID;
      }
      try (Launchers launchers = checked.get()) {
        return maintain(access, launchers, profiles, options, resolvedHome.root().resolve("logs"), out, err);
      }
    }
  }

  /**
   * Why {@code --skip-table} cannot be taken as given: a table no profile loads (a typo would
   * maintain the table a schedule meant to spare), or the one table {@code --table} names.
   */
  private Optional<String> skipProblem(List<TableProfile> all) {
    for (String skipped : skipTables) {
      if (all.stream().noneMatch(p -> p.table().equals(skipped))) {
        return Optional.of("--skip-table " + skipped + ": no profile of " + config.path() + " loads that table");
      }
    }
    if (only.table() != null && skipTables.contains(only.table())) {
      return Optional.of("--table " + only.table() + " is also given to --skip-table: nothing to maintain");
    }
    return Optional.empty();
  }

  /** @param fallbackLogs where the local launcher logs a profile whose metadata path is not local */
  private int maintain(LedgerAccess.Opened access, Launchers launchers, List<TableProfile> profiles,
      MaintainRun.Options options, Path fallbackLogs, PrintWriter out, PrintWriter err) throws InterruptedException {
    List<MaintainResult> results = new ArrayList<>();
    List<MaintenanceGuard.Refused> refused = new ArrayList<>();
    Map<String, String> failed = new LinkedHashMap<>();
    List<BatchFilePruning.Pruned> pruned = new ArrayList<>();
    List<LandingCleanup.Cleaned> cleaned = new ArrayList<>();
    LandingCleanup cleanup = new LandingCleanup(access.ledger(),
        () -> StorageClients.shared(access.registry().deployment().storage()), cleanupClock());
    for (TableProfile profile : profiles) {
      Instant now = Instant.now();
      try {
        MaintenanceGuard.Decision decision = MaintenanceGuard.decide(access.ledger(), profile, now);
        if (decision instanceof MaintenanceGuard.Refused refusal) {
          ErrorOutput.print(err, refusal.message());
          refused.add(refusal);
        } else {
          String runId = MaintainRun.newRunId(now);
          String resultUri = MaintainRun.resultUri(profile, runId);
          List<String> args = MaintainRun.arguments(profile, access.registry().deployment(),
              (MaintenanceGuard.Allowed) decision, options, now, resultUri);
          MaintainResult result = MaintainRun.run(launchers.apply(profile),
              new SparkMainRun(profile.table(), runId, MaintainRun.MAIN_CLASS, args), resultUri,
              access.registry().deployment().storage(), options.timeout(), err);
          results.add(result);
          if (!json.json()) {
            out.print(MaintainFormat.human(result));
            out.flush();
          }
        }
      } catch (MainRuns.MainFailedException | LaunchException | LedgerUnavailableException e) {
        ErrorOutput.print(err, e.getMessage());
        failed.put(profile.table(), e.getMessage());
      }
      // A refused or failed table still has its batch files pruned: which may go is each batch's
      // own state, whatever else of the table is in flight.
      BatchFilePruning.Pruned files = BatchFilePruning.prune(access.ledger(), profile, fallbackLogs,
          access.registry().deployment().storage(), now.minus(batchFilesRetention), options.dryRun());
      pruned.add(files);
      files.failed().forEach((file, why) -> ErrorOutput.print(err, "table " + profile.table() + ": batch files: "
          + file + ": " + why));
      if (!json.json()) {
        out.print(MaintainFormat.human(files));
        out.flush();
      }
      // The landing too is cleaned whatever the table's maintenance did: the ledger alone decides
      // which files may go (it refuses while a rollback or drop of the table is unfinished).
      Optional<LandingCleanup.Cleaned> landing =
          skipCleanup ? Optional.empty() : cleanup.clean(profile, options.dryRun());
      landing.ifPresent(done -> {
        cleaned.add(done);
        done.failed().forEach((object, why) -> ErrorOutput.print(err, "table " + profile.table()
            + ": landing cleanup: " + object + ": " + why));
        if (!json.json()) {
          out.print(MaintainFormat.human(done));
          out.flush();
        }
      });
      err.flush();
    }
    if (json.json()) {
      out.print(MaintainFormat.json(results, refused, failed, pruned, cleaned));
      out.flush();
    }
    boolean allPruned = pruned.stream().allMatch(files -> files.failed().isEmpty());
    boolean allCleaned = cleaned.stream().allMatch(done -> done.failed().isEmpty());
    return refused.isEmpty() && failed.isEmpty() && allPruned && allCleaned ? 0 : ExitCode.FAILED;
  }

  /** The system clock, unless a test set {@value #CLEANUP_NOW_PROPERTY}. */
  private static Clock cleanupClock() {
    String now = System.getProperty(CLEANUP_NOW_PROPERTY);
    return now == null ? Clock.systemUTC() : Clock.fixed(Instant.parse(now), java.time.ZoneOffset.UTC);
  }

  private MaintainRun.Options options() {
    Duration kept = retention.strip().matches("0+\\s*[a-zA-Z]*") ? Duration.ZERO : retentionDuration();
    if (retainLast < 1) {
      throw new IllegalArgumentException("--retain-last: must be at least 1 (the current snapshot), got " + retainLast);
    }
    if (minInputFiles < 1) {
      throw new IllegalArgumentException("--min-input-files: must be at least 1, got " + minInputFiles);
    }
    if (orphanOlderThan.compareTo(ORPHAN_FLOOR) < 0) {
      throw new IllegalArgumentException("--orphan-older-than: must be at least 1d, got " + orphanOlderThan.toHours()
          + "h: a batch's job writes its data files before it commits them, and a job in flight or relaunched by"
          + " recovery may still commit files that old");
    }
    return new MaintainRun.Options(kept, retainLast, compact, sort,
        new MaintainRun.Compaction(bytes(targetFileSize), minInputFiles), rewritePositionDeletes, rewriteManifests,
        removeOrphanFiles ? Optional.of(orphanOlderThan) : Optional.empty(), dryRun.dryRun(), timeout);
  }

  private Duration retentionDuration() {
    try {
      return new DurationConverter().convert(retention);
    } catch (CommandLine.TypeConversionException e) {
      throw new IllegalArgumentException("--retention: " + e.getMessage());
    }
  }

  /** {@code 512MB}, {@code 128m}, {@code 1GiB}, {@code 1048576}: binary units. */
  static long bytes(String text) {
    Matcher m = SIZE.matcher(text.strip());
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new IllegalArgumentException("--target-file-size: expected a size such as 512MB, 128m or 1g, got '" + text
          + "'");
    }
    int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      default -> 0;
    };
    return Long.parseLong(m.group(1)) << shift;
  }
}
