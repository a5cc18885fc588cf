package io.files2iceberg.batcher.changes;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.MainRuns;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.core.ledger.BatchIds;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One table's change feed: the arguments of {@value #MAIN_CLASS}, launched where the table's jobs
 * run (a child JVM, a Dataproc batch), and its result read back from {@code
 * <metadata.path>/changes/<runId>.json} (a Dataproc driver's stdout does not come back).
 */
public final class ChangesRun {
  public static final String MAIN_CLASS = "io.files2iceberg.sparkjob.change.ChangesMain";

  /** Where the feed starts: the main's option ({@code --since-snapshot}, {@code --since}) and its value. */
  public record Start(String option, String value) {
    public static Start afterSnapshot(long snapshotId) {
      return new Start("--since-snapshot", Long.toString(snapshotId));
    }

    public static Start afterTime(Instant instant) {
      return new Start("--since", instant.toString());
    }
  }

  private ChangesRun() {}

  /** {@code changes-<UTC time>-<8 hex>}. */
  public static String newRunId(Instant now) {
    return BatchIds.of("changes", now);
  }

  /** Where the main writes its result: {@code <metadata.path>/changes/<runId>.json}. */
  public static String resultUri(TableProfile profile, String runId) {
    return MainRuns.resultUri(profile, "changes", runId);
  }

  /** The main's command line. */
  public static List<String> arguments(TableProfile profile, Deployment deployment, Start start, String resultUri) {
    return List.of("--profile", ProfileJson.toJson(profile), "--deployment", DeploymentLoader.render(deployment),
        start.option(), start.value(), "--result", resultUri);
  }

  /**
   * Launches the run and waits for it: the feed, or the main's refusal of the start (a result
   * with {@code refused}, exit 2).
   *
   * @param storage where a {@code gs://} result is read (the deployment's {@code storage.*})
   * @throws MainRuns.MainFailedException when it fails or writes no result, naming the table and where its log is
   */
  public static ChangesResult run(Launcher launcher, SparkMainRun run, String resultUri, StorageSettings storage,
      Duration timeout, PrintWriter progress) throws InterruptedException {
    JobResult ended = MainRuns.run(launcher, run, "changes", "change feed", timeout, progress,
        MainRuns.MainFailedException::new);
    if (ended.exit() != JobExit.LOADED) {
      // A refused start ends the main with exit 2 and a result naming why; a Dataproc batch may
      // report any failed exit, so the result decides, and without one the run failed.
      Optional<ChangesResult> refused;
      try {
        refused = ChangesResult.lastIn(MainRuns.readResult(resultUri, storage, "change feed",
            MainRuns.MainFailedException::new)).filter(result -> result.refused().isPresent());
      } catch (MainRuns.MainFailedException e) {
        refused = Optional.empty();
      }
      return refused.orElseThrow(() -> new MainRuns.MainFailedException("table " + run.table() + ": change feed failed: "
          + ended.describe()));
    }
    String text = MainRuns.readResult(resultUri, storage, "change feed", MainRuns.MainFailedException::new);
    return ChangesResult.lastIn(text).orElseThrow(() -> new MainRuns.MainFailedException("table " + run.table()
        + ": change feed ended without a result in " + resultUri + ended.log().map(l -> " (log: " + l + ")")
        .orElse("")));
  }
}
