package io.files2iceberg.batcher.engine.launch.kubernetes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.batcher.engine.launch.dataproc.DataprocLauncher;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.StorageSettings;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the Spark job on Kubernetes (GKE): one driver pod per launch in {@code
 * job.kubernetes.namespace}, then the pod read every poll interval until it has ended.
 *
 * <p>The launcher creates the driver pod itself ({@link DriverPods}), as Spark's cluster-mode
 * submission would: the pod runs {@code spark-submit --deploy-mode client} from {@code
 * job.kubernetes.image} as {@code job.kubernetes.service-account}, and the driver creates its
 * executor pods, owned by the driver pod. Spark's own submission client ({@code spark-kubernetes})
 * is not used: the batcher carries no Spark. The pod is named {@code f2i-<batch id>-a<attempt>} and
 * labelled {@value DataprocLauncher#TABLE_LABEL} and {@value DataprocLauncher#BATCH_LABEL}.
 *
 * <p>The job runs with {@code --attempt <N>} and writes its {@code AttemptResult} as one object
 * beside the manifest; once the pod has ended, the launcher reads that object and falls back on the
 * pod's phase, its driver container's exit code and the end of its log ({@link DriverPodOutcome})
 * only when the job wrote none. Thread-safe: the client is shared by all launches.
 */
public final class KubernetesLauncher implements Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesLauncher.class);

  /** How often {@link LaunchedJob#await} reads the driver pod. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(10);

  static final int DEFAULT_MAX_CONSECUTIVE_ERRORS = 5;
  static final int DEFAULT_LOG_LINES = 50;

  static final int NOT_FOUND = 404;
  static final int CONFLICT = 409;
  /** HTTP statuses worth another try; 0 is no answer at all (a connection that failed). */
  private static final Set<Integer> TRANSIENT = Set.of(0, 408, 429, 500, 502, 503, 504);

  /**
   * How launched pods are watched.
   *
   * @param interval between two reads of the pod (and between two tries of a create that failed
   *     transiently)
   * @param maxConsecutiveErrors transient errors in a row tolerated before giving up
   * @param logLines how many lines of a failed driver's log its result quotes
   */
  record Polling(Duration interval, int maxConsecutiveErrors, int logLines) {
    Polling {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("poll interval must be positive, is " + interval);
      }
      if (maxConsecutiveErrors < 0) {
        throw new IllegalArgumentException("maxConsecutiveErrors must not be negative, is " + maxConsecutiveErrors);
      }
      if (logLines < 1) {
        throw new IllegalArgumentException("logLines must be positive, is " + logLines);
      }
    }
  }

  private final DriverPods pods;
  private final KubernetesClient client;
  private final Polling polling;
  private final AttemptResults results;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * A launcher on the given client, which it closes on {@link #close()}.
   *
   * @param results reads the result objects the job writes beside its manifest
   * @throws IllegalArgumentException naming the {@code job.*} key when the settings cannot work
   */
  KubernetesLauncher(JobSettings job, KubernetesClient client, Polling polling, AttemptResults results) {
    this(new DriverPods(Objects.requireNonNull(job, "job")), client, polling, results);
  }

  private KubernetesLauncher(DriverPods pods, KubernetesClient client, Polling polling, AttemptResults results) {
    this.pods = pods;
    this.client = Objects.requireNonNull(client, "client");
    this.polling = Objects.requireNonNull(polling, "polling");
    this.results = Objects.requireNonNull(results, "results");
  }

  /**
   * A launcher with a client configured the way {@code kubectl} is: inside a pod, its service
   * account's token and the cluster's API server; elsewhere {@code ~/.kube/config} or {@code
   * KUBECONFIG}. It polls every {@link #DEFAULT_POLL_INTERVAL}.
   *
   * @throws IllegalArgumentException naming the {@code job.*} key when the settings cannot work
   * @throws LaunchException when the client cannot be created
   */
  public static KubernetesLauncher connect(JobSettings job, StorageSettings storage) {
    // The settings are checked before a client is made: a bad one needs no cluster to show.
    DriverPods pods = new DriverPods(job);
    KubernetesClient client;
    try {
      client = new KubernetesClientBuilder().build();
    } catch (KubernetesClientException e) {
      throw new LaunchException("cannot create the Kubernetes client: " + describe(e), false, e);
    }
    try {
      return new KubernetesLauncher(pods, client,
          new Polling(DEFAULT_POLL_INTERVAL, DEFAULT_MAX_CONSECUTIVE_ERRORS, DEFAULT_LOG_LINES),
          AttemptResults.of(storage));
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /**
   * Creates the driver pod of this attempt and returns at once; {@link LaunchedJob#await} watches
   * it. When the pod of this attempt exists already (a batcher that crashed after creating it), that
   * pod is watched instead: one attempt never runs twice.
   *
   * @throws LaunchException retryable for transient errors (after bounded tries), otherwise not (a
   *     manifest not on {@code gs://}, a pod Kubernetes refuses, missing permissions, a pod of that
   *     name that belongs to another batch)
   */
  @Override
  public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
    String table = manifest.table();
    String batchId = manifest.batchId();
    if (!manifestUri.startsWith("gs://")) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": a driver pod on Kubernetes reads its"
          + " manifest from Cloud Storage: metadata.path must be a gs:// URI, the manifest is " + manifestUri, false);
    }
    return start(pods.forAttempt(manifest, manifestUri, attempt), table, batchId, manifestUri,
        Optional.of(AttemptResult.locationBeside(manifestUri, attempt)));
  }

  /**
   * The driver pod of an earlier attempt, {@code f2i-<batch id>-a<attempt>}, when it is ours and
   * still {@code Pending}, {@code Running} or {@code Unknown}: recovery watches it rather than
   * creating the next attempt's pod beside it. Empty when it does not exist or has ended (its
   * result object then says how).
   *
   * @throws LaunchException (retryable when transient) when the pod cannot be read
   */
  @Override
  public Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
    if (!manifestUri.startsWith("gs://")) {
      return Optional.empty();
    }
    String podName = pods.forAttempt(manifest, manifestUri, attempt).getMetadata().getName();
    Pod existing;
    try {
      existing = client.pods().inNamespace(pods.namespace()).withName(podName).get();
    } catch (KubernetesClientException e) {
      throw new LaunchException("Table " + manifest.table() + " batch " + manifest.batchId() + ": cannot read driver"
          + " pod " + podName + " in namespace " + pods.namespace() + ": " + describe(e), isTransient(e), e);
    }
    if (existing == null || !DriverPods.batchLabel(manifest.batchId()).equals(batchLabelOf(existing))) {
      return Optional.empty();
    }
    String phase = existing.getStatus() == null || existing.getStatus().getPhase() == null ? ""
        : existing.getStatus().getPhase();
    if (phase.equals("Succeeded") || phase.equals("Failed")) {
      return Optional.empty();
    }
    LOG.info("Table {} batch {}: driver pod {} of attempt {} is still {}; watching it", manifest.table(),
        manifest.batchId(), podName, attempt, phase.isEmpty() ? "without a phase" : phase);
    return Optional.of(new DriverPodJob(client, polling, pods.namespace(), podName, manifest.table(),
        manifest.batchId(), manifestUri, Optional.of(AttemptResult.locationBeside(manifestUri, attempt)), results));
  }

  /**
   * Creates a driver pod running another main class of the job's jar, {@code f2i-<runId>-a1},
   * labelled with the table and the run id, and returns at once. Its arguments must point at Cloud
   * Storage for whatever it reads or writes.
   */
  @Override
  public LaunchedJob launchMain(SparkMainRun run) {
    return start(pods.forMain(run), run.table(), run.runId(), run.mainClass(), Optional.empty());
  }

  private LaunchedJob start(Pod pod, String table, String batchId, String what, Optional<String> resultLocation) {
    String podName = pod.getMetadata().getName();
    create(pod, table, batchId);
    DriverPodJob job = new DriverPodJob(client, polling, pods.namespace(), podName, table, batchId, what,
        resultLocation, results);
    LOG.info("Table {} batch {} ({}): launched driver pod {} in namespace {}: {}", table, batchId, what, podName,
        pods.namespace(), job.log().orElseThrow());
    return job;
  }

  /**
   * Creates the pod, again after a transient error: the pod's name is the attempt's, so a create
   * whose answer was lost finds its pod on the next try (409) and watches it.
   */
  private void create(Pod pod, String table, String batchId) {
    String podName = pod.getMetadata().getName();
    for (int tries = 1; ; tries++) {
      try {
        client.pods().inNamespace(pods.namespace()).resource(pod).create();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() == CONFLICT) {
          requireOurs(pod, table, batchId);
          return;
        }
        if (!isTransient(e) || tries > polling.maxConsecutiveErrors()) {
          throw new LaunchException("Table " + table + " batch " + batchId + ": Kubernetes refused to create driver pod "
              + podName + " in namespace " + pods.namespace() + ": " + describe(e), isTransient(e), e);
        }
        LOG.warn("Table {} batch {}: creating driver pod {} failed (try {}), trying again: {}", table, batchId, podName,
            tries, describe(e));
        pause(table, batchId);
      }
    }
  }

  /** The pod of this attempt was created before: watch it, after checking that it is ours. */
  private void requireOurs(Pod pod, String table, String batchId) {
    String podName = pod.getMetadata().getName();
    Pod existing;
    try {
      existing = client.pods().inNamespace(pods.namespace()).withName(podName).get();
    } catch (KubernetesClientException e) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": driver pod " + podName + " exists but"
          + " cannot be read: " + describe(e), isTransient(e), e);
    }
    if (existing == null) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": driver pod " + podName + " existed when it"
          + " was created and is gone now; trying again", true);
    }
    String ours = pod.getMetadata().getLabels().get(DataprocLauncher.BATCH_LABEL);
    String theirs = batchLabelOf(existing);
    if (!ours.equals(theirs)) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": pod " + podName + " in namespace "
          + pods.namespace() + " exists and belongs to another batch: label " + DataprocLauncher.BATCH_LABEL
          + " expected: " + ours + " actual: " + theirs, false);
    }
    LOG.info("Table {} batch {}: driver pod {} was created before ({}); watching it", table, batchId, podName,
        existing.getStatus() == null ? "no status yet" : existing.getStatus().getPhase());
  }

  private static String batchLabelOf(Pod pod) {
    return pod.getMetadata().getLabels() == null ? ""
        : pod.getMetadata().getLabels().getOrDefault(DataprocLauncher.BATCH_LABEL, "");
  }

  private void pause(String table, String batchId) {
    try {
      TimeUnit.NANOSECONDS.sleep(polling.interval().toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LaunchException("Table " + table + " batch " + batchId + ": interrupted while creating its driver pod",
          true, e);
    }
  }

  /** Whether trying again later may succeed: no answer, a timeout, throttling, a server error. */
  static boolean isTransient(KubernetesClientException e) {
    return TRANSIENT.contains(e.getCode());
  }

  /** The HTTP status and the API server's message, one line. */
  static String describe(KubernetesClientException e) {
    String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
        : String.valueOf(e.getMessage());
    return (e.getCode() == 0 ? "no answer" : "HTTP " + e.getCode()) + ": " + message.replaceAll("\\s+", " ").strip();
  }

  /** Closes the client; once only, as every profile sharing this launcher closes it. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return "Kubernetes launcher in namespace " + pods.namespace();
  }
}
