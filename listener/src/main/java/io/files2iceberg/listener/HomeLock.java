package io.files2iceberg.listener;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One listener per home: a running listener holds an exclusive lock on {@code <home>/listener.lock},
 * which names its process id. The operating system releases the lock when the process ends, however
 * it ends ({@code SIGKILL} included), so a file left behind never blocks the next start; only a live
 * listener does.
 */
final class HomeLock {
  static final String FILE = "listener.lock";

  /** Thrown when another live listener holds the home; the message names its process id. */
  static final class HomeTakenException extends IllegalStateException {
    HomeTakenException(String message) {
      super(message);
    }
  }

  private final FileChannel channel;
  private final FileLock lock;

  private HomeLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the home's lock for this process, until it ends.
   *
   * @throws HomeTakenException when a live listener holds it
   * @throws IOException when the lock file cannot be created or written
   */
  static HomeLock acquire(Path home) throws IOException {
    Files.createDirectories(home);
    Path file = home.resolve(FILE);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this very process
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      String holder = holder(channel);
      channel.close();
      throw new HomeTakenException("the home " + home.toAbsolutePath() + " already has a live listener: process " + holder
          + " holds " + file + "; stop that listener first, or give this one another --home");
    }
    // The lock is taken before the file says whose it is: a reader that finds it empty lost no race.
    channel.truncate(0);
    channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)), 0);
    channel.force(false);
    return new HomeLock(channel, lock);
  }

  /** The process id the lock file names, or "unknown" while its holder has not written it yet. */
  private static String holder(FileChannel channel) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(64);
    channel.read(buffer, 0);
    String pid = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).trim();
    return pid.isEmpty() ? "(unknown)" : pid;
  }

  /** Whether this process still holds the lock (it does until it ends). */
  boolean isHeld() {
    return lock.isValid() && channel.isOpen();
  }
}
