package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;

/**
 * A launcher that lives in its own package or module, found through {@link java.util.ServiceLoader}
 * (registered in {@code META-INF/services/io.files2iceberg.batcher.engine.launch.LauncherProvider}), as the
 * Dataproc Serverless launcher is. {@link Launchers} asks the providers first; a profile no
 * provider handles runs on the local launcher.
 *
 * <p>Implementations have a public no-argument constructor.
 */
public interface LauncherProvider {

  /** What it launches on, for messages: {@code dataproc}. */
  String name();

  /**
   * Whether this provider runs the job of that table in that deployment, e.g. the deployment's
   * {@code job.dataproc-region} is set.
   */
  boolean handles(TableProfile profile, Deployment deployment);

  /**
   * A launcher for the table's jobs. Called once per profile per process; may return a shared
   * launcher.
   *
   * @throws IllegalArgumentException naming the profile and the key when its settings cannot work
   *     (reported as a configuration error)
   */
  Launcher open(TableProfile profile, Deployment deployment);
}
