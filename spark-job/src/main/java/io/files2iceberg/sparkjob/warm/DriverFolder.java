package io.files2iceberg.sparkjob.warm;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The folder a warm driver shares with its batchers ({@link io.files2iceberg.core.manifest.WarmRequest}'s
 * layout): a local folder ({@link LocalDriverFolder}) or a {@code gs://} one ({@link
 * GcsDriverFolder}). Each implementation keeps the two promises the driver relies on: one driver
 * holds the folder at a time, and a request is taken by one driver at most, never after a batcher
 * withdrew it.
 */
public interface DriverFolder {

  /** What {@link #take} did. */
  enum Take {
    /** This driver has the request and runs it. */
    TAKEN,
    /** Another driver took it first. */
    TAKEN_BY_ANOTHER,
    /** It is gone: its batcher withdrew it (or it was never there). */
    WITHDRAWN
  }

  /** The folder held by one driver, until {@link #close}. */
  interface Hold extends AutoCloseable {
    /**
     * Says again that the holder is alive.
     *
     * @return false when another driver has taken the folder over: the holder takes no more requests
     */
    boolean renew() throws IOException;

    /** Gives the folder up: a driver started next takes it at once. */
    @Override
    void close() throws IOException;
  }

  /** How often the driver looks for requests and cancels: each look lists the folder. */
  Duration poll();

  /** The folder's URI or path, for logs and messages. */
  String location();

  /** Creates the folder's sub-folders where a store has folders. */
  void create() throws IOException;

  /** Whether the folder is still there; a driver whose folder is deleted exits. */
  boolean exists();

  /**
   * Holds the folder for this driver.
   *
   * @return empty when another live driver holds it
   */
  Optional<Hold> hold(String driverId, String fingerprint) throws IOException;

  /** The names of the waiting requests, oldest first. */
  List<String> waiting() throws IOException;

  /** A waiting request's JSON; empty when it is no longer waiting. */
  Optional<String> readWaiting(String name) throws IOException;

  /** Takes a waiting request for this driver. */
  Take take(String name, String driverId) throws IOException;

  /** Removes a taken request whose run has ended (after its result was written). */
  void finish(String name, String driverId) throws IOException;

  /** The names of the requests a batcher asked to cancel. */
  List<String> cancels() throws IOException;

  /** Removes one cancel request once read. */
  void deleteCancel(String name) throws IOException;
}
