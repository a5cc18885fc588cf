package io.files2iceberg.core.profile;

import java.time.Duration;
import java.util.Map;
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
    int maxAttempts) {

  public JobSettings {
    sparkProperties = Map.copyOf(sparkProperties);
  }
}
