package io.files2iceberg.batcher.engine.launch.dataproc;

import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.LauncherProvider;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.TableProfile;
import java.util.Map;
import java.util.Optional;

/**
 * Runs the jobs of every profile that sets {@code job.dataproc-region} on Dataproc: a Serverless
 * batch per batch ({@link DataprocLauncher}), or with {@code job.mode = warm} a warm driver on
 * Dataproc ({@link DataprocWarmLauncher}).
 *
 * <p>The batches run in the Google Cloud project named by the environment variable
 * {@value #PROJECT_ENV}, else in the ledger's {@code ledger.firestore-project}.
 */
public final class DataprocLauncherProvider implements LauncherProvider {

  /** The environment variable naming the project the batches run in. */
  public static final String PROJECT_ENV = "GOOGLE_CLOUD_PROJECT";

  private final Map<String, String> env;

  public DataprocLauncherProvider() {
    this(System.getenv());
  }

  DataprocLauncherProvider(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  @Override
  public String name() {
    return "dataproc";
  }

  @Override
  public boolean handles(TableProfile profile, Deployment deployment) {
    return deployment.job().dataprocRegion().isPresent();
  }

  /**
   * A launcher of its own for the profile, on a client of the profile's region.
   *
   * @throws IllegalArgumentException naming the key when the profile's settings cannot work
   *     ({@code Launchers.check} names the profile's file)
   * @throws io.files2iceberg.batcher.engine.launch.LaunchException when the client cannot be created (no
   *     Application Default Credentials)
   */
  @Override
  public Launcher open(TableProfile profile, Deployment deployment) {
    if (deployment.job().modeOnDataproc() == JobSettings.JobMode.WARM) {
      return DataprocWarmLauncher.connect(deployment.job(), projectOf(deployment), deployment.storage());
    }
    return DataprocLauncher.connect(deployment.job(), projectOf(deployment), deployment.storage());
  }

  /** {@value #PROJECT_ENV} when set, else {@code ledger.firestore-project}. */
  String projectOf(Deployment deployment) {
    return Optional.ofNullable(env.get(PROJECT_ENV))
        .filter(project -> !project.isBlank())
        .or(() -> deployment.ledger().firestoreProject())
        .orElseThrow(() -> new IllegalArgumentException("job.dataproc-region: the Dataproc launcher needs a Google"
            + " Cloud project: set " + PROJECT_ENV + " or ledger.firestore-project"));
  }
}
