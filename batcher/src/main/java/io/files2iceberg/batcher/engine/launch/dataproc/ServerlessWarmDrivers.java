package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.api.gax.grpc.GrpcCallContext;
import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.BatchControllerClient;
import com.google.cloud.dataproc.v1.CreateBatchRequest;
import com.google.cloud.dataproc.v1.EnvironmentConfig;
import com.google.cloud.dataproc.v1.ExecutionConfig;
import com.google.cloud.dataproc.v1.GetBatchRequest;
import com.google.cloud.dataproc.v1.RuntimeConfig;
import com.google.cloud.dataproc.v1.SparkBatch;
import io.files2iceberg.core.profile.JobSettings;
import java.util.List;

/**
 * Warm drivers as Dataproc Serverless batches: {@code CreateBatch} of {@value
 * DataprocWarmLauncher#MAIN_CLASS} from {@code job.jar-uri}, with the per-batch job's runtime,
 * Spark properties, service account and subnetwork, and {@code executionConfig.ttl} = {@code
 * job.warm.ttl}; {@code GetBatch} says whether one lives.
 */
final class ServerlessWarmDrivers extends DataprocWarmDrivers<Batch> {
  private final BatchControllerClient client;

  ServerlessWarmDrivers(JobSettings job, String projectId, BatchControllerClient client,
      DataprocLauncher.Polling polling) {
    super(job, projectId, client::close, polling);
    this.client = client;
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
  void create(String driverId, String folderLabel, List<String> args, GrpcCallContext context) {
    client.createBatchCallable().call(createRequest(driverId, folderLabel, args), context);
  }

  @Override
  Batch get(String driverId, GrpcCallContext context) {
    return client.getBatchCallable().call(GetBatchRequest.newBuilder().setName(name(driverId)).build(), context);
  }

  @Override
  String folderLabel(Batch driver) {
    return driver.getLabelsOrDefault(DataprocWarmLauncher.FOLDER_LABEL, "");
  }

  @Override
  DriverState stateOf(Batch driver) {
    return switch (driver.getState()) {
      case PENDING, RUNNING, CANCELLING -> DriverState.ALIVE;
      case SUCCEEDED, FAILED, CANCELLED -> DriverState.ENDED;
      default -> DriverState.UNKNOWN;
    };
  }

  private String name(String driverId) {
    return parent() + "/batches/" + driverId;
  }

  @Override
  String describe(String driverId) {
    return "batch " + name(driverId);
  }

  @Override
  String creation(String driverId) {
    return "create the warm driver batch " + name(driverId);
  }

  @Override
  public String consoleUrl(String driverId) {
    return "https://console.cloud.google.com/dataproc/batches/" + region + "/" + driverId + "?project=" + projectId;
  }

  @Override
  public String toString() {
    return "Dataproc Serverless in " + parent();
  }
}
