package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.manifest.BatchManifest;

/**
 * Starts the Spark job on one batch: a child JVM on this machine ({@link LocalSparkLauncher}), a
 * Dataproc Serverless batch or a driver pod on Kubernetes. The planner chooses one per table ({@code
 * job.dataproc-region}, {@code job.kubernetes.namespace}) and never learns which it got.
 *
 * <p>Launching only starts the job; {@link LaunchedJob#await} watches it. The job is given its
 * attempt ({@code --attempt N}) and writes what it did to an {@code AttemptResult} beside its
 * manifest; a launcher's {@link JobResult} comes from that file whenever the job wrote it. A launcher is used by
 * several tables at once and must be thread-safe.
 */
public interface Launcher extends AutoCloseable {

  /**
   * Starts the job on a manifest that has been written already.
   *
   * @param manifest the batch, as written
   * @param manifestUri where the job reads it: a local path, {@code file://} or {@code gs://} URI
   * @param attempt the launch of this batch being made, from 1 (a relaunch after recovery, a
   *     failed checkpoint or a revival counts up, never down: {@code BatchRecord#launches});
   *     distinguishes logs and remote job ids of one batch
   * @throws LaunchException when the job cannot be started; {@link LaunchException#isRetryable()}
   *     says whether trying again later may succeed
   */
  LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt);

  /**
   * The run of an earlier attempt of this batch that is still running: a job whose batcher died
   * and which outlived it. Recovery watches it (its result is read when it ends) instead of
   * starting a second job on the same batch.
   *
   * @param attempt the launch to look for, as {@link #launch} was given it
   * @return empty when that run has ended, was never started, or this launcher cannot tell; by
   *     default always empty
   */
  default java.util.Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
    return java.util.Optional.empty();
  }

  /**
   * Starts another main class of the job's build where the table's jobs run (a child JVM, a
   * Dataproc batch); {@link LaunchedJob#await} watches it as it watches a batch's job. The result
   * carries no report: the main writes its own result where its arguments say.
   *
   * @throws LaunchException when it cannot be started, as {@link #launch} does; by default (a
   *     launcher that only runs batches) always, not retryable
   */
  default LaunchedJob launchMain(SparkMainRun run) {
    throw new LaunchException("Table " + run.table() + ": " + this + " cannot run " + run.mainClass(), false);
  }

  /**
   * Starts what the first job needs before it is launched, such as a warm driver; by default
   * nothing. A long-running batcher ({@code local}, {@code demo}) calls it once at its start.
   *
   * @throws LaunchException when it cannot be started; a launch tries again
   */
  default void prepare() {}

  /** Releases clients the launcher holds. Jobs already started keep running. */
  @Override
  default void close() {}
}
