package io.files2iceberg.sparkjob.warm;

import io.files2iceberg.core.manifest.WarmRequest;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A driver folder on a local file system: held by a file lock on {@code driver.lock} (the holder
 * named in {@code driver.pid}), a request taken by an atomic rename into {@code
 * running/<name>.<driver id>}.
 */
public final class LocalDriverFolder implements DriverFolder {
  /** How long a driver tries to take the lock: a batcher probing it holds it for a moment. */
  private static final Duration LOCK_PATIENCE = Duration.ofSeconds(3);

  private final Path folder;

  public LocalDriverFolder(Path folder) {
    this.folder = folder.toAbsolutePath().normalize();
  }

  /** A directory listing is cheap. */
  @Override
  public Duration poll() {
    return Duration.ofMillis(50);
  }

  @Override
  public String location() {
    return folder.toString();
  }

  @Override
  public void create() throws IOException {
    Files.createDirectories(folder.resolve(WarmRequest.REQUESTS));
    Files.createDirectories(folder.resolve(WarmRequest.RUNNING));
    Files.createDirectories(folder.resolve(WarmRequest.CANCEL));
  }

  @Override
  public boolean exists() {
    return Files.isDirectory(folder);
  }

  @Override
  public Optional<Hold> hold(String driverId, String fingerprint) throws IOException {
    FileChannel channel = FileChannel.open(folder.resolve(WarmRequest.DRIVER_LOCK), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = lock(channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      return Optional.empty();
    }
    io.files2iceberg.core.manifest.AtomicFile.replace(folder.resolve(WarmRequest.DRIVER_PID), driverId + "\n" + fingerprint + "\n");
    return Optional.of(new Hold() {
      @Override
      public boolean renew() {
        return true;
      }

      @Override
      public void close() throws IOException {
        // The pid goes before the lock: a batcher that finds no live driver starts one, and
        // that one takes the lock once this process has released it.
        try {
          Files.deleteIfExists(folder.resolve(WarmRequest.DRIVER_PID));
          lock.release();
        } finally {
          channel.close();
        }
      }
    });
  }

  private static FileLock lock(FileChannel channel) throws IOException {
    Instant until = Instant.now().plus(LOCK_PATIENCE);
    while (true) {
      try {
        FileLock lock = channel.tryLock();
        if (lock != null || Instant.now().isAfter(until)) {
          return lock;
        }
      } catch (OverlappingFileLockException e) {
        return null;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while taking " + WarmRequest.DRIVER_LOCK, e);
      }
    }
  }

  @Override
  public List<String> waiting() {
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder.resolve(WarmRequest.REQUESTS),
        "*" + WarmRequest.SUFFIX)) {
      stream.forEach(found::add);
    } catch (IOException e) {
      return List.of();
    }
    found.sort(Comparator.comparing(LocalDriverFolder::modified).thenComparing(Path::toString));
    return found.stream().map(path -> path.getFileName().toString()).toList();
  }

  private static FileTime modified(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  @Override
  public Optional<String> readWaiting(String name) throws IOException {
    try {
      return Optional.of(Files.readString(folder.resolve(WarmRequest.REQUESTS).resolve(name)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public Take take(String name, String driverId) throws IOException {
    Path running = folder.resolve(WarmRequest.RUNNING).resolve(WarmRequest.runningName(name, driverId));
    try {
      Files.move(folder.resolve(WarmRequest.REQUESTS).resolve(name), running, StandardCopyOption.ATOMIC_MOVE);
      return Take.TAKEN;
    } catch (NoSuchFileException e) {
      return Take.WITHDRAWN; // withdrawn before it started (one rename: no other driver had it)
    } catch (AtomicMoveNotSupportedException e) {
      throw new IllegalStateException("Warm driver folder " + folder + " cannot rename atomically", e);
    }
  }

  @Override
  public void finish(String name, String driverId) throws IOException {
    Files.deleteIfExists(folder.resolve(WarmRequest.RUNNING).resolve(WarmRequest.runningName(name, driverId)));
  }

  @Override
  public List<String> cancels() throws IOException {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder.resolve(WarmRequest.CANCEL))) {
      stream.forEach(path -> names.add(path.getFileName().toString()));
    }
    return names;
  }

  @Override
  public void deleteCancel(String name) throws IOException {
    Files.deleteIfExists(folder.resolve(WarmRequest.CANCEL).resolve(name));
  }

  @Override
  public String toString() {
    return location();
  }
}
