package io.files2iceberg.batcher.engine.launch.dataproc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.CreateBatchRequest;
import com.google.cloud.dataproc.v1.EnvironmentConfig;
import com.google.cloud.dataproc.v1.ExecutionConfig;
import com.google.cloud.dataproc.v1.Job;
import com.google.cloud.dataproc.v1.JobPlacement;
import com.google.cloud.dataproc.v1.JobReference;
import com.google.cloud.dataproc.v1.RuntimeConfig;
import com.google.cloud.dataproc.v1.SparkBatch;
import com.google.cloud.dataproc.v1.SparkJob;
import com.google.cloud.dataproc.v1.SubmitJobRequest;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.warm.WarmFolder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm launcher on Dataproc against the fake Dataproc gRPC services, with the driver's side of
 * the folder played by the driver's own {@link WarmFolder} on the same stand-in bucket.
 */
class DataprocWarmLauncherTest {

  static final String BATCH_ID = "20261130T120000-1a2b3c4d";
  static final String MANIFEST_URI = "gs://lake-metadata/clicks/batches/" + BATCH_ID + ".json";
  static final String FOLDER = "gs://lake-metadata/clicks/warm/";
  static final String JAR = "gs://lake-artifacts/jars/files2iceberg-spark-job-0.1.0-all.jar";
  static final String SERVICE_ACCOUNT = "files2iceberg-job@lake-prod.iam.gserviceaccount.com";
  static final String SUBNETWORK = "projects/lake-prod/regions/europe-west1/subnetworks/dataproc";
  static final String PARENT = "projects/lake-prod/locations/europe-west1";

  static final String PROFILE = """
      extract.path = "gs://lake-landing/clicks/dt=*/*.parquet"
      load.iceberg.table = "lake.web.clicks"
      metadata.path = "gs://lake-metadata/clicks"
      ledger { type = firestore, firestore-project = lake-prod }
      job {
        dataproc-region = europe-west1
        runtime-version = "2.2"
        service-account = "%s"
        subnetwork = "%s"
        jar-uri = "%s"
        mode = warm
        warm.idle-timeout = 10m
        warm.ttl = 6h
        spark-properties {
          "spark.executor.instances" = "4"
        }
      }
      """.formatted(SERVICE_ACCOUNT, SUBNETWORK, JAR);

  @TempDir Path home;

  final Storage storage = GcsWithPreconditions.create();
  FakeDataproc dataproc;
  TableProfile profile;
  JobSettings job;
  final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    dataproc = new FakeDataproc();
    Path folder = Files.createTempDirectory(home, "profiles");
    Files.writeString(folder.resolve("clicks.conf"), PROFILE);
    Deployment deployment = ProfileRegistry.load(folder, new Home(home)).deployment();
    profile = ProfileLoader.parse(PROFILE, home.resolve("clicks.conf"), new Home(home));
    job = deployment.job();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closeable : opened) {
      closeable.close();
    }
    dataproc.close();
  }

  static final String DRIVER_1 = DataprocWarmLauncher.driverId(FOLDER, 1);
  static final String DRIVER_2 = DataprocWarmLauncher.driverId(FOLDER, 2);

  @Test
  void launchWritesTheRequestAndCreatesTheExactServerlessDriverBatch() throws Exception {
    LaunchedJob launched = serverless().launch(manifest(BATCH_ID), MANIFEST_URI, 1);

    assertThat(DRIVER_1).matches("f2i-warm-[0-9a-f]{8}-1");
    assertThat(launched.jobId()).isEqualTo(DRIVER_1);
    assertThat(dataproc.creates).hasSize(1);
    assertThat(dataproc.creates.get(0)).isEqualTo(CreateBatchRequest.newBuilder()
        .setParent(PARENT)
        .setBatchId(DRIVER_1)
        .setRequestId(DataprocNames.requestId(DRIVER_1))
        .setBatch(Batch.newBuilder()
            .setSparkBatch(SparkBatch.newBuilder()
                .setMainClass("io.files2iceberg.sparkjob.warm.WarmDriver")
                .addJarFileUris(JAR)
                .addAllArgs(List.of("--folder", FOLDER, "--idle-timeout", "PT10M", "--master", "local[*]",
                    "--driver-id", DRIVER_1, "--conf", "spark.executor.instances=4")))
            .setRuntimeConfig(RuntimeConfig.newBuilder()
                .setVersion("2.2")
                .putProperties("spark.executor.instances", "4")
                .putProperties("spark.files2iceberg.log-format", "JSON"))
            .setEnvironmentConfig(EnvironmentConfig.newBuilder()
                .setExecutionConfig(ExecutionConfig.newBuilder()
                    .setTtl(com.google.protobuf.Duration.newBuilder().setSeconds(6 * 3600))
                    .setServiceAccount(SERVICE_ACCOUNT)
                    .setSubnetworkUri(SUBNETWORK)))
            .putLabels("files2iceberg-warm-folder", DataprocWarmLauncher.folderLabel(FOLDER)))
        .build());
    WarmRequest written = WarmRequest.fromJson(read(FOLDER + "requests/" + BATCH_ID + "-attempt1.request"), "request");
    assertThat(written).isEqualTo(new WarmRequest("lake.web.clicks", BATCH_ID, MANIFEST_URI, 1,
        WarmRequest.fingerprint(manifest(BATCH_ID).deployment().job())));
  }

  @Test
  void aClusterDriverIsTheExactSparkJobSubmittedToTheCluster() throws Exception {
    LaunchedJob launched = cluster().launch(manifest(BATCH_ID), MANIFEST_URI, 1);

    assertThat(launched.jobId()).isEqualTo(DRIVER_1);
    assertThat(dataproc.creates).isEmpty();
    assertThat(dataproc.submits).containsExactly(SubmitJobRequest.newBuilder()
        .setProjectId("lake-prod")
        .setRegion("europe-west1")
        .setRequestId(DataprocNames.requestId(DRIVER_1))
        .setJob(Job.newBuilder()
            .setReference(JobReference.newBuilder().setProjectId("lake-prod").setJobId(DRIVER_1))
            .setPlacement(JobPlacement.newBuilder().setClusterName("ingest-cluster"))
            .setSparkJob(SparkJob.newBuilder()
                .setMainClass("io.files2iceberg.sparkjob.warm.WarmDriver")
                .addJarFileUris(JAR)
                .addAllArgs(List.of("--folder", FOLDER, "--idle-timeout", "PT10M", "--master", "local[*]",
                    "--driver-id", DRIVER_1, "--conf", "spark.executor.instances=4"))
                .putProperties("spark.executor.instances", "4"))
            .putLabels("files2iceberg-warm-folder", DataprocWarmLauncher.folderLabel(FOLDER)))
        .build());
  }

  @Test
  void aSecondBatchWhileTheDriverLivesStartsNoOther() throws Exception {
    DataprocWarmLauncher launcher = serverless();
    launcher.launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    driverSide().hold(DRIVER_1, "f").orElseThrow();

    LaunchedJob second = launcher.launch(manifest("20261130T130000-5e6f7a8b"),
        "gs://lake-metadata/clicks/batches/20261130T130000-5e6f7a8b.json", 1);

    assertThat(second.jobId()).isEqualTo(DRIVER_1);
    assertThat(dataproc.creates).hasSize(1);
  }

  @Test
  void twoBatchersStartingADriverAtOnceCreateOneAndBothUseIt() throws Exception {
    DataprocWarmLauncher first = serverless();
    DataprocWarmLauncher second = serverless();

    LaunchedJob one = first.launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    LaunchedJob other = second.launch(manifest("20261130T130000-5e6f7a8b"),
        "gs://lake-metadata/clicks/batches/20261130T130000-5e6f7a8b.json", 1);

    // The second create was refused with ALREADY_EXISTS: the batch the first one created is used.
    assertThat(dataproc.creates).extracting(CreateBatchRequest::getBatchId).containsExactly(DRIVER_1, DRIVER_1);
    assertThat(one.jobId()).isEqualTo(DRIVER_1);
    assertThat(other.jobId()).isEqualTo(DRIVER_1);
  }

  @Test
  void aDriverThatEndedIsFollowedByTheNextOne() throws Exception {
    DataprocWarmLauncher launcher = serverless();
    launcher.launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    driverSide().hold(DRIVER_1, "f").orElseThrow();
    dataproc.endBatch(PARENT + "/batches/" + DRIVER_1, Batch.State.SUCCEEDED);

    LaunchedJob next = launcher.launch(manifest("20261130T130000-5e6f7a8b"),
        "gs://lake-metadata/clicks/batches/20261130T130000-5e6f7a8b.json", 1);

    assertThat(next.jobId()).isEqualTo(DRIVER_2);
    assertThat(dataproc.creates).extracting(CreateBatchRequest::getBatchId).containsExactly(DRIVER_1, DRIVER_2);
  }

  @Test
  void theRunsResultIsTheJobsOwnOnceTheDriverHasRunIt() throws Exception {
    LaunchedJob launched = serverless().launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    WarmFolder driver = driverSide();
    String name = WarmRequest.name(BATCH_ID, 1);
    assertThat(driver.take(name, DRIVER_1)).isEqualTo(WarmFolder.Take.TAKEN);
    assertThat(launched.await(Duration.ZERO)).isEmpty();

    writeResult(1, JobExit.LOADED);
    driver.finish(name, DRIVER_1);
    JobResult result = launched.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.LOADED);
    assertThat(result.fromJob()).isTrue();
    assertThat(result.report()).contains(REPORT);
  }

  @Test
  void aDriverThatDiesMidBatchLeavesAJobThatDiedForTheTableToDecide() throws Exception {
    LaunchedJob launched = serverless().launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    assertThat(driverSide().take(WarmRequest.name(BATCH_ID, 1), DRIVER_1)).isEqualTo(WarmFolder.Take.TAKEN);

    dataproc.endBatch(PARENT + "/batches/" + DRIVER_1, Batch.State.FAILED);
    JobResult result = launched.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.FAILED);
    assertThat(result.fromJob()).isFalse();
    assertThat(result.detail()).isEqualTo("the warm driver " + DRIVER_1 + " ended while running attempt 1, without"
        + " writing its result");
  }

  @Test
  void aClusterDriverThatDiesMidBatchLeavesAJobThatDied() throws Exception {
    LaunchedJob launched = cluster().launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    assertThat(driverSide().take(WarmRequest.name(BATCH_ID, 1), DRIVER_1)).isEqualTo(WarmFolder.Take.TAKEN);
    assertThat(launched.await(Duration.ZERO)).isEmpty();

    dataproc.endJob(DRIVER_1, com.google.cloud.dataproc.v1.JobStatus.State.ERROR);
    JobResult result = launched.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.fromJob()).isFalse();
    assertThat(result.detail()).startsWith("the warm driver " + DRIVER_1 + " ended while running attempt 1");
  }

  @Test
  void cancellingAWaitingRequestWithdrawsItSoNoDriverRunsIt() throws Exception {
    LaunchedJob launched = serverless().launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    WarmFolder driver = driverSide();

    launched.cancel();

    assertThat(driver.waiting()).isEmpty();
    assertThat(driver.take(WarmRequest.name(BATCH_ID, 1), DRIVER_1)).isEqualTo(WarmFolder.Take.WITHDRAWN);
    JobResult result = launched.await(Duration.ofSeconds(5)).orElseThrow();
    assertThat(result.fromJob()).isFalse();
    assertThat(result.detail()).isEqualTo("the job was cancelled (its Spark job group " + BATCH_ID
        + "-attempt1 in the warm driver)");
  }

  @Test
  void cancellingATakenRequestAsksItsDriverToCancelTheJobGroup() throws Exception {
    LaunchedJob launched = serverless().launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    WarmFolder driver = driverSide();
    assertThat(driver.take(WarmRequest.name(BATCH_ID, 1), DRIVER_1)).isEqualTo(WarmFolder.Take.TAKEN);

    launched.cancel();

    assertThat(driver.cancels()).containsExactly(WarmRequest.name(BATCH_ID, 1));
  }

  @Test
  void recoveryReattachesToARequestALiveDriverRunsAndNotToOneWhoseDriverEnded() throws Exception {
    serverless().launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    assertThat(driverSide().take(WarmRequest.name(BATCH_ID, 1), DRIVER_1)).isEqualTo(WarmFolder.Take.TAKEN);
    DataprocWarmLauncher recovering = serverless();

    assertThat(recovering.reattach(manifest(BATCH_ID), MANIFEST_URI, 1)).map(LaunchedJob::jobId).contains(DRIVER_1);
    dataproc.endBatch(PARENT + "/batches/" + DRIVER_1, Batch.State.CANCELLED);
    assertThat(recovering.reattach(manifest(BATCH_ID), MANIFEST_URI, 1)).isEmpty();
  }

  @Test
  void recoveryReattachesToARequestADriverTakesWhileRecoveryLooksForIt() throws Exception {
    serverless().launch(manifest(BATCH_ID), MANIFEST_URI, 1);
    DataprocWarmLauncher recovering = serverless();
    String name = WarmRequest.name(BATCH_ID, 1);
    // The driver takes the request (running/ created, then the request deleted) right after
    // recovery's first look into the folder, whichever object that look reads.
    afterFirstFolderRead.set(() -> {
      try {
        assertThat(driverSide().take(name, DRIVER_1)).isEqualTo(WarmFolder.Take.TAKEN);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });

    Optional<LaunchedJob> reattached = recovering.reattach(manifest(BATCH_ID), MANIFEST_URI, 1);

    assertThat(afterFirstFolderRead.get()).as("the driver took the request during the lookup").isNull();
    assertThat(reattached).as("an attempt a live driver runs is reattached, never taken for dead").isPresent();
  }

  @Test
  void aClusterDriverWithoutAClusterIsAConfigurationErrorNamingTheKey() {
    JobSettings noCluster = job.withWarmDataproc(JobSettings.WarmPlace.CLUSTER, Optional.empty());

    assertThatThrownBy(() -> DataprocWarmLauncher.connect(noCluster, "lake-prod", StorageSettings.GOOGLE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.dataproc-cluster: is required when job.warm.dataproc = cluster");
  }

  static final BatchLoadReport REPORT = new BatchLoadReport("lake.web.clicks", BATCH_ID, false, 4242,
      BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(), new BatchMetrics(1, 100, 3, 0, 3, 0, 0, 0, 1, 2, 3, 4),
      List.of(), Optional.empty());

  private void writeResult(int attempt, JobExit exit) {
    AttemptResult result = new AttemptResult("lake.web.clicks", BATCH_ID, attempt, exit.code(), exit,
        Optional.of(REPORT), Optional.empty(), 1, Instant.parse("2026-11-30T12:00:01Z"),
        Instant.parse("2026-11-30T12:00:31Z"));
    String location = AttemptResult.locationBeside(MANIFEST_URI, attempt);
    storage.create(BlobInfo.newBuilder(BlobId.of("lake-metadata", location.substring("gs://lake-metadata/".length())))
        .build(), result.toJson().getBytes(StandardCharsets.UTF_8));
  }

  private String read(String uri) {
    String rest = uri.substring("gs://".length());
    int slash = rest.indexOf('/');
    return new String(storage.readAllBytes(BlobId.of(rest.substring(0, slash), rest.substring(slash + 1))),
        StandardCharsets.UTF_8);
  }

  /** Run once, right after the launcher's next read of a request or of its runner; then cleared. */
  private final AtomicReference<Runnable> afterFirstFolderRead = new AtomicReference<>();

  /**
   * The launcher's view of the bucket: the same objects, with {@link #afterFirstFolderRead} run
   * between one of its folder reads and the next, as a driver taking a request at that moment would.
   */
  private Storage racing(Storage bucket) {
    return (Storage) Proxy.newProxyInstance(Storage.class.getClassLoader(), new Class<?>[] {Storage.class},
        (proxy, method, args) -> {
          Object answer;
          try {
            answer = method.invoke(bucket, args == null ? new Object[0] : args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().equals("get") && args != null && args[0] instanceof BlobId id
              && (id.getName().contains("/" + WarmRequest.REQUESTS + "/")
                  || id.getName().contains("/" + WarmRequest.RUNNING + "/"))) {
            Runnable hook = afterFirstFolderRead.getAndSet(null);
            if (hook != null) {
              hook.run();
            }
          }
          return answer;
        });
  }

  private WarmFolder driverSide() {
    return WarmFolder.onCloudStorage(storage, FOLDER, Clock.systemUTC());
  }

  private DataprocLauncher.Polling polling() {
    return new DataprocLauncher.Polling(Duration.ofMillis(10), Duration.ofSeconds(5), 2);
  }

  private DataprocWarmLauncher serverless() throws Exception {
    return launcher(job, new ServerlessWarmDrivers(job, "lake-prod", dataproc.client(), polling()));
  }

  private DataprocWarmLauncher cluster() throws Exception {
    JobSettings onCluster = job.withWarmDataproc(JobSettings.WarmPlace.CLUSTER, Optional.of("ingest-cluster"));
    return launcher(onCluster, new ClusterWarmDrivers(onCluster, "lake-prod", dataproc.jobClient(), polling()));
  }

  private DataprocWarmLauncher launcher(JobSettings settings, WarmDrivers drivers) throws Exception {
    AttemptResults results = new AttemptResults(() -> storage);
    DataprocWarmLauncher launcher = new DataprocWarmLauncher(settings, drivers,
        new DataprocLauncher(settings, "lake-prod", dataproc.client(), polling(), results), racing(storage), polling(),
        results, Clock.systemUTC());
    opened.add(launcher);
    return launcher;
  }

  private BatchManifest manifest(String batchId) throws Exception {
    Path folder = Files.createTempDirectory(home, "deployment");
    Files.writeString(folder.resolve("clicks.conf"), PROFILE);
    Deployment deployment = ProfileRegistry.load(folder, new Home(home)).deployment();
    return BatchManifest.of(batchId, profile, deployment, profile.extract().batchFile().ingestionType(), true,
        Instant.parse("2026-11-30T12:00:00Z"), List.of());
  }
}
