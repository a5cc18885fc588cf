package io.files2iceberg.batcher.engine.launch;

import java.time.Duration;
import java.util.Optional;

/** One started run of the job, watched until it ends. */
public interface LaunchedJob {

  /**
   * The run's id where it runs: the child's process id for the local launcher, the Dataproc batch
   * id for Dataproc. Logged with the table and the batch id.
   */
  String jobId();

  /**
   * Waits up to {@code timeout} for the job to end.
   *
   * @return the result once the job has ended (every later call returns it again); empty while it
   *     is still running, so that the caller can renew its lease and wait again
   * @throws LaunchException when the run's state cannot be read (retryable when the watcher may
   *     read it later)
   */
  Optional<JobResult> await(Duration timeout) throws InterruptedException;

  /** Where the run's output goes (a local file, a console URL), when known at launch. */
  default Optional<String> log() {
    return Optional.empty();
  }

  /** Stops the run if it is still running; does nothing once it has ended. */
  void cancel();
}
