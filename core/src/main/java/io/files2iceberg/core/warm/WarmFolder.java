package io.files2iceberg.core.warm;

import com.google.cloud.storage.Storage;
import io.files2iceberg.core.manifest.WarmDriverHeartbeat;
import io.files2iceberg.core.manifest.WarmRequest;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The one protocol of a warm driver's folder ({@link WarmRequest}'s layout), as its batchers and
 * its driver run it over a {@link FolderMedium}. A batcher writes a request, reads where it
 * stands, withdraws or cancels it; a driver holds the folder, takes requests, finishes them and
 * reads cancels. A request moves only forward: waiting in {@code requests/}, taken by one driver
 * ({@code running/}), then gone once its run has ended (its result written first) or it was
 * withdrawn.
 *
 * <p>It keeps the two promises the driver and {@link #withdraw} rely on: one driver holds the
 * folder at a time, and a request is taken by one driver at most, never after a batcher withdrew
 * it (a driver runs a request only when its own take removed it from {@code requests/}). On a
 * medium that {@linkplain FolderMedium#renames renames}, the folder is held by a lock on {@code
 * driver.lock} (the holder named in {@code driver.pid}) and a request taken by one rename into
 * {@code running/<name>.<driver id>}. On Cloud Storage, the folder is held through {@code
 * driver.json} ({@link WarmDriverHeartbeat}), created only where none exists and replaced only at
 * the generation its writer read, so that of two drivers at most one holds it (a holder whose
 * heartbeat is {@link WarmDriverHeartbeat#STALE} is dead, and the next driver replaces it); a
 * request is taken by creating {@code running/<name>} only where none exists (holding the
 * taker's driver id), then deleting {@code requests/<name>}: the taker runs it only if that
 * delete found it.
 */
public final class WarmFolder {

  /** What {@link #take} did. */
  public enum Take {
    /** This driver has the request and runs it. */
    TAKEN,
    /** Another driver took it first. */
    TAKEN_BY_ANOTHER,
    /** It is gone: its batcher withdrew it (or it was never there). */
    WITHDRAWN
  }

  /** The folder held by one driver, until {@link #close}. */
  public interface Hold extends Closeable {
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

  /** Where a request stands in the folder. */
  public enum Stage {
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
  public record RequestState(Stage stage, Optional<String> runner) {
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

  private final FolderMedium medium;
  private final Clock clock;

  /** @param clock the heartbeats' time, on a medium without locks */
  public WarmFolder(FolderMedium medium, Clock clock) {
    this.medium = Objects.requireNonNull(medium, "medium");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A local folder. */
  public static WarmFolder local(Path folder) {
    return new WarmFolder(new LocalMedium(folder), Clock.systemUTC());
  }

  /** A {@code gs://<bucket>/<prefix>/} folder. */
  public static WarmFolder onCloudStorage(Storage storage, String folder, Clock clock) {
    return new WarmFolder(new GcsMedium(storage, folder), clock);
  }

  /** A {@code gs://} folder through the client {@code storage} makes when asked, else a local one. */
  public static WarmFolder at(String location, Supplier<Storage> storage, Clock clock) {
    return location.startsWith("gs://") ? onCloudStorage(storage.get(), location, clock) : local(Path.of(location));
  }

  /** The folder's path or URI, for logs and messages. */
  public String location() {
    return medium.location();
  }

  /** How often the driver looks for requests and cancels: each look lists the folder. */
  public Duration poll() {
    return medium.poll();
  }

  /** The longest a driver with nothing to do waits between two looks ({@link FolderMedium#idlePoll}). */
  public Duration idlePoll() {
    return medium.idlePoll();
  }

  /** Whether the folder is still there; a driver whose folder is deleted exits. */
  public boolean exists() {
    return medium.exists();
  }

  /** Creates the folder's sub-folders where the medium has folders. */
  public void create() throws IOException {
    medium.createFolders(List.of(WarmRequest.REQUESTS, WarmRequest.RUNNING, WarmRequest.CANCEL));
  }

  // ---- the batcher's side

  /** Writes a request in one step: the driver sees all of it or nothing. */
  public void write(WarmRequest request) throws IOException {
    medium.put(waitingEntry(request.name()), request.toJson().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Where the request stands. A take puts the request in {@code running/} no later than it
   * removes it from {@code requests/}, so {@code requests/} is read first: a request found in
   * neither has gone, and was not taken between the two reads. On Cloud Storage a request is
   * taken while {@code running/<name>} exists, even while it is still in {@code requests/} too.
   */
  public RequestState state(String name) throws IOException {
    boolean waiting = medium.has(waitingEntry(name));
    if (waiting && medium.renames()) {
      return RequestState.waiting(); // the rename that takes it leaves no moment in both
    }
    Optional<String> runner = runner(name);
    if (runner.isPresent()) {
      return RequestState.takenBy(runner.get());
    }
    return waiting ? RequestState.waiting() : RequestState.gone();
  }

  /** The waiting request as written; empty when it no longer waits or cannot be read as one. */
  public Optional<WarmRequest> waitingRequest(String name) throws IOException {
    Optional<String> json = readWaiting(name);
    try {
      return json.map(text -> WarmRequest.fromJson(text, location(WarmRequest.REQUESTS, name)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The id of the driver that took the request, while it is taken. */
  public Optional<String> runner(String name) throws IOException {
    if (medium.renames()) {
      String stem = name + ".";
      return medium.list(WarmRequest.RUNNING).stream().map(FolderMedium.Listed::name)
          .filter(running -> running.startsWith(stem) && running.length() > stem.length())
          .map(running -> running.substring(stem.length())).findFirst();
    }
    return medium.read(runningEntry(name, null)).map(WarmFolder::text).map(String::strip);
  }

  /**
   * Deletes the waiting request.
   *
   * @return true when this delete removed it: then no driver runs it
   */
  public boolean withdraw(String name) throws IOException {
    return medium.delete(waitingEntry(name));
  }

  /**
   * Asks the driver that took the request to cancel its Spark job group; the driver then writes
   * the run's result as the job does.
   */
  public void cancel(String name) throws IOException {
    medium.put(WarmRequest.CANCEL + "/" + name, new byte[0]);
  }

  /** What {@code driver.json} says; empty when there is none or it cannot be read as one. */
  public Optional<WarmDriverHeartbeat> holder() throws IOException {
    return medium.read(WarmRequest.DRIVER_JSON).map(stored -> FolderHold.heartbeat(medium, stored));
  }

  // ---- the driver's side

  /**
   * Holds the folder for this driver.
   *
   * @return empty when another live driver holds it
   */
  public Optional<Hold> hold(String driverId, String fingerprint) throws IOException {
    return medium.renames() ? FolderHold.lock(medium, driverId, fingerprint)
        : FolderHold.byHeartbeat(medium, clock, driverId, fingerprint);
  }

  /** The names of the waiting requests, oldest first. */
  public List<String> waiting() throws IOException {
    return medium.list(WarmRequest.REQUESTS).stream().filter(entry -> entry.name().endsWith(WarmRequest.SUFFIX))
        .sorted(Comparator.comparing(FolderMedium.Listed::created).thenComparing(FolderMedium.Listed::name))
        .map(FolderMedium.Listed::name).toList();
  }

  /** A waiting request's JSON; empty when it is no longer waiting. */
  public Optional<String> readWaiting(String name) throws IOException {
    return medium.read(waitingEntry(name)).map(WarmFolder::text);
  }

  /** Takes a waiting request for this driver. */
  public Take take(String name, String driverId) throws IOException {
    String running = runningEntry(name, driverId);
    if (medium.renames()) {
      // One rename: a request withdrawn before it is gone, and no other driver had it.
      return medium.move(waitingEntry(name), running) ? Take.TAKEN : Take.WITHDRAWN;
    }
    if (medium.createIfAbsent(running, driverId.getBytes(StandardCharsets.UTF_8)).isEmpty()) {
      Optional<String> taker = medium.read(running).map(WarmFolder::text);
      if (taker.isEmpty()) {
        throw new IOException("cannot create " + location(WarmRequest.RUNNING, name) + ", yet it does not exist");
      }
      if (!taker.get().equals(driverId)) {
        return Take.TAKEN_BY_ANOTHER;
      }
      // our own create, whose answer was lost
    }
    if (!medium.delete(waitingEntry(name))) {
      // The batcher deleted the request first: withdrawn, so this driver must not run it.
      medium.delete(running);
      return Take.WITHDRAWN;
    }
    return Take.TAKEN;
  }

  /** Removes a taken request whose run has ended (after its result was written). */
  public void finish(String name, String driverId) throws IOException {
    medium.delete(runningEntry(name, driverId));
  }

  /** The names of the requests a batcher asked to cancel. */
  public List<String> cancels() throws IOException {
    return medium.list(WarmRequest.CANCEL).stream().map(FolderMedium.Listed::name).toList();
  }

  /** Removes one cancel request once read. */
  public void deleteCancel(String name) throws IOException {
    medium.delete(WarmRequest.CANCEL + "/" + name);
  }

  private static String waitingEntry(String name) {
    return WarmRequest.REQUESTS + "/" + name;
  }

  /** {@code running/<name>.<driver id>} where a take renames, {@code running/<name>} where it creates. */
  private String runningEntry(String name, String driverId) {
    return WarmRequest.RUNNING + "/" + (medium.renames() ? WarmRequest.runningName(name, driverId) : name);
  }

  /** Where a waiting request is: its path or URI, for logs and messages. */
  public String waitingLocation(String name) {
    return location(WarmRequest.REQUESTS, name);
  }

  private String location(String folder, String name) {
    return medium.renames() ? Path.of(location(), folder, name).toString() : location() + folder + "/" + name;
  }

  static String text(FolderMedium.Stored stored) {
    return new String(stored.content(), StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return location();
  }
}
