package io.files2iceberg.batcher.engine.launch.kubernetes;

import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.LauncherProvider;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;

/**
 * Runs the jobs of every profile on Kubernetes when the deployment sets {@code
 * job.kubernetes.namespace}: a driver pod per batch ({@link KubernetesLauncher}).
 */
public final class KubernetesLauncherProvider implements LauncherProvider {

  @Override
  public String name() {
    return "kubernetes";
  }

  @Override
  public boolean handles(TableProfile profile, Deployment deployment) {
    return deployment.job().kubernetes().isPresent();
  }

  /**
   * A launcher of its own for the profile.
   *
   * @throws IllegalArgumentException naming the key when the settings cannot work ({@code
   *     Launchers.check} names the profile's file)
   * @throws io.files2iceberg.batcher.engine.launch.LaunchException when the client cannot be created
   */
  @Override
  public Launcher open(TableProfile profile, Deployment deployment) {
    return KubernetesLauncher.connect(deployment.job(), deployment.storage());
  }
}
