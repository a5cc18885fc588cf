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
    Duration warmIdleTimeout) {

  /** How long a warm driver waits for a batch before it exits, unless {@code job.warm.idle-timeout} says. */
  public static final Duration DEFAULT_WARM_IDLE_TIMEOUT = Duration.ofMinutes(2);

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
        leaseTimeout, maxAttempts, Optional.of(newMode), warmIdleTimeout);
  }
}
