package io.files2iceberg.batcher.engine.launch.kubernetes;

import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.LauncherProvider;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;

/**
 * Runs the jobs of every profile on Kubernetes when the deployment sets {@code
 * job.kubernetes.namespace}: a driver pod per batch ({@link KubernetesLauncher}). The settings are
 * the deployment's, so every profile shares one launcher, and one client of the API server.
 */
public final class KubernetesLauncherProvider implements LauncherProvider {

  /** The launcher opened for a deployment, shared by its profiles; guarded by {@code this}. */
  private Deployment openedFor;
  private KubernetesLauncher opened;

  @Override
  public String name() {
    return "kubernetes";
  }

  @Override
  public boolean handles(TableProfile profile, Deployment deployment) {
    return deployment.job().kubernetes().isPresent();
  }

  /**
   * The deployment's launcher, opened for its first profile.
   *
   * @throws IllegalArgumentException naming the key when the settings cannot work ({@code
   *     Launchers.check} names the profile's file)
   * @throws io.files2iceberg.batcher.engine.launch.LaunchException when the client cannot be created
   */
  @Override
  public synchronized Launcher open(TableProfile profile, Deployment deployment) {
    if (opened == null || !deployment.equals(openedFor)) {
      opened = KubernetesLauncher.connect(deployment.job(), deployment.storage());
      openedFor = deployment;
    }
    return opened;
  }
}
