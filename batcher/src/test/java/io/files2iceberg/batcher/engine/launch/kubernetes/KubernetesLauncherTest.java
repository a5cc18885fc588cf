package io.files2iceberg.batcher.engine.launch.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubernetes launcher against fabric8's mock API server (CRUD mode, with expectations for
 * errors and logs): the driver pod it creates, and what it makes of each phase of that pod. No
 * Spark runs: the pod's phase is set by the test as the kubelet would.
 */
@EnableKubernetesMockClient(crud = true, kubernetesClientBuilderCustomizer = KubernetesLauncherTest.NoClientRetries.class)
class KubernetesLauncherTest {

  /**
   * The client's own retries of 5xx answers off, so that an error the mock server gives once
   * reaches the launcher, whose bounded tolerance is under test.
   */
  public static final class NoClientRetries implements Consumer<KubernetesClientBuilder> {
    @Override
    public void accept(KubernetesClientBuilder builder) {
      builder.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig();
    }
  }

  static final String NAMESPACE = "lake";
  static final String BATCH_ID = "20261130T120000-1a2b3c4d";
  static final String POD = "f2i-20261130t120000-1a2b3c4d-a1";
  static final String MANIFEST_URI = "gs://lake-metadata/clicks/batches/20261130T120000-1a2b3c4d/manifest.json";
  static final String IMAGE = "europe-docker.pkg.dev/lake-prod/files2iceberg/spark-job:0.1.0";
  static final String LOG = "kubectl --namespace lake logs " + POD;

  static final String DEPLOYMENT = """
      job {
        kubernetes { namespace = lake, image = "%s", service-account = files2iceberg-job }
        spark-properties {
          "spark.executor.instances" = "4"
          "spark.driver.memory" = "2g"
          "spark.kubernetes.executor.request.cores" = "500m"
        }
      }
      """.formatted(IMAGE);

  static final BatchLoadReport REPORT = new BatchLoadReport("lake.web.clicks", BATCH_ID, false, 4242,
      BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(), new BatchMetrics(1, 100, 3, 0, 3, 0, 0, 0, 1, 2, 3, 4),
      List.of(), Optional.empty());

  /**
   * Injected by the extension, one for the class (each test starts from an empty server, {@link
   * #stop}): the mock API server and a client of it, the launchers' and the test's.
   */
  static KubernetesMockServer server;
  static KubernetesClient client;

  @TempDir Path home;

  /** Where the job's result objects are, as the launcher reads them. */
  final Storage storage = LocalStorageHelper.getOptions().getService();
  Deployment deployment;
  TableProfile profile;
  KubernetesLauncher launcher;

  @BeforeEach
  void start() throws Exception {
    deployment = DeploymentLoader.parse(DEPLOYMENT, home.resolve("deployment.conf"), new Home(home));
    profile = ProfileLoader.parse("""
        extract.path = "gs://lake-landing/clicks/dt=*/*.parquet"
        load.iceberg.table = "lake.web.clicks"
        """, home.resolve("clicks.conf"), new Home(home));
    launcher = launcher(deployment.job(), 2);
  }

  /** Forgets every pod and expectation; the launchers share the class's client, which the extension closes. */
  @AfterEach
  void stop() {
    server.reset();
  }

  @Test
  void launchCreatesTheDriverPodThatRunsSparkSubmitInClientMode() {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThat(job.jobId()).isEqualTo(POD);
    assertThat(job.log()).contains(LOG);
    Pod pod = pod();
    assertThat(pod.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
    assertThat(pod.getMetadata().getLabels()).isEqualTo(Map.of(
        "files2iceberg-table", "lake_web_clicks",
        "files2iceberg-batch", "20261130t120000-1a2b3c4d",
        "app.kubernetes.io/managed-by", "files2iceberg",
        "spark-role", "driver"));
    assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("files2iceberg-job");
    assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(pod.getSpec().getContainers()).hasSize(1);
    Container driver = pod.getSpec().getContainers().get(0);
    assertThat(driver.getName()).isEqualTo("spark-kubernetes-driver");
    assertThat(driver.getImage()).isEqualTo(IMAGE);
    assertThat(driver.getCommand()).as("the image's entry point runs the args").isEmpty();
    List<String> expected = new ArrayList<>(List.of("/opt/spark/bin/spark-submit",
        "--master", "k8s://https://kubernetes.default.svc",
        "--deploy-mode", "client",
        "--name", POD,
        "--class", "io.files2iceberg.sparkjob.BatchJob"));
    // The job's Spark properties, sorted, then the launcher's own.
    for (String conf : List.of(
        "spark.driver.memory=2g",
        "spark.executor.instances=4",
        "spark.kubernetes.executor.request.cores=500m",
        "spark.kubernetes.namespace=lake",
        "spark.kubernetes.container.image=" + IMAGE,
        "spark.kubernetes.authenticate.driver.serviceAccountName=files2iceberg-job",
        "spark.kubernetes.driver.pod.name=" + POD,
        "spark.kubernetes.executor.podNamePrefix=" + POD,
        "spark.driver.bindAddress=0.0.0.0",
        "spark.kubernetes.executor.label.files2iceberg-table=lake_web_clicks",
        "spark.kubernetes.executor.label.files2iceberg-batch=20261130t120000-1a2b3c4d",
        "spark.kubernetes.executor.label.app.kubernetes.io/managed-by=files2iceberg",
        "spark.driver.host=$(SPARK_DRIVER_POD_IP)")) {
      expected.addAll(List.of("--conf", conf));
    }
    expected.addAll(List.of("local:///opt/files2iceberg/files2iceberg-spark-job-all.jar",
        "--manifest", MANIFEST_URI, "--attempt", "1"));
    assertThat(driver.getArgs()).containsExactlyElementsOf(expected);
    assertThat(deployment.job().sparkProperties()).allSatisfy((key, value) ->
        assertThat(driver.getArgs()).as("every job.spark-properties entry is passed").contains(key + "=" + value));
    assertThat(driver.getEnv()).singleElement().satisfies(env -> {
      assertThat(env.getName()).isEqualTo("SPARK_DRIVER_POD_IP");
      assertThat(env.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
    });
    // spark.driver.memory 2g and the default overhead, max(384 MiB, 10%), as Spark's cluster mode sizes it.
    assertThat(driver.getResources().getRequests()).isEqualTo(Map.of("cpu", new Quantity("1"),
        "memory", new Quantity("2432Mi")));
    assertThat(driver.getResources().getLimits()).isEqualTo(Map.of("memory", new Quantity("2432Mi")));
  }

  @Test
  void aPendingThenRunningPodIsWaitedForUntilItSucceeds() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);

    setStatus(new PodStatusBuilder().withPhase("Pending").build());
    assertThat(job.await(Duration.ofMillis(50))).isEmpty();
    setStatus(new PodStatusBuilder().withPhase("Running").build());
    assertThat(job.await(Duration.ofMillis(50))).isEmpty();
    setStatus(new PodStatusBuilder().withPhase("Succeeded").build());

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();
    assertThat(result).isEqualTo(new JobResult(JobExit.LOADED, Optional.empty(),
        "Kubernetes driver pod " + POD + " succeeded", true, Optional.of(LOG)));
    assertThat(job.await(Duration.ZERO)).contains(result);
  }

  @Test
  void aSucceededPodReadsTheJobsResultObject() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    AttemptResult written = writeResult(1, JobExit.LOADED, Optional.of(REPORT), Optional.empty());
    setStatus(new PodStatusBuilder().withPhase("Succeeded").build());

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result).isEqualTo(AttemptResults.toJobResult(written, Optional.of(LOG)));
    assertThat(result.report()).contains(REPORT);
  }

  @Test
  void aFailedPodWithAResultObjectIsTheJobsOwnOutcome() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    writeResult(1, JobExit.REJECTED, Optional.empty(),
        Optional.of("files2iceberg: table lake.web.clicks batch " + BATCH_ID + " rejected: column id is null"));
    setStatus(failed(4, "Error"));

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.REJECTED);
    assertThat(result.fromJob()).isTrue();
    assertThat(result.detail()).contains("rejected: column id is null");
  }

  @Test
  void aFailedPodWithoutAResultIsClassifiedByTheDriversExitCodeAndQuotesTheLog() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    expectLog("24/11/30 12:00:30 INFO SparkContext: Successfully stopped SparkContext\nbye\n");
    setStatus(failed(4, "Error"));

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.REJECTED);
    assertThat(result.fromJob()).as("only the job exits 4").isTrue();
    assertThat(result.detail()).isEqualTo("Kubernetes driver pod " + POD + " failed: container spark-kubernetes-driver"
        + " exited with code 4; its log ends: 24/11/30 12:00:30 INFO SparkContext: Successfully stopped SparkContext"
        + " bye");
    assertThat(result.log()).contains(LOG);
  }

  @Test
  void theJobsLineInTheLogDecidesOverTheExitCode() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    String line = "files2iceberg: table lake.web.clicks batch " + BATCH_ID + " rejected: 3 rows break expectation x";
    expectLog("ERROR Executor: Exit status: 143\n" + line + "\n");
    setStatus(failed(1, "Error"));

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.REJECTED);
    assertThat(result.fromJob()).isTrue();
    assertThat(result.detail()).isEqualTo(line);
  }

  @Test
  void anOutOfMemoryKilledDriverIsACrashThatSaysSo() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(failed(137, "OOMKilled"));

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.FAILED);
    assertThat(result.fromJob()).as("the batch may have been committed before the kill").isFalse();
    assertThat(result.detail()).startsWith("Kubernetes driver pod " + POD + " failed: container spark-kubernetes-driver"
        + " exited with code 137 (OOMKilled: the container ran out of its memory limit; raise spark.driver.memory");
  }

  @Test
  void anEvictedPodIsACrashAfterWhichTheBatchMayHaveBeenCommitted() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Failed").withReason("Evicted")
        .withMessage("The node was low on resource: memory.").build());

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result).isEqualTo(new JobResult(JobExit.FAILED, Optional.empty(), "Kubernetes driver pod " + POD
        + " was evicted: The node was low on resource: memory.", false, Optional.of(LOG)));
  }

  @Test
  void aPodDeletedWhileWatchedIsACrash() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Running").build());
    assertThat(job.await(Duration.ofMillis(30))).isEmpty();
    client.pods().inNamespace(NAMESPACE).withName(POD).delete();

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result.exit()).isEqualTo(JobExit.FAILED);
    assertThat(result.fromJob()).isFalse();
    assertThat(result.detail()).isEqualTo("Kubernetes driver pod " + POD + " was deleted before it ended; the batch may"
        + " or may not have been committed");
  }

  @Test
  void aDriverThatCanNeverStartIsACrashAndItsPodIsDeleted() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(waiting("ImagePullBackOff", "Back-off pulling image"));
    assertThat(job.await(Duration.ofMillis(50))).as("a registry may answer later").isEmpty();
    setStatus(waiting("InvalidImageName", "couldn't parse image reference \"Spark:1\""));

    JobResult result = job.await(Duration.ofSeconds(5)).orElseThrow();

    assertThat(result).isEqualTo(new JobResult(JobExit.FAILED, Optional.empty(), "Kubernetes driver pod " + POD
        + " cannot start: container spark-kubernetes-driver is waiting: InvalidImageName: couldn't parse image"
        + " reference \"Spark:1\"", false, Optional.of(LOG)));
    assertThat(client.pods().inNamespace(NAMESPACE).withName(POD).get()).as("deleted").isNull();
  }

  @Test
  void anUnknownPhaseKeepsTheWatch() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Unknown").build());

    assertThat(job.await(Duration.ofMillis(50))).isEmpty();
    setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
    assertThat(job.await(Duration.ofSeconds(5))).hasValueSatisfying(r -> assertThat(r.exit()).isEqualTo(JobExit.LOADED));
  }

  @Test
  void transientErrorsWhileWatchingAreToleratedUpToTheBound() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
    server.expect().get().withPath(podPath()).andReturn(503, "unavailable").times(2);

    assertThat(job.await(Duration.ofSeconds(5))).hasValueSatisfying(r -> assertThat(r.exit()).isEqualTo(JobExit.LOADED));
  }

  @Test
  void moreTransientErrorsInARowThanTheBoundFailTheWatchRetryably() {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    server.expect().get().withPath(podPath()).andReturn(503, "unavailable").times(3);

    assertThatThrownBy(() -> job.await(Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isTrue())
        .hasMessageStartingWith("Table lake.web.clicks batch " + BATCH_ID + ": cannot read driver pod " + POD
            + " in namespace lake: 2 transient errors in a row, the last HTTP 503");
  }

  @Test
  void aForbiddenReadFailsTheWatchAtOnce() {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    server.expect().get().withPath(podPath()).andReturn(403, "pods is forbidden").once();

    assertThatThrownBy(() -> job.await(Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessageStartingWith("Table lake.web.clicks batch " + BATCH_ID + ": cannot read driver pod " + POD
            + " in namespace lake: HTTP 403");
  }

  @Test
  void aTransientErrorOnCreateIsTriedAgain() {
    server.expect().post().withPath("/api/v1/namespaces/lake/pods").andReturn(503, "unavailable").once();

    launcher.launch(manifest(), MANIFEST_URI, 1);

    assertThat(pod().getSpec().getContainers().get(0).getImage()).isEqualTo(IMAGE);
  }

  @Test
  void aRefusedCreateIsNotRetryableAndNamesTheBatchAndPod() {
    server.expect().post().withPath("/api/v1/namespaces/lake/pods").andReturn(403, "forbidden").always();

    assertThatThrownBy(() -> launcher.launch(manifest(), MANIFEST_URI, 1))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessageStartingWith("Table lake.web.clicks batch " + BATCH_ID + ": Kubernetes refused to create driver pod "
            + POD + " in namespace lake: HTTP 403");
  }

  @Test
  void thePodOfThisAttemptCreatedBeforeIsWatchedNotCreatedAgain() throws Exception {
    LaunchedJob first = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Running").build());

    LaunchedJob again = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Succeeded").build());

    assertThat(again.jobId()).isEqualTo(first.jobId());
    assertThat(client.pods().inNamespace(NAMESPACE).list().getItems()).hasSize(1);
    assertThat(again.await(Duration.ofSeconds(5))).hasValueSatisfying(r -> assertThat(r.exit()).isEqualTo(JobExit.LOADED));
  }

  @Test
  void aPodOfThatNameOfAnotherBatchIsRefused() {
    client.pods().inNamespace(NAMESPACE).resource(new PodBuilder()
        .withNewMetadata().withName(POD).addToLabels("files2iceberg-batch", "someone-else").endMetadata()
        .withNewSpec().addNewContainer().withName("x").withImage("busybox").endContainer().endSpec()
        .build()).create();

    assertThatThrownBy(() -> launcher.launch(manifest(), MANIFEST_URI, 1))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessage("Table lake.web.clicks batch " + BATCH_ID + ": pod " + POD + " in namespace lake exists and belongs"
            + " to another batch: label files2iceberg-batch expected: 20261130t120000-1a2b3c4d actual: someone-else");
  }

  @Test
  void reattachWatchesARunningPodOfAnEarlierAttemptOnly() throws Exception {
    assertThat(launcher.reattach(manifest(), MANIFEST_URI, 1)).as("no pod").isEmpty();
    launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Running").build());

    LaunchedJob reattached = launcher.reattach(manifest(), MANIFEST_URI, 1).orElseThrow();
    assertThat(reattached.jobId()).isEqualTo(POD);
    assertThat(launcher.reattach(manifest(), MANIFEST_URI, 2)).as("attempt 2 has no pod").isEmpty();
    assertThat(launcher.reattach(manifest(), "/tmp/manifest.json", 1)).as("never on Kubernetes").isEmpty();

    writeResult(1, JobExit.LOADED, Optional.of(REPORT), Optional.empty());
    setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
    assertThat(reattached.await(Duration.ofSeconds(5))).hasValueSatisfying(r -> assertThat(r.report()).contains(REPORT));
    assertThat(launcher.reattach(manifest(), MANIFEST_URI, 1)).as("ended: its result object says how").isEmpty();
  }

  @Test
  void cancelDeletesTheDriverPodAndIsIdempotent() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Running").build());

    job.cancel();
    assertThat(client.pods().inNamespace(NAMESPACE).withName(POD).get()).isNull();
    job.cancel();

    assertThat(job.await(Duration.ofSeconds(5))).hasValueSatisfying(r -> {
      assertThat(r.exit()).isEqualTo(JobExit.FAILED);
      assertThat(r.fromJob()).isFalse();
    });
  }

  @Test
  void cancelKeepsAPodThatHasEndedForItsLog() throws Exception {
    LaunchedJob job = launcher.launch(manifest(), MANIFEST_URI, 1);
    setStatus(new PodStatusBuilder().withPhase("Succeeded").build());

    job.cancel();

    assertThat(pod().getStatus().getPhase()).isEqualTo("Succeeded");
    assertThat(job.await(Duration.ofSeconds(5))).hasValueSatisfying(r -> assertThat(r.exit()).isEqualTo(JobExit.LOADED));
  }

  @Test
  void launchMainRunsTheMainClassWithItsArgumentsInAPodOfItsOwn() {
    LaunchedJob job = launcher.launchMain(new SparkMainRun("lake.web.clicks", "maintain-20261130T120000-1a2b3c4d",
        "io.files2iceberg.sparkjob.maintain.MaintainMain", List.of("--request", "gs://lake-metadata/maintain.json")));

    assertThat(job.jobId()).isEqualTo("f2i-maintain-20261130t120000-1a2b3c4d-a1");
    Pod pod = client.pods().inNamespace(NAMESPACE).withName(job.jobId()).get();
    assertThat(pod.getMetadata().getLabels()).containsEntry("files2iceberg-batch", "maintain-20261130t120000-1a2b3c4d");
    List<String> args = pod.getSpec().getContainers().get(0).getArgs();
    assertThat(args.subList(args.size() - 3, args.size()))
        .containsExactly("local:///opt/files2iceberg/files2iceberg-spark-job-all.jar", "--request",
            "gs://lake-metadata/maintain.json");
    assertThat(args).containsSequence("--class", "io.files2iceberg.sparkjob.maintain.MaintainMain");
  }

  @Test
  void aManifestNotOnCloudStorageIsRefused() {
    assertThatThrownBy(() -> launcher.launch(manifest(), "/tmp/manifest.json", 1))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessage("Table lake.web.clicks batch " + BATCH_ID + ": a driver pod on Kubernetes reads its manifest from"
            + " Cloud Storage: metadata.path must be a gs:// URI, the manifest is /tmp/manifest.json");
  }

  @Test
  void valuesReachSparkAsWrittenNotExpandedByTheKubelet() throws Exception {
    Deployment withDollar = DeploymentLoader.parse(DEPLOYMENT.replace("\"4\"", "\"$(HOME)\""),
        home.resolve("deployment.conf"), new Home(home));

    launcher(withDollar.job(), 2).launch(manifest(), MANIFEST_URI, 1);

    assertThat(pod().getSpec().getContainers().get(0).getArgs())
        .contains("spark.executor.instances=$$(HOME)", "spark.driver.host=$(SPARK_DRIVER_POD_IP)");
  }

  @Test
  void aDriverMemoryThatIsNoSizeIsAnErrorNamingTheKey() throws Exception {
    Deployment bad = DeploymentLoader.parse(DEPLOYMENT.replace("\"2g\"", "\"two gigs\""),
        home.resolve("deployment.conf"), new Home(home));

    assertThatThrownBy(() -> launcher(bad.job(), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.spark-properties.spark.driver.memory: not a size such as 4g or 512m: \"two gigs\"");
  }

  @Test
  void executorNamePrefixesStayWithinSparksLimitAndApart() {
    String long1 = "f2i-" + "a".repeat(50) + "-a1";
    String long2 = "f2i-" + "a".repeat(50) + "-a2";

    assertThat(DriverPods.executorPrefix(POD)).isEqualTo(POD);
    assertThat(DriverPods.executorPrefix(long1)).hasSize(47).startsWith("f2i-aaa").isNotEqualTo(
        DriverPods.executorPrefix(long2));
  }

  private KubernetesLauncher launcher(JobSettings job, int maxConsecutiveErrors) {
    return new KubernetesLauncher(job, client,
        new KubernetesLauncher.Polling(Duration.ofMillis(10), maxConsecutiveErrors, 50),
        new AttemptResults(() -> storage));
  }

  private BatchManifest manifest() {
    return BatchManifest.of(BATCH_ID, profile, DeploymentLoader.defaults(new Home(home)),
        profile.extract().batchFile().ingestionType(), true, Instant.parse("2026-11-30T12:00:00Z"), List.of());
  }

  private Pod pod() {
    Pod pod = client.pods().inNamespace(NAMESPACE).withName(POD).get();
    assertThat(pod).as("driver pod %s", POD).isNotNull();
    return pod;
  }

  private static String podPath() {
    return "/api/v1/namespaces/lake/pods/" + POD;
  }

  /** Sets the driver pod's status, as the kubelet does. */
  private void setStatus(PodStatus status) {
    Pod pod = pod();
    pod.setStatus(status);
    client.pods().inNamespace(NAMESPACE).resource(pod).updateStatus();
  }

  /** A Failed pod whose driver container exited with that code and reason. */
  private static PodStatus failed(int exitCode, String reason) {
    return new PodStatusBuilder().withPhase("Failed")
        .withContainerStatuses(new ContainerStatusBuilder().withName("spark-kubernetes-driver")
            .withNewState().withNewTerminated().withExitCode(exitCode).withReason(reason).endTerminated().endState()
            .build())
        .build();
  }

  /** A Pending pod whose driver container waits for that reason. */
  private static PodStatus waiting(String reason, String message) {
    return new PodStatusBuilder().withPhase("Pending")
        .withContainerStatuses(new ContainerStatusBuilder().withName("spark-kubernetes-driver")
            .withNewState().withNewWaiting().withReason(reason).withMessage(message).endWaiting().endState()
            .build())
        .build();
  }

  /** The end of the driver container's log, as the API server returns it. */
  private void expectLog(String text) {
    server.expect().get()
        .withPath(podPath() + "/log?pretty=false&container=spark-kubernetes-driver&tailLines=50")
        .andReturn(200, text).always();
  }

  /** Puts the job's result object of an attempt beside {@link #MANIFEST_URI}, as the job does. */
  private AttemptResult writeResult(int attempt, JobExit exit, Optional<BatchLoadReport> report,
      Optional<String> error) {
    AttemptResult result = new AttemptResult("lake.web.clicks", BATCH_ID, attempt, exit.code(), exit, report, error,
        1, Instant.parse("2026-11-30T12:00:01Z"), Instant.parse("2026-11-30T12:00:31Z"));
    String object = AttemptResult.locationBeside(MANIFEST_URI, attempt).substring("gs://lake-metadata/".length());
    storage.create(BlobInfo.newBuilder(BlobId.of("lake-metadata", object)).build(),
        result.toJson().getBytes(StandardCharsets.UTF_8));
    return result;
  }
}
