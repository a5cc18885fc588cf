package io.files2iceberg.batcher.engine.launch.dataproc;

import java.util.List;

/**
 * Where warm drivers run on Dataproc ({@code job.warm.dataproc}): Serverless batches ({@link
 * ServerlessWarmDrivers}) or jobs on a cluster ({@link ClusterWarmDrivers}). A driver's id is its
 * Dataproc batch or job id, chosen by the caller, so that two batchers that start the same
 * driver create one.
 */
interface WarmDrivers extends AutoCloseable {

  /** What Dataproc says of a driver. */
  enum DriverState {
    /** Pending or running: its requests are in hand. */
    ALIVE,
    /** Ended (succeeded, failed, cancelled): a request it took and did not finish died with it. */
    ENDED,
    /** Dataproc has no such batch or job. */
    NOT_FOUND,
    /** Dataproc could not be asked just now. */
    UNKNOWN
  }

  /**
   * Creates the driver's batch or job running {@code mainClass} with these arguments.
   *
   * @return true when this call created it; false when it existed already, created by the same
   *     folder's batchers (its folder label checked)
   * @throws io.files2iceberg.batcher.engine.launch.LaunchException when Dataproc refuses, or the existing
   *     one belongs to another folder
   */
  boolean start(String driverId, String folderLabel, List<String> args);

  /** The driver's state, as Dataproc says it. */
  DriverState state(String driverId);

  /** Where an operator sees the driver and its output. */
  String consoleUrl(String driverId);

  @Override
  void close();
}
