package io.files2iceberg.batcher.engine.launch.dataproc;

import static io.files2iceberg.batcher.engine.launch.dataproc.FakeDataproc.error;
import static io.files2iceberg.batcher.engine.launch.dataproc.FakeDataproc.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.CreateBatchRequest;
import com.google.cloud.dataproc.v1.EnvironmentConfig;
import com.google.cloud.dataproc.v1.ExecutionConfig;
import com.google.cloud.dataproc.v1.RuntimeConfig;
import com.google.cloud.dataproc.v1.SparkBatch;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.engine.BatchRunner;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.engine.UnknownOutcome;
import io.files2iceberg.batcher.retry.RetryPlan;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Dataproc launcher against a fake BatchController gRPC service on 127.0.0.1. */
class DataprocLauncherTest {

  static final String BATCH_ID = "20261130T120000-1a2b3c4d";
  static final String MANIFEST_URI = "gs://lake-metadata/clicks/batches/20261130T120000-1a2b3c4d/manifest.json";
  static final String JAR = "gs://lake-artifacts/jars/files2iceberg-spark-job-0.1.0-all.jar";
  static final String SERVICE_ACCOUNT = "files2iceberg-job@lake-prod.iam.gserviceaccount.com";
  static final String SUBNETWORK = "projects/lake-prod/regions/europe-west1/subnetworks/dataproc";
  static final String PARENT = "projects/lake-prod/locations/europe-west1";
  static final String DATAPROC_ID = "f2i-20261130t120000-1a2b3c4d-a1";
  static final String BATCH_NAME = PARENT + "/batches/" + DATAPROC_ID;
  static final String CONSOLE =
      "https://console.cloud.google.com/dataproc/batches/europe-west1/" + DATAPROC_ID + "?project=lake-prod";

  static final String PROFILE = """
      extract.path = "gs://lake-landing/clicks/dt=*/*.parquet"
      load.iceberg.table = "lake.web.clicks"
      ledger { type = firestore, firestore-project = lake-prod }
      job {
        dataproc-region = europe-west1
        runtime-version = "2.2"
        service-account = "%s"
        subnetwork = "%s"
        jar-uri = "%s"
        spark-properties {
          "spark.executor.instances" = "4"
          "spark.dynamicAllocation.enabled" = "false"
        }
      }
      """.formatted(SERVICE_ACCOUNT, SUBNETWORK, JAR);

  @TempDir Path home;

  /** Where the job's result objects are, as the launcher reads them. */
  final Storage storage = LocalStorageHelper.getOptions().getService();
  FakeDataproc dataproc;
  TableProfile profile;
  Deployment deployment;
  DataprocLauncher launcher;

  @BeforeEach
  void start() throws Exception {
    dataproc = new FakeDataproc();
    profile = profile(PROFILE);
    deployment = deployment(PROFILE);
    launcher = launcher(deployment.job());
  }

  @AfterEach
  void stop() throws Exception {
    launcher.close();
    dataproc.close();
  }

  @Test
  void launchSendsTheExactCreateBatchRequest() {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThat(job.jobId()).isEqualTo(DATAPROC_ID);
    assertThat(dataproc.creates).hasSize(1);
    CreateBatchRequest sent = dataproc.creates.get(0);
    assertThat(sent.getRequestId()).matches("[a-zA-Z0-9_-]{1,40}");
    assertThat(sent.toBuilder().clearRequestId().build())
        .isEqualTo(expectedCreate(DATAPROC_ID, MANIFEST_URI, "20261130t120000-1a2b3c4d", 1));
  }

  @Test
  void launchMainSendsTheExactCreateBatchRequestForThatMainClass() {
    String runId = "maintain-20261130T130000-5e6f7a8b";
    List<String> args = List.of("--profile", "{\"name\":\"clicks\"}", "--retention-cutoff", "2026-11-23T13:00:00Z",
        "--result", "gs://lake-metadata/clicks/maintain/" + runId + ".json");

    LaunchedJob job = launcher.launchMain(new SparkMainRun("lake.web.clicks", runId,
        "io.files2iceberg.sparkjob.maintain.MaintainMain", args));

    assertThat(job.jobId()).isEqualTo("f2i-maintain-20261130t130000-5e6f7a8b-a1");
    CreateBatchRequest sent = dataproc.creates.get(0);
    assertThat(sent.getRequestId()).isEqualTo(DataprocNames.requestId("f2i-maintain-20261130t130000-5e6f7a8b-a1"));
    assertThat(sent.toBuilder().clearRequestId().build()).isEqualTo(CreateBatchRequest.newBuilder()
        .setParent(PARENT)
        .setBatchId("f2i-maintain-20261130t130000-5e6f7a8b-a1")
        .setBatch(Batch.newBuilder()
            .setSparkBatch(SparkBatch.newBuilder()
                .setMainClass("io.files2iceberg.sparkjob.maintain.MaintainMain")
                .addJarFileUris(JAR)
                .addAllArgs(args))
            .setRuntimeConfig(RuntimeConfig.newBuilder()
                .setVersion("2.2")
                .putProperties("spark.executor.instances", "4")
                .putProperties("spark.dynamicAllocation.enabled", "false")
                .putProperties("spark.files2iceberg.log-format", "JSON"))
            .setEnvironmentConfig(EnvironmentConfig.newBuilder()
                .setExecutionConfig(ExecutionConfig.newBuilder()
                    .setServiceAccount(SERVICE_ACCOUNT)
                    .setSubnetworkUri(SUBNETWORK)))
            .putLabels("files2iceberg-table", "lake_web_clicks")
            .putLabels("files2iceberg-batch", "maintain-20261130t130000-5e6f7a8b"))
        .build());
  }

  @Test
  void everyAttemptGetsItsOwnBatchIdAndRequestId() {
    String first = launcher.launch(manifest(), MANIFEST_URI, 1).jobId();
    String second = launcher.launch(manifest(), MANIFEST_URI, 2).jobId();

    assertThat(first).isEqualTo(DATAPROC_ID);
    assertThat(second).isEqualTo("f2i-20261130t120000-1a2b3c4d-a2");
    assertThat(dataproc.creates).extracting(CreateBatchRequest::getRequestId).doesNotHaveDuplicates();
  }

  @Test
  void withoutServiceAccountAndSubnetworkTheBatchRunsWithDataprocsDefaults() throws Exception {
    String plainText = """
        extract.path = "gs://lake-landing/clicks/dt=*/*.parquet"
        load.iceberg.table = "lake.web.clicks"
        job { dataproc-region = europe-west1, jar-uri = "%s" }
        """.formatted(JAR);
    TableProfile plain = profile(plainText);
    try (DataprocLauncher defaults = launcher(deployment(plainText).job())) {
      defaults.launch(manifest(plain), MANIFEST_URI, 1);
    }

    Batch sent = dataproc.creates.get(0).getBatch();
    assertThat(sent.getEnvironmentConfig().getExecutionConfig()).isEqualTo(ExecutionConfig.getDefaultInstance());
    // The driver logs JSON lines for Cloud Logging (JobLogging), whatever else the job sets.
    assertThat(sent.getRuntimeConfig()).isEqualTo(RuntimeConfig.newBuilder().setVersion("2.3")
        .putProperties("spark.files2iceberg.log-format", "JSON").build());
  }

  @Test
  void aLogFormatTheJobsPropertiesSetIsLeftAsItIs() throws Exception {
    String textLogs = """
        extract.path = "gs://lake-landing/clicks/dt=*/*.parquet"
        load.iceberg.table = "lake.web.clicks"
        job { dataproc-region = europe-west1, jar-uri = "%s", spark-properties { "spark.files2iceberg.log-format" = TEXT } }
        """.formatted(JAR);
    try (DataprocLauncher text = launcher(deployment(textLogs).job())) {
      text.launch(manifest(profile(textLogs)), MANIFEST_URI, 1);
    }

    assertThat(dataproc.creates.get(0).getBatch().getRuntimeConfig().getPropertiesMap())
        .containsEntry("spark.files2iceberg.log-format", "TEXT");
  }

  @Test
  void pollsThroughPendingAndRunningUntilSucceededWhichIsLoaded() throws Exception {
    dataproc.script(state(Batch.State.PENDING), state(Batch.State.RUNNING), state(Batch.State.RUNNING),
        state(Batch.State.SUCCEEDED));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    Optional<JobResult> result = job.await(Duration.ofSeconds(10));

    assertThat(result).contains(new JobResult(JobExit.LOADED, Optional.empty(),
        "Dataproc batch " + DATAPROC_ID + " succeeded; driver output " + FakeDataproc.OUTPUT_URI, true,
        Optional.of(CONSOLE)));
    assertThat(dataproc.gets).hasSize(4).containsOnly(BATCH_NAME);
  }

  @Test
  void anEndedBatchIsNotReadAgain() throws Exception {
    dataproc.script(state(Batch.State.SUCCEEDED));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    JobResult first = job.await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(job.await(Duration.ZERO)).contains(first);
    assertThat(dataproc.gets).hasSize(1);
  }

  @Test
  void failedBatchIsFailedWithItsStateMessage() throws Exception {
    dataproc.script(state(Batch.State.RUNNING), state(Batch.State.FAILED,
        "Job failed with message [java.io.IOException: Connection reset]. Additional details can be found at:\n"
            + CONSOLE));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.FAILED);
    assertThat(result.fromJob()).as("a failure the job did not report may have committed").isFalse();
    assertThat(result.report()).isEmpty();
    assertThat(result.detail()).isEqualTo("Dataproc batch " + DATAPROC_ID
        + " failed: Job failed with message [java.io.IOException: Connection reset]. Additional details can be found"
        + " at: " + CONSOLE);
    assertThat(result.log()).contains(CONSOLE);
  }

  @Test
  void succeededBatchIsTheResultObjectTheJobWroteBesideItsManifest() throws Exception {
    AttemptResult written = writeResult(1, JobExit.LOADED, Optional.of(REPORT), Optional.empty());
    dataproc.script(state(Batch.State.RUNNING), state(Batch.State.SUCCEEDED));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result).isEqualTo(new JobResult(JobExit.LOADED, Optional.of(REPORT),
        "committed snapshot 4242, checkpoint committed", true, Optional.of(CONSOLE)));
    assertThat(written.attempt()).isEqualTo(1);
    assertThat(dataproc.creates.get(0).getBatch().getSparkBatch().getArgsList())
        .containsExactly("--manifest", MANIFEST_URI, "--attempt", "1");
  }

  @Test
  void failedBatchTakesTheJobsClassifiedErrorFromItsResultObjectOverTheStateMessage() throws Exception {
    String error = "files2iceberg: table lake.web.clicks batch " + BATCH_ID
        + " rejected: column user_id: cannot change string to int";
    writeResult(2, JobExit.REJECTED, Optional.empty(), Optional.of(error));
    dataproc.script(state(Batch.State.FAILED, "Job failed with message [Driver exited]. Additional details can be"
        + " found at:\n" + CONSOLE));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 2).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.REJECTED);
    assertThat(result.fromJob()).isTrue();
    assertThat(result.detail()).isEqualTo(error);
    assertThat(result.log()).contains(CONSOLE.replace("-a1?", "-a2?"));
  }

  @Test
  void reattachWatchesTheDataprocBatchOfAnAttemptThatStillRunsAndReadsItsResultObject() throws Exception {
    dataproc.script(state(Batch.State.RUNNING));
    launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThat(launcher.reattach(manifest(), MANIFEST_URI, 2)).as("attempt 2 was never created").isEmpty();
    LaunchedJob watched = launcher.reattach(manifest(), MANIFEST_URI, 1).orElseThrow();
    assertThat(watched.jobId()).isEqualTo(DATAPROC_ID);
    assertThat(watched.await(Duration.ofMillis(30))).isEmpty();
    writeResult(1, JobExit.LOADED, Optional.of(REPORT), Optional.empty());
    dataproc.script(state(Batch.State.SUCCEEDED));

    assertThat(watched.await(Duration.ofSeconds(10)).orElseThrow().report()).contains(REPORT);
    assertThat(launcher.reattach(manifest(), MANIFEST_URI, 1)).as("attempt 1 has ended").isEmpty();
    assertThat(dataproc.creates).hasSize(1);
  }

  @Test
  void failedBatchWhoseMessageCarriesTheJobsRejectedLineIsRejected() throws Exception {
    dataproc.script(state(Batch.State.FAILED, "Job failed with message [files2iceberg: table lake.web.clicks batch "
        + BATCH_ID + " rejected: column user_id: cannot change string to int]. Additional details can be found at:\n"
        + CONSOLE));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.REJECTED);
    assertThat(result.fromJob()).isTrue();
    assertThat(result.detail()).isEqualTo("files2iceberg: table lake.web.clicks batch " + BATCH_ID
        + " rejected: column user_id: cannot change string to int");
  }

  @Test
  void failedBatchWithExitCodeThreeIsCheckpointFailed() throws Exception {
    dataproc.script(state(Batch.State.FAILED, "Driver exited with exit code 3"));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.CHECKPOINT_FAILED);
    assertThat(result.detail()).isEqualTo("Dataproc batch " + DATAPROC_ID + " failed: Driver exited with exit code 3");
  }

  @Test
  void cancelledBatchIsFailedAsCancelled() throws Exception {
    dataproc.script(state(Batch.State.RUNNING), state(Batch.State.CANCELLING), state(Batch.State.CANCELLED));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result).isEqualTo(new JobResult(JobExit.FAILED, Optional.empty(),
        "Dataproc batch " + DATAPROC_ID + " was cancelled", false, Optional.of(CONSOLE)));
  }

  @Test
  void aBatchInAnUnspecifiedStateIsStillWatched() throws Exception {
    dataproc.script(state(Batch.State.STATE_UNSPECIFIED), state(Batch.State.RUNNING), state(Batch.State.SUCCEEDED));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.LOADED);
    assertThat(dataproc.gets).hasSize(3);
  }

  @Test
  void awaitReturnsEmptyWhenTheBatchIsStillRunningAtTheTimeout() throws Exception {
    dataproc.script(state(Batch.State.RUNNING));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    long start = System.nanoTime();
    Optional<JobResult> result = job.await(Duration.ofMillis(200));

    assertThat(result).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(200), Duration.ofSeconds(5));
    assertThat(dataproc.gets.size()).isGreaterThan(2);

    dataproc.script(state(Batch.State.SUCCEEDED));
    assertThat(job.await(Duration.ofSeconds(10)).map(JobResult::exit)).contains(JobExit.LOADED);
  }

  @Test
  void aTransientErrorWhilePollingIsRetried() throws Exception {
    dataproc.script(state(Batch.State.RUNNING), error(Status.UNAVAILABLE.withDescription("connection reset")),
        error(Status.DEADLINE_EXCEEDED), state(Batch.State.RUNNING), error(Status.UNAVAILABLE),
        state(Batch.State.SUCCEEDED));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.LOADED);
    assertThat(dataproc.gets).hasSize(6);
  }

  @Test
  void transientErrorsBeyondTheBoundAreARetryableLaunchException() {
    dataproc.script(error(Status.UNAVAILABLE.withDescription("connection reset")));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThatThrownBy(() -> job.await(Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isTrue())
        .hasMessage("Table lake.web.clicks batch " + BATCH_ID + ": cannot read Dataproc batch " + BATCH_NAME
            + ": 2 transient errors in a row, the last UNAVAILABLE: io.grpc.StatusRuntimeException: UNAVAILABLE:"
            + " connection reset");
    assertThat(dataproc.gets).hasSize(3);
  }

  @Test
  void aBatchThatCannotBeReadIsANonRetryableLaunchException() {
    dataproc.script(error(Status.PERMISSION_DENIED.withDescription("dataproc.batches.get denied")));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThatThrownBy(() -> job.await(Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessageStartingWith("Table lake.web.clicks batch " + BATCH_ID + ": cannot read Dataproc batch "
            + BATCH_NAME + ": PERMISSION_DENIED:")
        .hasMessageContaining("dataproc.batches.get denied");
  }

  @Test
  void cancelCancelsTheBatchsOperation() throws Exception {
    dataproc.script(state(Batch.State.RUNNING));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    job.cancel();

    assertThat(dataproc.cancelledOperations).containsExactly("projects/lake-prod/regions/europe-west1/operations/op-1");
  }

  @Test
  void cancelAfterTheBatchEndedDoesNothing() throws Exception {
    dataproc.script(state(Batch.State.SUCCEEDED));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    job.await(Duration.ofSeconds(10));

    job.cancel();

    assertThat(dataproc.cancelledOperations).isEmpty();
  }

  @Test
  void cancelOfABatchDataprocConsidersEndedIsNotAnError() {
    dataproc.failCancels(Status.FAILED_PRECONDITION.withDescription("Batch is already in a terminal state"));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    job.cancel();

    assertThat(dataproc.cancelledOperations).hasSize(1);
  }

  @Test
  void aCancelDataprocRefusesIsLoggedNotThrown() {
    dataproc.failCancels(Status.PERMISSION_DENIED.withDescription("dataproc.operations.cancel denied"));
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    job.cancel();

    assertThat(dataproc.cancelledOperations).hasSize(1);
  }

  @Test
  void aFailedBatchWhoseMessageCarriesTheJobsFailedLineIsTheJobsOwnFailure() throws Exception {
    dataproc.script(state(Batch.State.FAILED, "Job failed with message [files2iceberg: table lake.web.clicks batch "
        + BATCH_ID + " failed: Connection refused]. Additional details can be found at:\n" + CONSOLE));

    JobResult result = launcher.launch(manifest(), MANIFEST_URI, 1).await(Duration.ofSeconds(10)).orElseThrow();

    assertThat(result).isEqualTo(new JobResult(JobExit.FAILED, Optional.empty(),
        "files2iceberg: table lake.web.clicks batch " + BATCH_ID + " failed: Connection refused", true,
        Optional.of(CONSOLE)));
  }

  @Test
  void relaunchingAnAttemptThatExistsWatchesThatBatch() throws Exception {
    launcher.launch(manifest(), MANIFEST_URI, 1);
    dataproc.script(state(Batch.State.FAILED, "Driver exited with exit code 1"));

    LaunchedJob again = launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThat(again.jobId()).isEqualTo(DATAPROC_ID);
    assertThat(dataproc.creates).hasSize(2);
    assertThat(again.await(Duration.ofSeconds(10)).map(JobResult::exit)).contains(JobExit.FAILED);
    again.cancel();
    assertThat(dataproc.cancelledOperations).isEmpty();
  }

  /**
   * {@code retry} of a batch that gave up with an unknown outcome revives it; its relaunch must be a
   * new Dataproc batch: the ids of its earlier launches exist (FAILED), and watching one of them
   * would only report that failure again.
   */
  @Test
  void aRevivedBatchRelaunchesUnderADataprocBatchIdNoEarlierLaunchHad() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
    Path profiles = Files.createDirectories(home.resolve("profiles"));
    Files.writeString(profiles.resolve("clicks.conf"), PROFILE + """
        metadata.path = "gs://lake-metadata/clicks/"
        job.max-attempts = 2
        """);
    ProfileRegistry registry = ProfileRegistry.load(profiles, new Home(home));
    try (Ledger ledger = SqliteLedger.open(home.resolve("ledger.db"), clock)) {
      ledger.recordFile(new RecordFile("lake.web.clicks", "2026-11-30", "lake-landing", "clicks/dt=2026-11-30/part-0.parquet",
          1001L, "gs://lake-landing/clicks/dt=2026-11-30/part-0.parquet", 100, "evt-1", clock.instant(),
          Optional.empty(), false));
      ledger.markReady(new MarkReady("lake.web.clicks", "2026-11-30", "clicks/dt=2026-11-30/", "evt-2",
          clock.instant()));
      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      BatchRunner runner = BatchRunner.builder(registry, ledger, p -> launcher)
          .clock(clock).storage(() -> storage).events(events::add).build();
      // Two launches end without a word from the job: the batch gives up, its outcome unknown.
      dataproc.script(state(Batch.State.FAILED, "Driver exited with exit code 137"));
      runner.runOnce();
      clock.advance(Duration.ofSeconds(1));
      runner.runOnce();
      String batchId = ledger.tableStatus("lake.web.clicks").failedBatches().get(0).batchId();
      BatchRecord gaveUp = ledger.batch(batchId).orElseThrow();
      assertThat(gaveUp.state()).isEqualTo(BatchState.FAILED);
      assertThat(gaveUp.error().orElseThrow()).startsWith("gave up after 2 attempt(s); " + UnknownOutcome.PHRASE);
      String dataprocPrefix = "f2i-" + batchId.toLowerCase(java.util.Locale.ROOT) + "-a";
      assertThat(dataproc.creates).extracting(CreateBatchRequest::getBatchId)
          .containsExactly(dataprocPrefix + "1", dataprocPrefix + "2");

      RetryPlan.ofBatch(ledger, batchId).apply(ledger, done -> { });
      // The relaunched job finds the batch absent from the table, loads it and commits it.
      dataproc.runs(request -> ledger.commitBatch(new CommitBatch(batchId, 42L, BatchMetrics.EMPTY)))
          .script(state(Batch.State.SUCCEEDED));
      RunSummary summary = runner.runOnce();

      String manifestUri = "gs://lake-metadata/clicks/batches/" + batchId + ".json";
      assertThat(dataproc.creates).hasSize(3);
      assertThat(dataproc.creates.get(2).toBuilder().clearRequestId().build())
          .isEqualTo(expectedCreate(dataprocPrefix + "3", manifestUri, batchId.toLowerCase(java.util.Locale.ROOT), 3));
      assertThat(dataproc.creates).extracting(CreateBatchRequest::getRequestId).doesNotHaveDuplicates();
      assertThat(events).filteredOn(BatchLaunched.class::isInstance).extracting(e -> ((BatchLaunched) e).jobId())
          .containsExactly(dataprocPrefix + "1", dataprocPrefix + "2", dataprocPrefix + "3");
      assertThat(summary.committed()).extracting(BatchCommitted::batchId).containsExactly(batchId);
      BatchRecord committed = ledger.batch(batchId).orElseThrow();
      assertThat(committed.state()).isEqualTo(BatchState.COMMITTED);
      assertThat(committed.attempts()).isEqualTo(1);
      assertThat(committed.launches()).isEqualTo(3);
      assertThat(ledger.partition("lake.web.clicks", "2026-11-30").orElseThrow().state())
          .isEqualTo(PartitionState.INGESTED);
    }
  }

  @Test
  void aTransientCreateErrorIsRetriedWithTheSameRequestId() {
    dataproc.failCreates(Status.UNAVAILABLE);

    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThat(job.jobId()).isEqualTo(DATAPROC_ID);
    assertThat(dataproc.creates).hasSize(2);
    assertThat(dataproc.creates.get(1)).isEqualTo(dataproc.creates.get(0));
  }

  @Test
  void aCreateDataprocRefusesIsANonRetryableLaunchException() {
    dataproc.failCreates(Status.INVALID_ARGUMENT.withDescription("Unsupported runtime version 9.9"));

    assertThatThrownBy(() -> launcher.launch(manifest(), MANIFEST_URI, 1))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessageStartingWith("Table lake.web.clicks batch " + BATCH_ID + ": Dataproc refused to create batch "
            + BATCH_NAME + ": INVALID_ARGUMENT:")
        .hasMessageContaining("Unsupported runtime version 9.9");
  }

  @Test
  void aQuotaErrorOnCreateIsRetryableLater() {
    dataproc.failCreates(Status.RESOURCE_EXHAUSTED.withDescription("Insufficient CPUS quota"));

    assertThatThrownBy(() -> launcher.launch(manifest(), MANIFEST_URI, 1))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isTrue())
        .hasMessageContaining("RESOURCE_EXHAUSTED");
    assertThat(dataproc.creates).hasSize(1);
  }

  @Test
  void aManifestNotOnCloudStorageIsRefusedBeforeAnyRequest() {
    assertThatThrownBy(() -> launcher.launch(manifest(), "/home/me/.files2iceberg/metadata/clicks/manifest.json", 1))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessage("Table lake.web.clicks batch " + BATCH_ID + ": a Dataproc batch reads its manifest from Cloud"
            + " Storage: metadata.path must be a gs:// URI, the manifest is"
            + " /home/me/.files2iceberg/metadata/clicks/manifest.json");
    assertThat(dataproc.creates).isEmpty();
  }

  @Test
  void aMissingRegionIsAConfigurationErrorNamingTheKey() {
    JobSettings job = withRegion(deployment.job(), Optional.empty());

    assertThatThrownBy(() -> launcher(job))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.dataproc-region: required for the Dataproc launcher");
  }

  @Test
  void aRegionThatIsNoRegionNameIsAConfigurationErrorNamingTheKey() {
    JobSettings job = withRegion(deployment.job(), Optional.of("europe-west1.googleapis.com:443"));

    assertThatThrownBy(() -> launcher(job))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.dataproc-region: not a region name such as europe-west1: \"europe-west1.googleapis.com:443\"");
  }

  @Test
  void aMissingJarUriIsAConfigurationErrorNamingTheKey() {
    JobSettings job = withJar(deployment.job(), Optional.empty());

    assertThatThrownBy(() -> launcher(job))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.jar-uri: required with job.dataproc-region: the gs:// URI of"
            + " files2iceberg-spark-job-<version>-all.jar");
  }

  @Test
  void aLocalJarUriIsAConfigurationErrorNamingTheKey() {
    JobSettings job = withJar(deployment.job(), Optional.of("file:///opt/files2iceberg/job-all.jar"));

    assertThatThrownBy(() -> launcher(job))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.jar-uri: must be a gs:// URI for Dataproc Serverless, is \"file:///opt/files2iceberg/job-all.jar\"");
  }

  @Test
  void aMissingProjectIsAConfigurationError() {
    assertThatThrownBy(() -> new DataprocLauncher(deployment.job(), " ", dataproc.client(), Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the Dataproc launcher needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT or"
            + " ledger.firestore-project");
  }

  static final BatchLoadReport REPORT = new BatchLoadReport("lake.web.clicks", BATCH_ID, false, 4242,
      BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(), new BatchMetrics(1, 100, 3, 0, 3, 0, 0, 0, 1, 2, 3, 4),
      List.of(), Optional.empty());

  /** Puts the job's result object of an attempt beside {@link #MANIFEST_URI}, as the job does. */
  private AttemptResult writeResult(int attempt, JobExit exit, Optional<BatchLoadReport> report,
      Optional<String> error) {
    AttemptResult result = new AttemptResult("lake.web.clicks", BATCH_ID, attempt, exit.code(), exit, report, error,
        1, Instant.parse("2026-11-30T12:00:01Z"), Instant.parse("2026-11-30T12:00:31Z"));
    String location = AttemptResult.locationBeside(MANIFEST_URI, attempt);
    assertThat(location).isEqualTo("gs://lake-metadata/clicks/batches/20261130T120000-1a2b3c4d/manifest-attempt"
        + attempt + ".result.json");
    String object = location.substring("gs://lake-metadata/".length());
    storage.create(BlobInfo.newBuilder(BlobId.of("lake-metadata", object)).build(),
        result.toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return result;
  }

  /** The request {@link #PROFILE} sends for one launch, without its request id. */
  private static CreateBatchRequest expectedCreate(String dataprocId, String manifestUri, String batchLabel,
      int attempt) {
    return CreateBatchRequest.newBuilder()
        .setParent(PARENT)
        .setBatchId(dataprocId)
        .setBatch(Batch.newBuilder()
            .setSparkBatch(SparkBatch.newBuilder()
                .setMainClass("io.files2iceberg.sparkjob.BatchJob")
                .addJarFileUris(JAR)
                .addArgs("--manifest")
                .addArgs(manifestUri)
                .addArgs("--attempt")
                .addArgs(String.valueOf(attempt)))
            .setRuntimeConfig(RuntimeConfig.newBuilder()
                .setVersion("2.2")
                .putProperties("spark.executor.instances", "4")
                .putProperties("spark.dynamicAllocation.enabled", "false")
                .putProperties("spark.files2iceberg.log-format", "JSON"))
            .setEnvironmentConfig(EnvironmentConfig.newBuilder()
                .setExecutionConfig(ExecutionConfig.newBuilder()
                    .setServiceAccount(SERVICE_ACCOUNT)
                    .setSubnetworkUri(SUBNETWORK)))
            .putLabels("files2iceberg-table", "lake_web_clicks")
            .putLabels("files2iceberg-batch", batchLabel))
        .build();
  }

  private DataprocLauncher launcher(JobSettings job) throws Exception {
    return new DataprocLauncher(job, "lake-prod", dataproc.client(),
        new DataprocLauncher.Polling(Duration.ofMillis(10), Duration.ofSeconds(5), 2), new AttemptResults(() -> storage));
  }

  /** The deployment a profile of old gives, its job section the Dataproc settings. */
  private Deployment deployment(String hocon) throws Exception {
    Path folder = Files.createTempDirectory(home, "profile-of-old");
    Files.writeString(folder.resolve("clicks.conf"), hocon);
    return ProfileRegistry.load(folder, new Home(home)).deployment();
  }

  private TableProfile profile(String hocon) throws Exception {
    return ProfileLoader.parse(hocon, home.resolve("clicks.conf"), new Home(home));
  }

  private BatchManifest manifest() {
    return manifest(profile);
  }

  private static BatchManifest manifest(TableProfile profile) {
    return BatchManifest.of(BATCH_ID, profile, DeploymentLoader.defaults(new Home(Path.of("home"))), profile.extract().batchFile().ingestionType(), true,
        Instant.parse("2026-11-30T12:00:00Z"), List.of());
  }

  private static JobSettings withRegion(JobSettings job, Optional<String> region) {
    return new JobSettings(job.sparkProperties(), job.master(), region, job.runtimeVersion(), job.serviceAccount(),
        job.subnetwork(), job.jarUri(), job.leaseTimeout(), job.maxAttempts());
  }

  private static JobSettings withJar(JobSettings job, Optional<String> jar) {
    return new JobSettings(job.sparkProperties(), job.master(), job.dataprocRegion(), job.runtimeVersion(),
        job.serviceAccount(), job.subnetwork(), jar, job.leaseTimeout(), job.maxAttempts());
  }
}
