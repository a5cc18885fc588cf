package io.files2iceberg.batcher.launch.dataproc;

import com.google.api.gax.grpc.GrpcCallContext;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.dataproc.v1.GetJobRequest;
import com.google.cloud.dataproc.v1.Job;
import com.google.cloud.dataproc.v1.JobControllerClient;
import com.google.cloud.dataproc.v1.JobPlacement;
import com.google.cloud.dataproc.v1.JobReference;
import com.google.cloud.dataproc.v1.SparkJob;
import com.google.cloud.dataproc.v1.SubmitJobRequest;
import io.files2iceberg.batcher.launch.LaunchException;
import io.files2iceberg.core.profile.JobSettings;
import java.util.List;
import java.util.Objects;

/**
 * Warm drivers as jobs on the Dataproc cluster {@code job.dataproc-cluster}: {@code SubmitJob} of
 * a Spark job running {@value DataprocWarmLauncher#MAIN_CLASS} from {@code job.jar-uri} with
 * {@code job.spark-properties}; {@code GetJob} says whether one lives. The cluster's own service
 * account, network and image apply ({@code job.service-account}, {@code job.subnetwork}, {@code
 * job.runtime-version} and {@code job.warm.ttl} are Serverless settings).
 */
final class ClusterWarmDrivers implements WarmDrivers {
  private final JobSettings job;
  private final String projectId;
  private final String region;
  private final String cluster;
  private final JobControllerClient client;
  private final DataprocLauncher.Polling polling;

  ClusterWarmDrivers(JobSettings job, String projectId, JobControllerClient client, DataprocLauncher.Polling polling) {
    this.job = Objects.requireNonNull(job, "job");
    this.projectId = Objects.requireNonNull(projectId, "projectId");
    this.region = job.dataprocRegion().orElseThrow();
    this.cluster = job.dataprocCluster().orElseThrow(() -> new IllegalArgumentException(
        "job.dataproc-cluster: is required when job.warm.dataproc = cluster"));
    this.client = Objects.requireNonNull(client, "client");
    this.polling = Objects.requireNonNull(polling, "polling");
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
  public boolean start(String driverId, String folderLabel, List<String> args) {
    try {
      client.submitJobCallable().call(submitRequest(driverId, folderLabel, args), context());
      return true;
    } catch (ApiException e) {
      StatusCode.Code code = e.getStatusCode().getCode();
      if (code != StatusCode.Code.ALREADY_EXISTS) {
        throw new LaunchException("Dataproc refused to submit the warm driver job " + driverId + " to cluster "
            + cluster + ": " + code + ": " + e.getMessage(), DataprocLauncher.isTransient(code)
            || code == StatusCode.Code.RESOURCE_EXHAUSTED || code == StatusCode.Code.ABORTED, e);
      }
    }
    Job existing;
    try {
      existing = client.getJobCallable().call(get(driverId), context());
    } catch (ApiException e) {
      throw new LaunchException("Cannot read the warm driver job " + driverId + ": " + e.getStatusCode().getCode()
          + ": " + e.getMessage(), DataprocLauncher.isTransient(e.getStatusCode().getCode()), e);
    }
    String theirs = existing.getLabelsOrDefault(DataprocWarmLauncher.FOLDER_LABEL, "");
    if (!theirs.equals(folderLabel)) {
      throw new LaunchException("Dataproc job " + driverId + " exists and is not the warm driver of this folder: label "
          + DataprocWarmLauncher.FOLDER_LABEL + " expected: " + folderLabel + " actual: " + theirs, false);
    }
    return false;
  }

  private GetJobRequest get(String driverId) {
    return GetJobRequest.newBuilder().setProjectId(projectId).setRegion(region).setJobId(driverId).build();
  }

  @Override
  public DriverState state(String driverId) {
    Job found;
    try {
      found = client.getJobCallable().call(get(driverId), context());
    } catch (ApiException e) {
      return e.getStatusCode().getCode() == StatusCode.Code.NOT_FOUND ? DriverState.NOT_FOUND : DriverState.UNKNOWN;
    }
    return switch (found.getStatus().getState()) {
      case PENDING, SETUP_DONE, RUNNING, CANCEL_PENDING, CANCEL_STARTED, ATTEMPT_FAILURE -> DriverState.ALIVE;
      case DONE, ERROR, CANCELLED -> DriverState.ENDED;
      default -> DriverState.UNKNOWN;
    };
  }

  @Override
  public String consoleUrl(String driverId) {
    return "https://console.cloud.google.com/dataproc/jobs/" + driverId + "?region=" + region + "&project="
        + projectId;
  }

  private GrpcCallContext context() {
    return GrpcCallContext.createDefault().withTimeoutDuration(polling.rpcTimeout());
  }

  @Override
  public void close() {
    client.close();
  }

  @Override
  public String toString() {
    return "Dataproc cluster " + cluster + " in projects/" + projectId + "/regions/" + region;
  }
}
