package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher of each table: the first {@link LauncherProvider} on the classpath that {@link
 * LauncherProvider#handles handles} the profile (Dataproc Serverless when {@code
 * job.dataproc-region} is set, Kubernetes when {@code job.kubernetes.namespace} is), else the local
 * launcher. Opens each launcher once per profile and
 * closes them all.
 */
public final class Launchers implements Function<TableProfile, Launcher>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Launchers.class);

  private final Deployment deployment;
  private final List<LauncherProvider> providers;
  private final Supplier<Launcher> local;
  private final Map<String, Launcher> byProfile = new ConcurrentHashMap<>();
  private volatile Launcher localLauncher;

  /**
   * @param deployment the deployment's settings, whose {@code job} section the providers read
   * @param providers asked in order
   * @param local the local launcher, created on first use (it needs the job's build)
   */
  public Launchers(Deployment deployment, List<LauncherProvider> providers, Supplier<Launcher> local) {
    this.deployment = Objects.requireNonNull(deployment, "deployment");
    this.providers = List.copyOf(providers);
    this.local = Objects.requireNonNull(local, "local");
  }

  /** The providers registered through {@link ServiceLoader}, and the local launcher. */
  public static Launchers discover(Deployment deployment, Supplier<Launcher> local) {
    List<LauncherProvider> found = new ArrayList<>();
    ServiceLoader.load(LauncherProvider.class, Launchers.class.getClassLoader()).forEach(found::add);
    return new Launchers(deployment, found, local);
  }

  /**
   * Problems that keep a profile's jobs from starting, one line each naming the profile and the key;
   * empty when every profile can be launched. Opens every launcher, so that a missing job build or
   * a bad Dataproc setting is a configuration error before anything is claimed.
   */
  public List<String> check(List<TableProfile> profiles) {
    List<String> problems = new ArrayList<>();
    for (TableProfile profile : profiles) {
      try {
        apply(profile);
      } catch (LaunchException | IllegalArgumentException | IllegalStateException e) {
        problems.add(profile.source() + ": " + e.getMessage());
      }
    }
    return problems;
  }

  /**
   * Prepares the launcher of every profile ({@link Launcher#prepare}); one that cannot is logged,
   * and its first launch tries again.
   */
  public void prepare(List<TableProfile> profiles) {
    java.util.Set<Launcher> prepared = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (TableProfile profile : profiles) {
      Launcher launcher = apply(profile);
      if (prepared.add(launcher)) {
        try {
          launcher.prepare();
        } catch (LaunchException e) {
          LOG.warn("Table {}: cannot prepare {}: {}", profile.table(), launcher, e.getMessage());
        }
      }
    }
  }

  /** The profile's launcher, opened on first use. */
  @Override
  public Launcher apply(TableProfile profile) {
    return byProfile.computeIfAbsent(profile.name(), name -> open(profile));
  }

  private Launcher open(TableProfile profile) {
    if (deployment.job().dataprocRegion().isPresent() && deployment.job().kubernetes().isPresent()) {
      throw new IllegalArgumentException("job.kubernetes.namespace and job.dataproc-region are both set: the jobs run"
          + " either on Kubernetes or on Dataproc; remove one of them");
    }
    Optional<LauncherProvider> provider = providers.stream().filter(p -> p.handles(profile, deployment)).findFirst();
    if (provider.isPresent()) {
      LOG.info("Table {}: jobs run on {}", profile.table(), provider.get().name());
      return provider.get().open(profile, deployment);
    }
    if (deployment.job().dataprocRegion().isPresent()) {
      throw new IllegalStateException("job.dataproc-region is set (" + deployment.job().dataprocRegion().get()
          + ") but no Dataproc launcher is on the classpath");
    }
    if (deployment.job().kubernetes().isPresent()) {
      throw new IllegalStateException("job.kubernetes.namespace is set ("
          + deployment.job().kubernetes().get().namespace() + ") but no Kubernetes launcher is on the classpath");
    }
    synchronized (this) {
      if (localLauncher == null) {
        localLauncher = local.get();
      }
      return localLauncher;
    }
  }

  @Override
  public void close() {
    for (Launcher launcher : byProfile.values()) {
      try {
        launcher.close();
      } catch (RuntimeException e) {
        LOG.warn("Cannot close launcher {}: {}", launcher, e.toString());
      }
    }
    byProfile.clear();
  }
}
