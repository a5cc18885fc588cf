package io.files2iceberg.core.profile;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How the Spark job runs: the {@code job} section of the deployment file, for every table.
 *
 * @param sparkProperties Spark properties for the job, passed as they are
 * @param master Spark master for the local launcher, {@code local[*]} by default
 * @param dataprocRegion Dataproc Serverless region; empty means the local launcher
 * @param runtimeVersion Dataproc Serverless runtime version
 * @param serviceAccount the service account the Dataproc batch runs as
 * @param subnetwork the subnetwork URI of the Dataproc batch
 * @param jarUri the job's shaded jar, on {@code gs://} for Dataproc
 * @param leaseTimeout a RUNNING batch not renewed for this long is recovered
 * @param maxAttempts attempts per partition before it is marked FAILED
 * @param mode how jobs start: in a warm driver that takes batch after batch, or a run of their own
 *     per batch; empty is each launcher's default ({@link #modeOnLocal}, {@link #modeOnDataproc})
 * @param warmIdleTimeout a warm driver with no batch for this long exits
 * @param warmDataproc where a warm driver runs on Dataproc ({@code job.mode = warm} with {@code
 *     job.dataproc-region}): a Serverless batch or a job on {@code job.dataproc-cluster}
 * @param dataprocCluster the Dataproc cluster a warm driver's job runs on ({@link WarmPlace#CLUSTER})
 * @param warmTtl the longest a warm driver's Serverless batch lives ({@code executionConfig.ttl})
 * @param warmFolder the {@code gs://} folder of the warm driver on Dataproc; empty: {@code warm/}
 *     under each table's {@code metadata.path}
 * @param kubernetes where the job runs on Kubernetes ({@code job.kubernetes.*}); empty unless {@code
 *     job.kubernetes.namespace} is set, which selects the Kubernetes launcher
 */
public record JobSettings(
    Map<String, String> sparkProperties,
    String master,
    Optional<String> dataprocRegion,
    String runtimeVersion,
    Optional<String> serviceAccount,
    Optional<String> subnetwork,
    Optional<String> jarUri,
    Duration leaseTimeout,
    int maxAttempts,
    Optional<JobMode> mode,
    Duration warmIdleTimeout,
    WarmPlace warmDataproc,
    Optional<String> dataprocCluster,
    Duration warmTtl,
    Optional<String> warmFolder,
    Optional<KubernetesSettings> kubernetes) {

  /** How long a warm driver waits for a batch before it exits, unless {@code job.warm.idle-timeout} says. */
  public static final Duration DEFAULT_WARM_IDLE_TIMEOUT = Duration.ofMinutes(2);

  /** How long a warm driver's Dataproc Serverless batch may live, unless {@code job.warm.ttl} says. */
  public static final Duration DEFAULT_WARM_TTL = Duration.ofHours(4);

  /** Where a warm driver runs on Dataproc: {@code job.warm.dataproc}. */
  public enum WarmPlace {
    /** A long-running Dataproc Serverless batch, ended by its idle timeout or its TTL. */
    SERVERLESS("serverless"),
    /** A job on the Dataproc cluster {@code job.dataproc-cluster}. */
    CLUSTER("cluster");

    private final String code;

    WarmPlace(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** How the jobs of a deployment start: {@code job.mode}. */
  public enum JobMode {
    /** One long-running driver per deployment takes the batches the batcher hands it, in one warm Spark context. */
    WARM("warm"),
    /** Every batch runs in a Spark application of its own (a child JVM, a Dataproc batch): isolation. */
    PER_BATCH("per-batch");

    private final String code;

    JobMode(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  public JobSettings {
    sparkProperties = Map.copyOf(sparkProperties);
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(warmIdleTimeout, "warmIdleTimeout");
    Objects.requireNonNull(warmDataproc, "warmDataproc");
    Objects.requireNonNull(dataprocCluster, "dataprocCluster");
    Objects.requireNonNull(warmTtl, "warmTtl");
    Objects.requireNonNull(warmFolder, "warmFolder");
    Objects.requireNonNull(kubernetes, "kubernetes");
  }

  /** Settings that do not run on Kubernetes. */
  public JobSettings(Map<String, String> sparkProperties, String master, Optional<String> dataprocRegion,
      String runtimeVersion, Optional<String> serviceAccount, Optional<String> subnetwork, Optional<String> jarUri,
      Duration leaseTimeout, int maxAttempts, Optional<JobMode> mode, Duration warmIdleTimeout, WarmPlace warmDataproc,
      Optional<String> dataprocCluster, Duration warmTtl, Optional<String> warmFolder) {
    this(sparkProperties, master, dataprocRegion, runtimeVersion, serviceAccount, subnetwork, jarUri, leaseTimeout,
        maxAttempts, mode, warmIdleTimeout, warmDataproc, dataprocCluster, warmTtl, warmFolder, Optional.empty());
  }

  /** Settings with a warm driver on Dataproc Serverless with the default TTL, in each table's folder. */
  public JobSettings(Map<String, String> sparkProperties, String master, Optional<String> dataprocRegion,
      String runtimeVersion, Optional<String> serviceAccount, Optional<String> subnetwork, Optional<String> jarUri,
      Duration leaseTimeout, int maxAttempts, Optional<JobMode> mode, Duration warmIdleTimeout) {
    this(sparkProperties, master, dataprocRegion, runtimeVersion, serviceAccount, subnetwork, jarUri, leaseTimeout,
        maxAttempts, mode, warmIdleTimeout, WarmPlace.SERVERLESS, Optional.empty(), DEFAULT_WARM_TTL,
        Optional.empty());
  }

  /** Settings with the launchers' default mode and idle timeout. */
  public JobSettings(Map<String, String> sparkProperties, String master, Optional<String> dataprocRegion,
      String runtimeVersion, Optional<String> serviceAccount, Optional<String> subnetwork, Optional<String> jarUri,
      Duration leaseTimeout, int maxAttempts) {
    this(sparkProperties, master, dataprocRegion, runtimeVersion, serviceAccount, subnetwork, jarUri, leaseTimeout,
        maxAttempts, Optional.empty(), DEFAULT_WARM_IDLE_TIMEOUT);
  }

  /** The mode of the local launcher: {@code job.mode}, warm by default. */
  public JobMode modeOnLocal() {
    return mode.orElse(JobMode.WARM);
  }

  /** The mode of the Dataproc launcher: {@code job.mode}, a batch per batch by default. */
  public JobMode modeOnDataproc() {
    return mode.orElse(JobMode.PER_BATCH);
  }

  /** These settings in another mode. */
  public JobSettings withMode(JobMode newMode) {
    return new JobSettings(sparkProperties, master, dataprocRegion, runtimeVersion, serviceAccount, subnetwork, jarUri,
        leaseTimeout, maxAttempts, Optional.of(newMode), warmIdleTimeout, warmDataproc, dataprocCluster, warmTtl,
        warmFolder, kubernetes);
  }

  /** These settings with a warm driver on Dataproc in that place, on that cluster. */
  public JobSettings withWarmDataproc(WarmPlace place, Optional<String> cluster) {
    return new JobSettings(sparkProperties, master, dataprocRegion, runtimeVersion, serviceAccount, subnetwork, jarUri,
        leaseTimeout, maxAttempts, mode, warmIdleTimeout, place, cluster, warmTtl, warmFolder, kubernetes);
  }

  /** These settings with the job on Kubernetes. */
  public JobSettings withKubernetes(KubernetesSettings settings) {
    return new JobSettings(sparkProperties, master, dataprocRegion, runtimeVersion, serviceAccount, subnetwork, jarUri,
        leaseTimeout, maxAttempts, mode, warmIdleTimeout, warmDataproc, dataprocCluster, warmTtl, warmFolder,
        Optional.of(settings));
  }
}
