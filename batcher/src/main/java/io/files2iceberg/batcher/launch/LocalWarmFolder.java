package io.files2iceberg.batcher.launch;

import io.files2iceberg.core.manifest.AtomicFile;
import io.files2iceberg.core.manifest.WarmRequest;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batcher's side of a local warm driver's folder ({@link WarmRequest}'s layout): it writes
 * requests, withdraws or cancels them, and reads which driver took them. A driver takes a request
 * by one atomic rename from {@code requests/<name>} to {@code running/<name>.<pid>}, so a request
 * is in one of the two at most. The driver's side is {@code
 * io.files2iceberg.sparkjob.warm.LocalDriverFolder}.
 */
final class LocalWarmFolder implements WarmFolder {
  private static final Logger LOG = LoggerFactory.getLogger(LocalWarmFolder.class);

  private final Path folder;

  /** @param folder an absolute, normal path */
  LocalWarmFolder(Path folder) {
    this.folder = folder;
  }

  @Override
  public String location() {
    return folder.toString();
  }

  /**
   * Writes a request in one atomic replace: the driver sees all of it or nothing.
   *
   * @throws IOException when it cannot be written
   */
  void write(WarmRequest request) throws IOException {
    Path requests = folder.resolve(WarmRequest.REQUESTS);
    Files.createDirectories(requests);
    AtomicFile.replace(requests.resolve(request.name()), request.toJson());
  }

  /** Whether the request is in {@code requests/}: no driver has taken it. */
  boolean isWaiting(String name) {
    return Files.isRegularFile(waitingFile(name));
  }

  /**
   * The waiting request as written.
   *
   * @throws IOException when it is no longer there or cannot be read
   * @throws IllegalArgumentException when it is not a request
   */
  WarmRequest readWaiting(String name) throws IOException {
    Path waiting = waitingFile(name);
    return WarmRequest.fromJson(Files.readString(waiting), waiting.toString());
  }

  /** Waiting while in {@code requests/}; the rename that takes it leaves no moment in both. */
  @Override
  public RequestState state(String name) {
    if (isWaiting(name)) {
      return RequestState.waiting();
    }
    return runningPid(name).map(pid -> RequestState.takenBy(Long.toString(pid))).orElseGet(RequestState::gone);
  }

  /**
   * The pid of the driver that has taken the request, when one has.
   *
   * @throws LaunchException (retryable) when {@code running/} cannot be read
   */
  Optional<Long> runningPid(String name) {
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder.resolve(WarmRequest.RUNNING), name + ".*")) {
      for (Path running : stream) {
        String pid = running.getFileName().toString().substring(name.length() + 1);
        try {
          return Optional.of(Long.parseLong(pid));
        } catch (NumberFormatException e) {
          LOG.warn("Ignoring {}: not a running request", running);
        }
      }
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new LaunchException("Cannot read " + folder.resolve(WarmRequest.RUNNING) + ": " + e, true, e);
    }
    return Optional.empty();
  }

  /** True when this delete removed the request: a driver takes only a request its rename finds. */
  @Override
  public boolean withdraw(String name) {
    try {
      return Files.deleteIfExists(waitingFile(name));
    } catch (IOException e) {
      throw new LaunchException("Cannot withdraw " + waitingFile(name) + ": " + e, true, e);
    }
  }

  @Override
  public void cancel(String name) {
    Path cancel = folder.resolve(WarmRequest.CANCEL).resolve(name);
    try {
      Files.createDirectories(cancel.getParent());
      Files.writeString(cancel, "");
    } catch (IOException e) {
      throw new LaunchException("Cannot write " + cancel + ": " + e, true, e);
    }
  }

  private Path waitingFile(String name) {
    return folder.resolve(WarmRequest.REQUESTS).resolve(name);
  }

  @Override
  public String toString() {
    return location();
  }
}
