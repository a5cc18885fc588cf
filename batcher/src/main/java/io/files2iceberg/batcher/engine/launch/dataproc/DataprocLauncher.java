package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.api.gax.grpc.GrpcCallContext;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.BatchControllerClient;
import com.google.cloud.dataproc.v1.BatchControllerSettings;
import com.google.cloud.dataproc.v1.BatchOperationMetadata;
import com.google.cloud.dataproc.v1.CreateBatchRequest;
import com.google.cloud.dataproc.v1.GetBatchRequest;
import com.google.longrunning.Operation;
import com.google.protobuf.InvalidProtocolBufferException;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.core.logging.LogFormat;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.StorageSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the Spark job as a Dataproc Serverless batch: one {@code CreateBatch} per launch, then
 * {@code GetBatch} polled until the batch has ended.
 *
 * <p>The batch runs {@value #MAIN_CLASS} from {@code job.jar-uri} with {@code --manifest
 * <manifest URI>}, on runtime {@code job.runtime-version} with {@code job.spark-properties}, as
 * {@code job.service-account} in {@code job.subnetwork}, labelled {@value #TABLE_LABEL} and
 * {@value #BATCH_LABEL}. Its id is {@code f2i-<batch id>-a<attempt>} (see {@link DataprocNames}).
 *
 * <p>The job runs with {@code --attempt <N>} and writes its {@code AttemptResult} as one object
 * beside the manifest ({@code <batchId>-attempt<N>.result.json}); once the batch has ended, the
 * launcher reads that object (exit, report, the job's classified error) and falls back on the
 * batch's state and state message ({@link DataprocOutcome}) only when the job wrote none (the
 * driver was killed or ran out of memory). Thread-safe: the clients are shared by all launches.
 */
public final class DataprocLauncher implements Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(DataprocLauncher.class);

  /** The job's entry point in the {@code -all.jar}. */
  public static final String MAIN_CLASS = "io.files2iceberg.sparkjob.BatchJob";

  /** Label keys of every batch. */
  public static final String TABLE_LABEL = "files2iceberg-table";
  public static final String BATCH_LABEL = "files2iceberg-batch";

  /** How often {@link LaunchedJob#await} asks Dataproc for the batch's state. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(10);

  static final Duration DEFAULT_RPC_TIMEOUT = Duration.ofSeconds(60);
  static final int DEFAULT_MAX_CONSECUTIVE_ERRORS = 5;

  /**
   * How launched batches are watched.
   *
   * @param interval between two polls (and between two tries of a create that failed transiently)
   * @param rpcTimeout the deadline of one call to Dataproc
   * @param maxConsecutiveErrors transient errors in a row tolerated before giving up
   */
  record Polling(Duration interval, Duration rpcTimeout, int maxConsecutiveErrors) {
    Polling {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("poll interval must be positive, is " + interval);
      }
      if (maxConsecutiveErrors < 0) {
        throw new IllegalArgumentException("maxConsecutiveErrors must not be negative, is " + maxConsecutiveErrors);
      }
    }
  }

  private final DataprocRequests requests;
  private final String projectId;
  private final String region;
  private final BatchControllerClient client;
  private final Polling polling;
  private final AttemptResults results;

  /**
   * A launcher on the given client, which it closes on {@link #close()}.
   *
   * @param projectId the Google Cloud project the batches run in
   * @param client a client of {@code job.dataproc-region}'s endpoint
   * @param pollInterval how often a launched batch's state is read
   * @throws IllegalArgumentException naming the {@code job.*} key when the settings cannot work
   */
  public DataprocLauncher(JobSettings job, String projectId, BatchControllerClient client, Duration pollInterval) {
    this(job, projectId, client, new Polling(pollInterval, DEFAULT_RPC_TIMEOUT, DEFAULT_MAX_CONSECUTIVE_ERRORS),
        AttemptResults.of(StorageSettings.GOOGLE));
  }

  /** @param results reads the result objects the job writes beside its manifest */
  DataprocLauncher(JobSettings job, String projectId, BatchControllerClient client, Polling polling,
      AttemptResults results) {
    this.results = Objects.requireNonNull(results, "results");
    this.requests = new DataprocRequests(Objects.requireNonNull(job, "job"), projectId);
    this.region = requests.region();
    this.projectId = projectId;
    this.client = Objects.requireNonNull(client, "client");
    this.polling = Objects.requireNonNull(polling, "polling");
  }

  /**
   * A launcher with a client of the region's endpoint ({@code <region>-dataproc.googleapis.com:443})
   * and Application Default Credentials, polling every {@link #DEFAULT_POLL_INTERVAL}.
   *
   * @throws IllegalArgumentException naming the {@code job.*} key when the settings cannot work
   * @throws LaunchException when the client cannot be created (no credentials)
   */
  public static DataprocLauncher connect(JobSettings job, String projectId, StorageSettings storage) {
    DataprocRequests.requireUsable(job, projectId);
    String region = job.dataprocRegion().orElseThrow();
    BatchControllerClient client;
    try {
      client = BatchControllerClient.create(
          BatchControllerSettings.newBuilder().setEndpoint(endpoint(region)).build());
    } catch (IOException e) {
      throw new LaunchException("cannot create the Dataproc client for " + endpoint(region) + ": " + e.getMessage(),
          false, e);
    }
    try {
      return new DataprocLauncher(job, projectId, client,
          new Polling(DEFAULT_POLL_INTERVAL, DEFAULT_RPC_TIMEOUT, DEFAULT_MAX_CONSECUTIVE_ERRORS), AttemptResults.of(storage));
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /** The regional endpoint Dataproc Serverless batches are created at. */
  static String endpoint(String region) {
    return region + "-dataproc.googleapis.com:443";
  }

  /**
   * Creates the Dataproc batch of this attempt and returns at once; {@link LaunchedJob#await}
   * watches it. When the batch of this attempt exists already (a batcher that crashed after
   * launching it), that batch is watched instead: one attempt never runs twice.
   *
   * @throws LaunchException retryable for transient errors (UNAVAILABLE, DEADLINE_EXCEEDED,
   *     RESOURCE_EXHAUSTED, ABORTED, after bounded tries), otherwise not (a manifest not on
   *     {@code gs://}, a request Dataproc refuses, missing permissions)
   */
  @Override
  public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
    String table = manifest.table();
    String batchId = manifest.batchId();
    if (!manifestUri.startsWith("gs://")) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": a Dataproc batch reads its manifest from"
          + " Cloud Storage: metadata.path must be a gs:// URI, the manifest is " + manifestUri, false);
    }
    return start(requests.forAttempt(manifest, manifestUri, attempt), table, batchId, manifestUri,
        Optional.of(AttemptResult.locationBeside(manifestUri, attempt)));
  }

  /**
   * The Dataproc batch of an earlier attempt, {@code f2i-<batch id>-a<attempt>}, when it is ours
   * and still PENDING, RUNNING or CANCELLING: recovery watches it rather than creating the next
   * attempt's batch beside it. Empty when it does not exist or has ended (its result object then
   * says how).
   *
   * @throws LaunchException (retryable when transient) when the batch cannot be read
   */
  @Override
  public Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
    if (!manifestUri.startsWith("gs://")) {
      return Optional.empty();
    }
    CreateBatchRequest request = requests.forAttempt(manifest, manifestUri, attempt);
    String dataprocId = request.getBatchId();
    String batchName = request.getParent() + "/batches/" + dataprocId;
    Batch existing;
    try {
      existing = client.getBatchCallable().call(GetBatchRequest.newBuilder().setName(batchName).build(),
          callContext());
    } catch (ApiException e) {
      StatusCode.Code code = e.getStatusCode().getCode();
      if (code == StatusCode.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw new LaunchException("Table " + manifest.table() + " batch " + manifest.batchId() + ": cannot read"
          + " Dataproc batch " + batchName + ": " + code + ": " + e.getMessage(), isTransient(code), e);
    }
    if (!request.getBatch().getLabelsOrThrow(BATCH_LABEL).equals(existing.getLabelsOrDefault(BATCH_LABEL, ""))) {
      return Optional.empty();
    }
    return switch (existing.getState()) {
      case PENDING, RUNNING, CANCELLING -> {
        LOG.info("Table {} batch {}: Dataproc batch {} of attempt {} is still {}; watching it", manifest.table(),
            manifest.batchId(), dataprocId, attempt, existing.getState());
        yield Optional.of(new DataprocJob(client, polling, manifest.table(), manifest.batchId(), manifestUri,
            batchName, dataprocId, existing.getOperation(), consoleUrl(dataprocId),
            Optional.of(AttemptResult.locationBeside(manifestUri, attempt)), results));
      }
      default -> Optional.empty();
    };
  }

  /**
   * Creates a Dataproc batch running another main class of the job's jar, {@code
   * f2i-<runId>-a1}, labelled with the table and the run id, and returns at once. Its arguments
   * must point at Cloud Storage for whatever it reads or writes.
   */
  @Override
  public LaunchedJob launchMain(SparkMainRun run) {
    return start(requests.forMain(run), run.table(), run.runId(), run.mainClass(), Optional.empty());
  }

  private LaunchedJob start(CreateBatchRequest request, String table, String batchId, String what,
      Optional<String> resultLocation) {
    String dataprocId = request.getBatchId();
    String batchName = request.getParent() + "/batches/" + dataprocId;
    String operationName = create(request, table, batchId, batchName);
    LOG.info("Table {} batch {} ({}): launched Dataproc batch {}: {}", table, batchId, what, dataprocId,
        consoleUrl(dataprocId));
    return new DataprocJob(client, polling, table, batchId, what, batchName, dataprocId, operationName,
        consoleUrl(dataprocId), resultLocation, results);
  }

  /**
   * The Spark properties of a Dataproc batch: the job's, and the driver's logs as JSON lines for
   * Cloud Logging ({@link LogFormat#SPARK_PROPERTY}) unless the job's properties say otherwise.
   */
  static Map<String, String> runtimeProperties(Map<String, String> sparkProperties) {
    Map<String, String> properties = new LinkedHashMap<>(sparkProperties);
    properties.putIfAbsent(LogFormat.SPARK_PROPERTY, "JSON");
    return properties;
  }

  /**
   * Sends the create, again after a transient error: the request id makes a repeat return the first
   * request's operation.
   *
   * @return the batch's operation name
   */
  private String create(CreateBatchRequest request, String table, String batchId, String batchName) {
    for (int tries = 1; ; tries++) {
      try {
        Operation operation = client.createBatchCallable().call(request, callContext());
        return operationBatch(operation, batchName);
      } catch (ApiException e) {
        StatusCode.Code code = e.getStatusCode().getCode();
        if (code == StatusCode.Code.ALREADY_EXISTS) {
          return existingBatchOperation(request, table, batchId, batchName);
        }
        if (!isTransient(code) || tries > polling.maxConsecutiveErrors()) {
          throw new LaunchException("Table " + table + " batch " + batchId + ": Dataproc refused to create batch "
              + batchName + ": " + code + ": " + e.getMessage(), isTransient(code) || isThrottled(code), e);
        }
        LOG.warn("Table {} batch {}: creating Dataproc batch {} failed (try {}), trying again: {}", table, batchId,
            batchName, tries, e.toString());
        pause(table, batchId);
      }
    }
  }

  /** The batch of this attempt was created before: watch it, after checking that it is ours. */
  private String existingBatchOperation(CreateBatchRequest request, String table, String batchId, String batchName) {
    Batch existing;
    try {
      existing = client.getBatchCallable().call(GetBatchRequest.newBuilder().setName(batchName).build(),
          callContext());
    } catch (ApiException e) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": Dataproc batch " + batchName
          + " exists but cannot be read: " + e.getStatusCode().getCode() + ": " + e.getMessage(),
          isTransient(e.getStatusCode().getCode()), e);
    }
    String ours = request.getBatch().getLabelsOrThrow(BATCH_LABEL);
    String theirs = existing.getLabelsOrDefault(BATCH_LABEL, "");
    if (!ours.equals(theirs)) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": Dataproc batch " + batchName
          + " exists and belongs to another batch: label " + BATCH_LABEL + " expected: " + ours + " actual: "
          + theirs, false);
    }
    LOG.info("Table {} batch {}: Dataproc batch {} was launched before ({}); watching it", table, batchId, batchName,
        existing.getState());
    return existing.getOperation();
  }

  private static String operationBatch(Operation operation, String batchName) {
    // The metadata names the batch the operation creates; it must be the one asked for.
    if (operation.hasMetadata() && operation.getMetadata().is(BatchOperationMetadata.class)) {
      try {
        String named = operation.getMetadata().unpack(BatchOperationMetadata.class).getBatch();
        if (!named.isEmpty() && !named.equals(batchName)) {
          LOG.warn("Dataproc operation {} names batch {}, expected {}", operation.getName(), named, batchName);
        }
      } catch (InvalidProtocolBufferException e) {
        LOG.warn("Dataproc operation {} has unreadable metadata: {}", operation.getName(), e.toString());
      }
    }
    return operation.getName();
  }

  private void pause(String table, String batchId) {
    try {
      TimeUnit.NANOSECONDS.sleep(polling.interval().toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LaunchException("Table " + table + " batch " + batchId + ": interrupted while creating the Dataproc"
          + " batch", true, e);
    }
  }

  private GrpcCallContext callContext() {
    return GrpcCallContext.createDefault().withTimeoutDuration(polling.rpcTimeout());
  }

  /** The Dataproc batch id of one attempt of a batch, {@code f2i-<batch id>-a<attempt>}. */
  public static String dataprocBatchId(String batchId, int attempt) {
    return DataprocNames.batchId(batchId, attempt);
  }

  /** Where an operator sees the batch, its output and its Spark UI. */
  String consoleUrl(String dataprocId) {
    return "https://console.cloud.google.com/dataproc/batches/" + region + "/" + dataprocId + "?project=" + projectId;
  }

  /** Errors after which the same call may succeed. */
  static boolean isTransient(StatusCode.Code code) {
    return code == StatusCode.Code.UNAVAILABLE || code == StatusCode.Code.DEADLINE_EXCEEDED;
  }

  /** Errors a later launch may get past: a quota, a conflicting concurrent change. */
  private static boolean isThrottled(StatusCode.Code code) {
    return code == StatusCode.Code.RESOURCE_EXHAUSTED || code == StatusCode.Code.ABORTED;
  }

  /** Closes the client; batches already created keep running. */
  @Override
  public void close() {
    client.close();
  }

  @Override
  public String toString() {
    return "Dataproc Serverless in projects/" + projectId + "/locations/" + region;
  }
}
