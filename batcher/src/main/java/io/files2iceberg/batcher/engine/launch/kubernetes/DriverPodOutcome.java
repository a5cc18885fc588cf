package io.files2iceberg.batcher.engine.launch.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.files2iceberg.batcher.engine.launch.JobFailures;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.core.manifest.JobExit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The result a driver pod's phase stands for, when the job wrote no result object.
 *
 * <ul>
 *   <li>{@code Pending}, {@code Running}, {@code Unknown} (the node is unreachable): not ended;
 *       but a driver container that can never start ({@link #NEVER_STARTS}: a bad image name, a
 *       missing config map or secret) ends the run as a crash, as nothing could run.
 *   <li>{@code Succeeded}: the driver exited 0, the job's own outcome, {@link JobExit#LOADED}.
 *   <li>{@code Failed} with reason {@code Evicted}: the kubelet stopped the pod; the job may or may
 *       not have committed, so a crash ({@code fromJob = false}), as a cancelled Dataproc batch is.
 *   <li>{@code Failed} otherwise: the job's own {@code files2iceberg:} line at the end of the log
 *       decides, else the driver container's exit code ({@link JobFailures}: 4 REJECTED, 3
 *       CHECKPOINT_FAILED, 2 INVALID_MANIFEST, any other a crash), {@code OOMKilled} named; the
 *       detail carries the end of the log.
 *   <li>The pod is gone (deleted while watched): a crash, like an eviction.
 * </ul>
 */
final class DriverPodOutcome {

  /**
   * Reasons a waiting container gives that no wait cures. {@code ImagePullBackOff} and {@code
   * ErrImagePull} are not among them: a registry may answer later.
   */
  static final Set<String> NEVER_STARTS =
      Set.of("InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError", "CreateContainerError");

  private DriverPodOutcome() {}

  /**
   * The result of a pod in a terminal phase; empty while it may still run.
   *
   * @param logTail the end of the driver container's log, read only for a failed pod
   * @param log where the pod's output is shown
   */
  static Optional<JobResult> of(Pod pod, Supplier<String> logTail, String log) {
    String name = pod.getMetadata().getName();
    PodStatus status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    String phase = status.getPhase() == null ? "" : status.getPhase();
    return switch (phase) {
      case "Succeeded" -> Optional.of(new JobResult(JobExit.LOADED, Optional.empty(),
          "Kubernetes driver pod " + name + " succeeded", true, Optional.of(log)));
      case "Failed" -> Optional.of("Evicted".equals(status.getReason())
          ? crash("Kubernetes driver pod " + name + " was evicted" + message(status), log)
          : failed(name, status, logTail.get(), log));
      case "Pending" -> neverStarts(status)
          .map(waiting -> crash("Kubernetes driver pod " + name + " cannot start: container " + DriverPods.CONTAINER
              + " is waiting: " + waiting, log));
      default -> Optional.empty();
    };
  }

  /** The driver container's reason to wait and its message, when no wait cures it. */
  static Optional<String> neverStarts(PodStatus status) {
    return driverState(status).map(ContainerState::getWaiting)
        .filter(waiting -> NEVER_STARTS.contains(waiting.getReason()))
        .map(DriverPodOutcome::describe);
  }

  /** Why the driver container waits, with its message ({@code ImagePullBackOff: ...}); empty if it does not. */
  static String waitingReason(PodStatus status) {
    return driverState(status).map(ContainerState::getWaiting).map(DriverPodOutcome::describe).orElse("");
  }

  private static String describe(ContainerStateWaiting waiting) {
    return waiting.getReason() + (waiting.getMessage() == null ? "" : ": " + JobFailures.oneLine(waiting.getMessage()));
  }

  /** The state of the driver container: the container named as ours, else the only one. */
  private static Optional<ContainerState> driverState(PodStatus status) {
    List<ContainerStatus> containers = status.getContainerStatuses() == null ? List.of() : status.getContainerStatuses();
    return containers.stream()
        .filter(c -> DriverPods.CONTAINER.equals(c.getName()) || containers.size() == 1)
        .findFirst()
        .map(ContainerStatus::getState);
  }

  /** A pod that is gone while it was watched: deleted by someone, or by its node's garbage collection. */
  static JobResult deleted(String podName, String log) {
    return crash("Kubernetes driver pod " + podName + " was deleted before it ended; the batch may or may not have"
        + " been committed", log);
  }

  private static JobResult crash(String detail, String log) {
    return new JobResult(JobExit.FAILED, Optional.empty(), detail, false, Optional.of(log));
  }

  private static JobResult failed(String name, PodStatus status, String logTail, String log) {
    Optional<ContainerStateTerminated> terminated = driverState(status).map(ContainerState::getTerminated);
    Optional<String> own = JobFailures.jobLine(logTail);
    JobExit exit;
    if (own.isPresent()) {
      exit = JobFailures.classify(logTail);
    } else {
      exit = terminated.map(ContainerStateTerminated::getExitCode).map(JobFailures::ofFailedExitCode)
          .orElse(JobExit.FAILED);
    }
    boolean fromJob = JobFailures.isJobsOwn(logTail, exit);
    String detail = own.map(JobFailures::oneLine).orElseGet(() -> "Kubernetes driver pod " + name + " failed: "
        + terminated.map(DriverPodOutcome::describe).orElse("its driver container has no exit code" + message(status))
        + (logTail.isBlank() ? "" : "; its log ends: " + JobFailures.oneLine(logTail)));
    return new JobResult(exit, Optional.empty(), detail, fromJob, Optional.of(log));
  }

  private static String describe(ContainerStateTerminated terminated) {
    String reason = terminated.getReason() == null ? "" : terminated.getReason();
    String said = switch (reason) {
      case "OOMKilled" -> " (OOMKilled: the container ran out of its memory limit; raise spark.driver.memory or"
          + " spark.driver.memoryOverhead)";
      case "", "Error" -> "";
      default -> " (" + reason + ")";
    };
    return "container " + DriverPods.CONTAINER + " exited with code " + terminated.getExitCode() + said;
  }

  private static String message(PodStatus status) {
    return status.getMessage() == null || status.getMessage().isBlank() ? ""
        : ": " + JobFailures.oneLine(status.getMessage());
  }
}
