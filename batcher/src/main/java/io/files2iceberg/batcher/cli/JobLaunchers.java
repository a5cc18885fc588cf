package io.files2iceberg.batcher.cli;

import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The launchers the commands that run Spark ({@code batch}, {@code replay}/{@code backfill} with
 * {@code --run}, {@code maintain}) start jobs with: the registered providers (Dataproc) and a local
 * launcher on the job build this command runs from, checked against the profiles before anything
 * is claimed.
 */
public final class JobLaunchers {
  private JobLaunchers() {}

  /** The launchers, or empty after printing each profile that cannot be launched (then exit 2). */
  public static Optional<Launchers> open(List<TableProfile> profiles, Deployment deployment, Home home, Path config,
      PrintWriter err) {
    Launchers launchers = Launchers.discover(deployment, () -> LocalSparkLauncher.forMode(
        LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")), home, deployment.job()));
    List<String> problems = launchers.check(profiles);
    if (!problems.isEmpty()) {
      launchers.close();
      ConfigProblems.print(err, config.toString(), problems);
      return Optional.empty();
    }
    return Optional.of(launchers);
  }
}
