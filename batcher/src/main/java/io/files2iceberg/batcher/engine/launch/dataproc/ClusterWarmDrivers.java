package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.api.gax.grpc.GrpcCallContext;
import com.google.cloud.dataproc.v1.GetJobRequest;
import com.google.cloud.dataproc.v1.Job;
import com.google.cloud.dataproc.v1.JobControllerClient;
import com.google.cloud.dataproc.v1.JobPlacement;
import com.google.cloud.dataproc.v1.JobReference;
import com.google.cloud.dataproc.v1.SparkJob;
import com.google.cloud.dataproc.v1.SubmitJobRequest;
import io.files2iceberg.core.profile.JobSettings;
import java.util.List;

/**
 * Warm drivers as jobs on the Dataproc cluster {@code job.dataproc-cluster}: {@code SubmitJob} of
 * a Spark job running {@value DataprocWarmLauncher#MAIN_CLASS} from {@code job.jar-uri} with
 * {@code job.spark-properties}; {@code GetJob} says whether one lives. The cluster's own service
 * account, network and image apply ({@code job.service-account}, {@code job.subnetwork}, {@code
 * job.runtime-version} and {@code job.warm.ttl} are Serverless settings).
 */
final class ClusterWarmDrivers extends DataprocWarmDrivers<Job> {
  private final String cluster;
  private final JobControllerClient client;

  ClusterWarmDrivers(JobSettings job, String projectId, JobControllerClient client, DataprocLauncher.Polling polling) {
    super(job, projectId, client::close, polling);
    this.cluster = job.dataprocCluster().orElseThrow(() -> new IllegalArgumentException(
        "job.dataproc-cluster: is required when job.warm.dataproc = cluster"));
    this.client = client;
  }

  /** The request that submits a driver's job. */
  SubmitJobRequest submitRequest(String driverId, String folderLabel, List<String> args) {
    return SubmitJobRequest.newBuilder()
        .setProjectId(projectId)
        .setRegion(region)
        .setRequestId(DataprocNames.requestId(driverId))
        .setJob(Job.newBuilder()
            .setReference(JobReference.newBuilder().setProjectId(projectId).setJobId(driverId))
            .setPlacement(JobPlacement.newBuilder().setClusterName(cluster))
            .setSparkJob(SparkJob.newBuilder()
                .setMainClass(DataprocWarmLauncher.MAIN_CLASS)
                .addJarFileUris(job.jarUri().orElseThrow())
                .addAllArgs(args)
                .putAllProperties(job.sparkProperties()))
            .putLabels(DataprocWarmLauncher.FOLDER_LABEL, folderLabel))
        .build();
  }

  @Override
  void create(String driverId, String folderLabel, List<String> args, GrpcCallContext context) {
    client.submitJobCallable().call(submitRequest(driverId, folderLabel, args), context);
  }

  @Override
  Job get(String driverId, GrpcCallContext context) {
    return client.getJobCallable().call(
        GetJobRequest.newBuilder().setProjectId(projectId).setRegion(region).setJobId(driverId).build(), context);
  }

  @Override
  String folderLabel(Job driver) {
    return driver.getLabelsOrDefault(DataprocWarmLauncher.FOLDER_LABEL, "");
  }

  @Override
  DriverState stateOf(Job driver) {
    return switch (driver.getStatus().getState()) {
      case PENDING, SETUP_DONE, RUNNING, CANCEL_PENDING, CANCEL_STARTED, ATTEMPT_FAILURE -> DriverState.ALIVE;
      case DONE, ERROR, CANCELLED -> DriverState.ENDED;
      default -> DriverState.UNKNOWN;
    };
  }

  @Override
  String describe(String driverId) {
    return "job " + driverId;
  }

  @Override
  String creation(String driverId) {
    return "submit the warm driver job " + driverId + " to cluster " + cluster;
  }

  @Override
  public String consoleUrl(String driverId) {
    return "https://console.cloud.google.com/dataproc/jobs/" + driverId + "?region=" + region + "&project="
        + projectId;
  }

  @Override
  public String toString() {
    return "Dataproc cluster " + cluster + " in projects/" + projectId + "/regions/" + region;
  }
}
