package io.files2iceberg.batcher.engine.launch.kubernetes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One driver pod, watched by reading it every poll interval until its phase is {@code Succeeded}
 * or {@code Failed}, or it is gone; then its result is the job's result object when there is one,
 * else what {@link DriverPodOutcome} makes of the pod.
 */
final class DriverPodJob implements LaunchedJob {
  private static final Logger LOG = LoggerFactory.getLogger(DriverPodJob.class);

  /** How long a cancelled driver may take to stop (Spark's shutdown hook stops the executors). */
  static final long CANCEL_GRACE_SECONDS = 30;

  private final KubernetesClient client;
  private final KubernetesLauncher.Polling polling;
  private final String namespace;
  private final String podName;
  private final String table;
  private final String batchId;
  private final String what;
  private final String log;
  private final Optional<String> resultLocation;
  private final AttemptResults results;

  private volatile JobResult result;
  /** Transient errors since the last successful read; guarded by {@code this}. */
  private int consecutiveErrors;
  /** The phase (and the driver container's reason to wait) last logged. */
  private String lastPhase = "";
  private boolean warnedUnknownPhase;

  /**
   * @param what the manifest URI, or the main class of a run that is no batch: for log lines
   * @param resultLocation where the job writes its result object; empty for a run that writes none
   */
  DriverPodJob(KubernetesClient client, KubernetesLauncher.Polling polling, String namespace, String podName,
      String table, String batchId, String what, Optional<String> resultLocation, AttemptResults results) {
    this.client = client;
    this.polling = polling;
    this.namespace = namespace;
    this.podName = podName;
    this.table = table;
    this.batchId = batchId;
    this.what = what;
    this.resultLocation = resultLocation;
    this.results = results;
    this.log = "kubectl --namespace " + namespace + " logs " + podName;
  }

  @Override
  public String jobId() {
    return podName;
  }

  @Override
  public Optional<String> log() {
    return Optional.of(log);
  }

  @Override
  public synchronized Optional<JobResult> await(Duration timeout) throws InterruptedException {
    if (result != null) {
      return Optional.of(result);
    }
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    while (true) {
      Optional<JobResult> ended = poll();
      if (ended.isPresent()) {
        result = results.writtenOr(resultLocation, ended.get());
        LOG.info("Table {} batch {} ({}): driver pod {} in namespace {} ended: {}: {}", table, batchId, what, podName,
            namespace, result.exit(), result.detail());
        return Optional.of(result);
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return Optional.empty();
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(remaining, polling.interval().toNanos()));
    }
  }

  /**
   * Reads the pod once: its outcome once it has ended or is gone, else empty. A transient error
   * reads as "no news" up to {@link KubernetesLauncher.Polling#maxConsecutiveErrors} times in a row;
   * the count starts again after every successful read.
   */
  private Optional<JobResult> poll() {
    Pod pod;
    try {
      pod = pod().get();
      consecutiveErrors = 0;
    } catch (KubernetesClientException e) {
      if (!KubernetesLauncher.isTransient(e)) {
        throw new LaunchException("Table " + table + " batch " + batchId + ": cannot read driver pod " + podName
            + " in namespace " + namespace + ": " + KubernetesLauncher.describe(e), false, e);
      }
      consecutiveErrors++;
      if (consecutiveErrors > polling.maxConsecutiveErrors()) {
        consecutiveErrors = 0;
        throw new LaunchException("Table " + table + " batch " + batchId + ": cannot read driver pod " + podName
            + " in namespace " + namespace + ": " + polling.maxConsecutiveErrors() + " transient errors in a row, the"
            + " last " + KubernetesLauncher.describe(e), true, e);
      }
      LOG.warn("Table {} batch {} ({}): reading driver pod {} failed ({} of {} in a row), trying again: {}", table,
          batchId, what, podName, consecutiveErrors, polling.maxConsecutiveErrors(), KubernetesLauncher.describe(e));
      return Optional.empty();
    }
    if (pod == null) {
      return Optional.of(DriverPodOutcome.deleted(podName, log));
    }
    Optional<JobResult> ended = DriverPodOutcome.of(pod, this::logTail, log);
    if (ended.isEmpty()) {
      noteStillRunning(pod);
    } else if ("Pending".equals(pod.getStatus().getPhase())) {
      // A pod that can never start would hold its node's resources for good.
      delete("it cannot start");
    }
    return ended;
  }

  private void noteStillRunning(Pod pod) {
    String phase = pod.getStatus() == null || pod.getStatus().getPhase() == null ? "" : pod.getStatus().getPhase();
    String waiting = pod.getStatus() == null ? "" : DriverPodOutcome.waitingReason(pod.getStatus());
    switch (phase) {
      case "Pending", "Running" -> {
        // Each change once: Pending, Pending (ImagePullBackOff), Running.
        if (!(phase + waiting).equals(lastPhase)) {
          LOG.info("Table {} batch {} ({}): driver pod {} is {}{}", table, batchId, what, podName, phase,
              waiting.isEmpty() ? "" : " (" + waiting + ")");
        }
      }
      default -> {
        if (!warnedUnknownPhase) {
          warnedUnknownPhase = true;
          LOG.warn("Table {} batch {} ({}): driver pod {} is in phase \"{}\" ({}); still watching it", table, batchId,
              what, podName, phase, pod.getStatus() == null ? "no status" : pod.getStatus().getMessage());
        }
      }
    }
    lastPhase = phase + waiting;
  }


  /** The end of the driver container's log; empty (logged) when it cannot be read. */
  private String logTail() {
    try {
      String text = pod().inContainer(DriverPods.CONTAINER).tailingLines(polling.logLines()).getLog();
      return text == null ? "" : text;
    } catch (KubernetesClientException e) {
      LOG.warn("Table {} batch {} ({}): cannot read the log of driver pod {}: {}", table, batchId, what, podName,
          KubernetesLauncher.describe(e));
      return "";
    }
  }

  private PodResource pod() {
    return client.pods().inNamespace(namespace).withName(podName);
  }

  /**
   * Deletes the driver pod, giving the driver {@value #CANCEL_GRACE_SECONDS} seconds to stop; its
   * executor pods, which it owns, go with it, and {@link #await} then reports the pod as deleted.
   * Nothing happens once the pod has ended (it is kept for its log). Best effort, as a kill is: when
   * Kubernetes refuses, the error is logged and the pod may run on; the batcher treats a run it
   * stopped as one that may have committed.
   */
  @Override
  public void cancel() {
    if (result != null) {
      return;
    }
    String phase = "";
    try {
      Pod pod = pod().get();
      phase = pod == null || pod.getStatus() == null ? "" : String.valueOf(pod.getStatus().getPhase());
    } catch (KubernetesClientException e) {
      LOG.warn("Table {} batch {} ({}): cannot read driver pod {} before cancelling it, deleting it anyway: {}", table,
          batchId, what, podName, KubernetesLauncher.describe(e));
    }
    if (phase.equals("Succeeded") || phase.equals("Failed")) {
      // Kept for its log; await reads how it ended.
      LOG.info("Table {} batch {} ({}): driver pod {} has ended already ({}), nothing to cancel", table, batchId, what,
          podName, phase);
      return;
    }
    delete("cancelled");
  }

  /** Deletes the pod, best effort: an error is logged, a pod that is gone already is no error. */
  private void delete(String why) {
    try {
      List<StatusDetails> deleted = pod().withGracePeriod(CANCEL_GRACE_SECONDS).delete();
      if (deleted.isEmpty()) {
        LOG.info("Table {} batch {} ({}): driver pod {} is gone already, nothing to delete ({})", table, batchId, what,
            podName, why);
      } else {
        LOG.info("Table {} batch {} ({}): {}: deleted driver pod {} in namespace {}", table, batchId, what, why,
            podName, namespace);
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() == KubernetesLauncher.NOT_FOUND) {
        LOG.info("Table {} batch {} ({}): driver pod {} is gone already, nothing to delete ({})", table, batchId, what,
            podName, why);
        return;
      }
      LOG.error("Table {} batch {} ({}): {}: cannot delete driver pod {}, it may still be running ({}): {}", table,
          batchId, what, why, podName, log, KubernetesLauncher.describe(e));
    }
  }

  @Override
  public String toString() {
    return "driver pod " + namespace + "/" + podName;
  }
}
