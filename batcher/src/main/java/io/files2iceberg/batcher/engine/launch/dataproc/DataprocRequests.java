package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.CreateBatchRequest;
import com.google.cloud.dataproc.v1.EnvironmentConfig;
import com.google.cloud.dataproc.v1.ExecutionConfig;
import com.google.cloud.dataproc.v1.RuntimeConfig;
import com.google.cloud.dataproc.v1.SparkBatch;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.JobSettings;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@code CreateBatch} requests of {@link DataprocLauncher}, from the deployment's {@code job.*}
 * settings: the batch of one attempt, {@code f2i-<batch id>-a<attempt>}, or of another main class
 * of the job's jar, each labelled with its table and batch and carrying a request id that makes a
 * repeated create return the first one's operation.
 */
final class DataprocRequests {
  private static final Pattern REGION = Pattern.compile("[a-z][a-z0-9-]*[a-z0-9]");

  private final JobSettings job;
  private final String projectId;
  private final String region;
  private final String jarUri;

  /** @throws IllegalArgumentException naming the {@code job.*} key when the settings cannot work */
  DataprocRequests(JobSettings job, String projectId) {
    requireUsable(job, projectId);
    this.job = job;
    this.projectId = projectId;
    this.region = job.dataprocRegion().orElseThrow();
    this.jarUri = job.jarUri().orElseThrow();
  }

  /** {@code job.dataproc-region}. */
  String region() {
    return region;
  }

  /** The request that creates the batch of one attempt. */
  CreateBatchRequest forAttempt(BatchManifest manifest, String manifestUri, int attempt) {
    return request(manifest.table(), manifest.batchId(), DataprocNames.batchId(manifest.batchId(), attempt),
        DataprocLauncher.MAIN_CLASS, List.of("--manifest", manifestUri, "--attempt", String.valueOf(attempt)));
  }

  /** The request that creates the batch of a {@link SparkMainRun}. */
  CreateBatchRequest forMain(SparkMainRun run) {
    return request(run.table(), run.runId(), DataprocNames.batchId(run.runId(), 1), run.mainClass(), run.args());
  }

  private CreateBatchRequest request(String table, String batchId, String dataprocId, String mainClass,
      List<String> args) {
    ExecutionConfig.Builder execution = ExecutionConfig.newBuilder();
    job.serviceAccount().ifPresent(execution::setServiceAccount);
    job.subnetwork().ifPresent(execution::setSubnetworkUri);
    Batch batch = Batch.newBuilder()
        .setSparkBatch(SparkBatch.newBuilder()
            .setMainClass(mainClass)
            .addJarFileUris(jarUri)
            .addAllArgs(args))
        .setRuntimeConfig(RuntimeConfig.newBuilder()
            .setVersion(job.runtimeVersion())
            .putAllProperties(DataprocLauncher.runtimeProperties(job.sparkProperties())))
        .setEnvironmentConfig(EnvironmentConfig.newBuilder().setExecutionConfig(execution))
        .putAllLabels(Map.of(
            DataprocLauncher.TABLE_LABEL, DataprocNames.labelValue(table),
            DataprocLauncher.BATCH_LABEL, DataprocNames.labelValue(batchId)))
        .build();
    return CreateBatchRequest.newBuilder()
        .setParent("projects/" + projectId + "/locations/" + region)
        .setBatchId(dataprocId)
        .setRequestId(DataprocNames.requestId(dataprocId))
        .setBatch(batch)
        .build();
  }

  /** Checks the settings before anything is created, so that a bad one needs no credentials to show. */
  static void requireUsable(JobSettings job, String projectId) {
    String region = job.dataprocRegion().orElseThrow(() ->
        new IllegalArgumentException("job.dataproc-region: required for the Dataproc launcher"));
    if (!REGION.matcher(region).matches()) {
      throw new IllegalArgumentException("job.dataproc-region: not a region name such as europe-west1: \"" + region
          + "\"");
    }
    String jarUri = job.jarUri().orElseThrow(() -> new IllegalArgumentException(
        "job.jar-uri: required with job.dataproc-region: the gs:// URI of files2iceberg-spark-job-<version>-all.jar"));
    if (!jarUri.startsWith("gs://")) {
      throw new IllegalArgumentException("job.jar-uri: must be a gs:// URI for Dataproc Serverless, is \"" + jarUri
          + "\"");
    }
    if (job.runtimeVersion().isBlank()) {
      throw new IllegalArgumentException("job.runtime-version: must not be blank");
    }
    if (projectId == null || projectId.isBlank()) {
      throw new IllegalArgumentException("the Dataproc launcher needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT"
          + " or ledger.firestore-project");
    }
  }
}
