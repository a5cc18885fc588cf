package io.files2iceberg.batcher.launch.dataproc;

import com.google.api.gax.grpc.GrpcCallContext;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.BatchControllerClient;
import com.google.cloud.dataproc.v1.CreateBatchRequest;
import com.google.cloud.dataproc.v1.EnvironmentConfig;
import com.google.cloud.dataproc.v1.ExecutionConfig;
import com.google.cloud.dataproc.v1.GetBatchRequest;
import com.google.cloud.dataproc.v1.RuntimeConfig;
import com.google.cloud.dataproc.v1.SparkBatch;
import io.files2iceberg.batcher.launch.LaunchException;
import io.files2iceberg.core.profile.JobSettings;
import java.util.List;
import java.util.Objects;

/**
 * Warm drivers as Dataproc Serverless batches: {@code CreateBatch} of {@value
 * DataprocWarmLauncher#MAIN_CLASS} from {@code job.jar-uri}, with the per-batch job's runtime,
 * Spark properties, service account and subnetwork, and {@code executionConfig.ttl} = {@code
 * job.warm.ttl}; {@code GetBatch} says whether one lives.
 */
final class ServerlessWarmDrivers implements WarmDrivers {
  private final JobSettings job;
  private final String projectId;
  private final String region;
  private final BatchControllerClient client;
  private final DataprocLauncher.Polling polling;

  ServerlessWarmDrivers(JobSettings job, String projectId, BatchControllerClient client,
      DataprocLauncher.Polling polling) {
    this.job = Objects.requireNonNull(job, "job");
    this.projectId = Objects.requireNonNull(projectId, "projectId");
    this.region = job.dataprocRegion().orElseThrow();
    this.client = Objects.requireNonNull(client, "client");
    this.polling = Objects.requireNonNull(polling, "polling");
  }

  private String parent() {
    return "projects/" + projectId + "/locations/" + region;
  }

  /** The request that creates a driver's batch. */
  CreateBatchRequest createRequest(String driverId, String folderLabel, List<String> args) {
    ExecutionConfig.Builder execution = ExecutionConfig.newBuilder()
        .setTtl(com.google.protobuf.Duration.newBuilder().setSeconds(job.warmTtl().toSeconds()));
    job.serviceAccount().ifPresent(execution::setServiceAccount);
    job.subnetwork().ifPresent(execution::setSubnetworkUri);
    Batch batch = Batch.newBuilder()
        .setSparkBatch(SparkBatch.newBuilder()
            .setMainClass(DataprocWarmLauncher.MAIN_CLASS)
            .addJarFileUris(job.jarUri().orElseThrow())
            .addAllArgs(args))
        .setRuntimeConfig(RuntimeConfig.newBuilder()
            .setVersion(job.runtimeVersion())
            .putAllProperties(DataprocLauncher.runtimeProperties(job.sparkProperties())))
        .setEnvironmentConfig(EnvironmentConfig.newBuilder().setExecutionConfig(execution))
        .putLabels(DataprocWarmLauncher.FOLDER_LABEL, folderLabel)
        .build();
    return CreateBatchRequest.newBuilder()
        .setParent(parent())
        .setBatchId(driverId)
        .setRequestId(DataprocNames.requestId(driverId))
        .setBatch(batch)
        .build();
  }

  @Override
  public boolean start(String driverId, String folderLabel, List<String> args) {
    CreateBatchRequest request = createRequest(driverId, folderLabel, args);
    try {
      client.createBatchCallable().call(request, context());
      return true;
    } catch (ApiException e) {
      StatusCode.Code code = e.getStatusCode().getCode();
      if (code != StatusCode.Code.ALREADY_EXISTS) {
        throw new LaunchException("Dataproc refused to create the warm driver batch " + parent() + "/batches/"
            + driverId + ": " + code + ": " + e.getMessage(), DataprocLauncher.isTransient(code)
            || code == StatusCode.Code.RESOURCE_EXHAUSTED || code == StatusCode.Code.ABORTED, e);
      }
    }
    Batch existing = get(driverId);
    String theirs = existing.getLabelsOrDefault(DataprocWarmLauncher.FOLDER_LABEL, "");
    if (!theirs.equals(folderLabel)) {
      throw new LaunchException("Dataproc batch " + parent() + "/batches/" + driverId + " exists and is not the warm"
          + " driver of this folder: label " + DataprocWarmLauncher.FOLDER_LABEL + " expected: " + folderLabel
          + " actual: " + theirs, false);
    }
    return false;
  }

  private Batch get(String driverId) {
    String name = parent() + "/batches/" + driverId;
    try {
      return client.getBatchCallable().call(GetBatchRequest.newBuilder().setName(name).build(), context());
    } catch (ApiException e) {
      throw new LaunchException("Cannot read the warm driver batch " + name + ": " + e.getStatusCode().getCode() + ": "
          + e.getMessage(), DataprocLauncher.isTransient(e.getStatusCode().getCode()), e);
    }
  }

  @Override
  public DriverState state(String driverId) {
    Batch batch;
    try {
      batch = client.getBatchCallable().call(
          GetBatchRequest.newBuilder().setName(parent() + "/batches/" + driverId).build(), context());
    } catch (ApiException e) {
      return e.getStatusCode().getCode() == StatusCode.Code.NOT_FOUND ? DriverState.NOT_FOUND : DriverState.UNKNOWN;
    }
    return switch (batch.getState()) {
      case PENDING, RUNNING, CANCELLING -> DriverState.ALIVE;
      case SUCCEEDED, FAILED, CANCELLED -> DriverState.ENDED;
      default -> DriverState.UNKNOWN;
    };
  }

  @Override
  public String consoleUrl(String driverId) {
    return "https://console.cloud.google.com/dataproc/batches/" + region + "/" + driverId + "?project=" + projectId;
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
    return "Dataproc Serverless in " + parent();
  }
}
