package io.files2iceberg.batcher.launch;

import io.files2iceberg.core.manifest.WarmRequest;
import java.util.Objects;
import java.util.Optional;

/**
 * The batcher's side of a warm driver's folder ({@link WarmRequest}'s layout), as a {@link WarmJob}
 * watches its request there: a local folder, or a {@code gs://} one on Dataproc. A request moves
 * only forward: waiting in {@code requests/}, taken by one driver ({@code running/}), then gone
 * once its run has ended (its result written first) or it was withdrawn.
 *
 * <p>Every implementation keeps the promise {@link #withdraw} relies on: a driver runs a request
 * only when its own take removed it from {@code requests/}, so a request whose withdraw found it
 * is never run.
 */
public interface WarmFolder {

  /** Where a request stands in the folder. */
  enum Stage {
    /** In {@code requests/}: no driver has taken it yet. */
    WAITING,
    /** Taken by the driver {@link RequestState#runner} names. */
    TAKEN,
    /** In neither: its run has ended, or it was withdrawn. */
    GONE
  }

  /**
   * A request's stage as one look at the folder found it.
   *
   * @param runner the id of the driver that took it (a local driver's pid, a Dataproc batch or job
   *     id); present exactly when the stage is {@link Stage#TAKEN}
   */
  record RequestState(Stage stage, Optional<String> runner) {
    public RequestState {
      Objects.requireNonNull(stage, "stage");
      Objects.requireNonNull(runner, "runner");
      if (runner.isPresent() != (stage == Stage.TAKEN)) {
        throw new IllegalArgumentException("a request " + stage + " has " + (runner.isPresent() ? "a" : "no")
            + " runner");
      }
    }

    public static RequestState waiting() {
      return new RequestState(Stage.WAITING, Optional.empty());
    }

    public static RequestState takenBy(String driverId) {
      return new RequestState(Stage.TAKEN, Optional.of(driverId));
    }

    public static RequestState gone() {
      return new RequestState(Stage.GONE, Optional.empty());
    }
  }

  /** The folder's path or URI, for logs and messages. */
  String location();

  /**
   * Where the request stands. A take puts the request in {@code running/} no later than it
   * removes it from {@code requests/}, so each implementation reads {@code requests/} first: a
   * request found in neither has gone, and was not taken between the two reads.
   *
   * @throws LaunchException (retryable) when the folder cannot be read
   */
  RequestState state(String name);

  /**
   * Deletes the waiting request.
   *
   * @return true when this delete removed it: then no driver runs it
   * @throws LaunchException (retryable) when the delete fails
   */
  boolean withdraw(String name);

  /**
   * Asks the driver that took the request to cancel its Spark job group; the driver then writes
   * the run's result as the job does.
   *
   * @throws LaunchException (retryable) when the ask cannot be written
   */
  void cancel(String name);
}
