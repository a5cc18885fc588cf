package io.files2iceberg.batcher.maintain;

import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.MainRuns;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.core.ledger.BatchIds;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One table's maintenance run: the arguments of {@value #MAIN_CLASS} (what the ledger protects,
 * the options), launched where the table's jobs run (a child JVM, a Dataproc batch), watched with
 * progress on stderr, and its result read back from {@code <metadata.path>/maintain/<runId>.json}
 * (a Dataproc driver's stdout does not come back).
 */
public final class MaintainRun {
  public static final String MAIN_CLASS = "io.files2iceberg.sparkjob.maintain.MaintainMain";

  /**
   * What the operator asked for.
   *
   * @param retention snapshots younger than this are kept
   * @param compact {@code rewrite_data_files} binpack
   * @param sort {@code rewrite_data_files} in the table's order (instead of binpack where it has one)
   * @param sizing the target size and minimum group of either rewrite of data files; the minimum
   *     group of the rewrite of position delete files
   * @param orphanOlderThan {@code remove_orphan_files} of files older than this, if asked for
   */
  public record Options(Duration retention, int retainLast, boolean compact, boolean sort, Compaction sizing,
      boolean rewritePositionDeletes, boolean rewriteManifests, Optional<Duration> orphanOlderThan, boolean dryRun,
      Duration timeout) {}

  public record Compaction(long targetFileSizeBytes, int minInputFiles) {}

  private MaintainRun() {}

  /** {@code maintain-<UTC time>-<8 hex>}. */
  public static String newRunId(Instant now) {
    return BatchIds.of("maintain", now);
  }

  /** Where the main writes its result: {@code <metadata.path>/maintain/<runId>.json}. */
  public static String resultUri(TableProfile profile, String runId) {
    String folder = profile.metadata().path();
    return (folder.endsWith("/") ? folder : folder + "/") + "maintain/" + runId + ".json";
  }

  /** The main's command line. */
  public static List<String> arguments(TableProfile profile, Deployment deployment, MaintenanceGuard.Allowed allowed,
      Options options, Instant now, String resultUri) {
    List<String> args = new ArrayList<>(List.of("--profile", ProfileJson.toJson(profile),
        "--deployment", DeploymentLoader.render(deployment),
        "--retention-cutoff", now.minus(options.retention()).toString(),
        "--retain-last", Integer.toString(options.retainLast()),
        "--protect-newest", Integer.toString(allowed.protectNewest())));
    for (Map.Entry<String, String> batch : allowed.protect().entrySet()) {
      args.add("--protect");
      args.add(batch.getKey() + "=" + batch.getValue());
    }
    if (options.compact()) {
      args.add("--compact");
    }
    if (options.sort()) {
      args.add("--sort");
    }
    if (options.compact() || options.sort() || options.rewritePositionDeletes()) {
      args.addAll(List.of("--target-file-size", Long.toString(options.sizing().targetFileSizeBytes()),
          "--min-input-files", Integer.toString(options.sizing().minInputFiles())));
    }
    if (options.rewritePositionDeletes()) {
      args.add("--rewrite-position-deletes");
    }
    if (options.rewriteManifests()) {
      args.add("--rewrite-manifests");
    }
    options.orphanOlderThan().ifPresent(age -> args.addAll(List.of("--remove-orphans-older-than",
        now.minus(age).toString())));
    if (options.dryRun()) {
      args.add("--dry-run");
    }
    args.addAll(List.of("--result", resultUri));
    return args;
  }

  /**
   * Launches the run and waits for it ({@link MainRuns}).
   *
   * @param storage where a {@code gs://} result is read (the deployment's {@code storage.*})
   * @throws MainRuns.MainFailedException when it fails or prints no result, naming the table and where its log is
   */
  public static MaintainResult run(Launcher launcher, SparkMainRun run, String resultUri, StorageSettings storage,
      Duration timeout, PrintWriter progress) throws InterruptedException {
    JobResult ended = MainRuns.run(launcher, run, "maintain", "maintenance", timeout, progress,
        MainRuns.MainFailedException::new);
    if (ended.exit() != JobExit.LOADED) {
      throw new MainRuns.MainFailedException("table " + run.table() + ": maintenance failed: " + ended.describe());
    }
    String text = MainRuns.readResult(resultUri, storage, "maintenance", MainRuns.MainFailedException::new);
    return MaintainResult.lastIn(text).orElseThrow(() -> new MainRuns.MainFailedException("table " + run.table()
        + ": maintenance ended without a result in " + resultUri + ended.log().map(l -> " (log: " + l + ")")
        .orElse("")));
  }
}
