package io.files2iceberg.core.warm;

import io.files2iceberg.core.manifest.AtomicFile;
import java.io.Closeable;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A warm driver's folder on a local file system: entries written by a temp file renamed over them
 * ({@link AtomicFile}), taken by an atomic rename, held by a file lock.
 */
public final class LocalMedium implements FolderMedium {
  /** How long a lock is tried for: a batcher probing it holds it for a moment. */
  private static final Duration LOCK_PATIENCE = Duration.ofSeconds(3);

  private final Path folder;

  public LocalMedium(Path folder) {
    this.folder = folder.toAbsolutePath().normalize();
  }

  /** The folder, absolute and normal. */
  public Path folder() {
    return folder;
  }

  @Override
  public String location() {
    return folder.toString();
  }

  /** A directory listing is cheap. */
  @Override
  public Duration poll() {
    return Duration.ofMillis(50);
  }

  /**
   * The base poll: a listing of a local folder costs no request and next to no time, and a batch
   * handed to a local driver (the demo, tests, one machine) should start at once.
   */
  @Override
  public Duration idlePoll() {
    return poll();
  }

  @Override
  public boolean exists() {
    return Files.isDirectory(folder);
  }

  @Override
  public void createFolders(List<String> folders) throws IOException {
    for (String sub : folders) {
      Files.createDirectories(folder.resolve(sub));
    }
  }

  @Override
  public boolean has(String entry) {
    return Files.isRegularFile(folder.resolve(entry));
  }

  @Override
  public Optional<Stored> read(String entry) throws IOException {
    try {
      return Optional.of(new Stored(Files.readAllBytes(folder.resolve(entry)), 0));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * Content through a temp file renamed over the entry; an empty marker ({@code cancel/<name>})
   * created in place, so that no temp file ever stands in a folder a driver lists whole.
   */
  @Override
  public void put(String entry, byte[] content) throws IOException {
    Path file = folder.resolve(entry);
    Files.createDirectories(file.getParent());
    if (content.length == 0) {
      Files.write(file, content);
    } else {
      AtomicFile.replace(file, content);
    }
  }

  @Override
  public boolean delete(String entry) throws IOException {
    return Files.deleteIfExists(folder.resolve(entry));
  }

  @Override
  public List<Listed> list(String sub) throws IOException {
    List<Listed> found = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder.resolve(sub))) {
      for (Path path : stream) {
        found.add(new Listed(path.getFileName().toString(), modified(path)));
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return found;
  }

  private static Instant modified(Path file) {
    try {
      return Files.getLastModifiedTime(file).toInstant();
    } catch (IOException e) {
      return Instant.EPOCH;
    }
  }

  @Override
  public boolean renames() {
    return true;
  }

  @Override
  public boolean move(String from, String to) throws IOException {
    try {
      Files.move(folder.resolve(from), folder.resolve(to), StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (AtomicMoveNotSupportedException e) {
      throw new IllegalStateException("Warm driver folder " + folder + " cannot rename atomically", e);
    }
  }

  @Override
  public Optional<Closeable> lock(String entry) throws IOException {
    FileChannel channel = FileChannel.open(folder.resolve(entry), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = tryLock(channel, entry);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      return Optional.empty();
    }
    return Optional.of(() -> {
      try {
        lock.release();
      } finally {
        channel.close();
      }
    });
  }

  private static FileLock tryLock(FileChannel channel, String entry) throws IOException {
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
        throw new IOException("interrupted while taking " + entry, e);
      }
    }
  }

  /** A local folder takes by rename, not by create-if-absent. */
  @Override
  public Optional<Long> createIfAbsent(String entry, byte[] content) {
    throw new UnsupportedOperationException("a local folder takes by rename: " + folder);
  }

  /** A local file has no generations. */
  @Override
  public Optional<Long> replaceAt(String entry, long generation, byte[] content) {
    throw new UnsupportedOperationException("a local folder has no generations: " + folder);
  }

  @Override
  public String toString() {
    return location();
  }
}
