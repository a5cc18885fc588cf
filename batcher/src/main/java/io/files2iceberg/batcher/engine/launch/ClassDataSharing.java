package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.Sha256;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Class-data sharing for the JVMs this machine starts: the Spark child JVMs of the local launcher
 * (the job, the warm driver, {@code sql}, the demo's data writer) and the listener. The first JVM
 * of a build writes the classes it loaded to an archive as it exits ({@code
 * -XX:ArchiveClassesAtExit}), and every later one of the same classpath maps them ({@code
 * -XX:SharedArchiveFile}) instead of loading and verifying them one by one, which is most of a cold
 * JVM's start ({@code sql} running a CREATE, an INSERT and a MERGE: 12.1-13.1 s without the
 * archive, 8.3-8.9 s with it, on 2 cores; BENCHMARKS.md).
 *
 * <p>The archive lives in a cache shared by every home of the user ({@value #CACHE_ENV}, else
 * {@code $XDG_CACHE_HOME/files2iceberg}, else {@code ~/.cache/files2iceberg}), under {@code jvm/},
 * named by a digest of the JVM and of every classpath entry's path, size and time, so a rebuild or
 * another JDK gets an archive of its own. The JVM maps only archives of a classpath of jars, so
 * each folder of classes (a module's {@code target/classes}) is run from a jar of it in the same
 * cache, named by a digest of its files, and each {@code folder/*} as the folder's jars. An archive
 * appears only once its JVM has ended well (not killed mid-write, and not a run that failed before
 * it loaded what a run needs), under a temporary name renamed into place; one JVM at a time writes
 * each archive (a lease file beside it names the writer, and is taken over once that is gone). The
 * newest {@value #KEPT} archives and jars are kept, and temporary files are dropped after a day.
 *
 * <p>A JVM that cannot use an archive (another JDK, a changed jar) runs without it, as it would
 * with none: sharing only saves time. {@value #SWITCH_ENV}{@code =off} turns it off.
 */
public final class ClassDataSharing {
  private static final Logger LOG = LoggerFactory.getLogger(ClassDataSharing.class);

  /** Environment variable naming the cache folder. */
  static final String CACHE_ENV = "FILES2ICEBERG_CACHE";
  /** Environment variable that turns sharing off with {@code off}. */
  static final String SWITCH_ENV = "FILES2ICEBERG_CLASS_DATA_SHARING";
  /** Archives and jars kept in the cache, the most recently used first. */
  static final int KEPT = 4;
  /** How long a lease that names no process yet holds (its writer is starting). */
  static final Duration WRITE_LEASE = Duration.ofMinutes(1);
  /** The JVM's own messages about archives (a skipped signed jar, an archive it cannot map) go nowhere. */
  static final String QUIET = "-Xlog:cds*=off";

  /** The exit codes whose archive is kept: success, SIGINT and SIGTERM. */
  static final java.util.Set<Integer> KEEPING_EXITS = java.util.Set.of(0, 130, 143);

  private static final String FOLDER = "jvm";
  /** What a jar of a folder holds, in its digest: a jar written another way is not reused. */
  private static final String JAR_LAYOUT = "files and folders";
  private static final String ARCHIVE_SUFFIX = ".jsa";
  private static final String WRITING_SUFFIX = ".writing";

  /** The system property {@link #readOnlyWhile} sets. */
  static final String READ_ONLY_PROPERTY = "files2iceberg.class-data-sharing.read-only";

  private final Optional<Path> cache;
  /** Whether a JVM writes the archive when there is none. */
  private final boolean writes;

  private ClassDataSharing(Optional<Path> cache, boolean writes) {
    this.cache = cache;
    this.writes = writes;
  }

  /** Sharing in this cache folder. */
  static ClassDataSharing in(Path cache) {
    return new ClassDataSharing(Optional.of(cache.resolve(FOLDER)), true);
  }

  /** No sharing: a JVM runs as its command says. */
  static ClassDataSharing off() {
    return new ClassDataSharing(Optional.empty(), false);
  }

  /**
   * Sharing as the environment says: {@value #SWITCH_ENV} ({@code off}, or {@code read-only}: map
   * archives, never write one), {@value #CACHE_ENV}, the user's cache; {@link #readOnlyWhile} makes
   * it read-only for a while.
   */
  public static ClassDataSharing fromEnvironment(Map<String, String> env) {
    String chosen = env.getOrDefault(SWITCH_ENV, "").strip();
    if ("off".equalsIgnoreCase(chosen)) {
      return off();
    }
    boolean writes = !"read-only".equalsIgnoreCase(chosen) && !Boolean.getBoolean(READ_ONLY_PROPERTY);
    String named = env.getOrDefault(CACHE_ENV, "");
    if (!named.isBlank()) {
      return new ClassDataSharing(Optional.of(Path.of(named).resolve(FOLDER)), writes);
    }
    String xdg = env.getOrDefault("XDG_CACHE_HOME", "");
    Path base = xdg.isBlank() ? Path.of(System.getProperty("user.home"), ".cache") : Path.of(xdg);
    return new ClassDataSharing(Optional.of(base.resolve("files2iceberg").resolve(FOLDER)), writes);
  }

  /** Runs the work with sharing read-only for the JVMs it starts: they map archives, write none. */
  public static <T> T readOnlyWhile(java.util.concurrent.Callable<T> work) throws Exception {
    String before = System.getProperty(READ_ONLY_PROPERTY);
    System.setProperty(READ_ONLY_PROPERTY, "true");
    try {
      return work.call();
    } finally {
      if (before == null) {
        System.clearProperty(READ_ONLY_PROPERTY);
      } else {
        System.setProperty(READ_ONLY_PROPERTY, before);
      }
    }
  }

  /**
   * One start of a JVM: its command with sharing, and what to do once it has exited.
   *
   * @param command the command to run
   * @param writing the archive this JVM writes as it exits, if it writes one
   */
  public record Start(List<String> command, Optional<Writing> writing) {
    public Start {
      command = List.copyOf(command);
    }

    /**
     * Records the process as the archive's writer, and publishes the archive it wrote, or clears
     * its lease, once it has exited.
     *
     * @return done once that is done: a caller that waits for the process and then exits waits for
     *     it too, or the archive is lost with its lease
     */
    public CompletableFuture<Void> whenExited(Process process) {
      if (writing.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      Writing w = writing.get();
      w.heldBy(process.toHandle());
      return process.onExit().thenAccept(done -> w.finish(done.exitValue()));
    }

    /** The process did not start. */
    public void notStarted() {
      writing.ifPresent(w -> w.finish(-1));
    }
  }

  /**
   * An archive being written: its temporary file, its place, and the lease that keeps other JVMs
   * from writing it too, which names the writing process once it runs.
   */
  public record Writing(Path temporary, Path archive, Path lease) {
    /** Names the writing process in the lease: its pid and start. */
    void heldBy(ProcessHandle writer) {
      try {
        Files.writeString(lease, writer.pid() + " " + startOf(writer).orElse(0L));
      } catch (IOException e) {
        LOG.debug("Class-data sharing: cannot write {}: {}", lease, e.toString());
      }
    }

    /**
     * Renames the archive into place when its JVM succeeded or was stopped (exit code 0, or 130
     * and 143 for SIGINT and SIGTERM, as a listener stops: the JVM ran its exit, so the archive is
     * whole, and it did its work, so the archive holds the classes a run needs; a job that failed
     * on its manifest loaded few, and one killed with SIGKILL wrote part of it), and clears the
     * lease.
     */
    void finish(int exitCode) {
      try {
        if (KEEPING_EXITS.contains(exitCode) && Files.isRegularFile(temporary) && Files.size(temporary) > 0) {
          Files.move(temporary, archive, StandardCopyOption.ATOMIC_MOVE);
          // The lease first: a command that exits right after its JVM may cut this thread short.
          deleteQuietly(lease);
          LOG.debug("Class-data sharing: wrote {} for the next JVMs of that classpath", archive);
          prune(archive.getParent(), ARCHIVE_SUFFIX);
        }
      } catch (IOException e) {
        LOG.debug("Class-data sharing: cannot keep {}: {}", temporary, e.toString());
      } finally {
        deleteQuietly(temporary);
        deleteQuietly(lease);
      }
    }
  }

  private static Optional<Long> startOf(ProcessHandle process) {
    return process.info().startInstant().map(Instant::toEpochMilli);
  }

  /**
   * The command with sharing: after {@code java}, the options that map the archive of its
   * classpath, or (when there is none yet and no other JVM writes it) write it at exit; in {@code
   * -cp}, a jar for each folder of classes. The command as given when it has no {@code -cp}, when
   * sharing is off, or when the cache cannot be written.
   */
  public Start start(List<String> command) {
    int cp = command.indexOf("-cp");
    if (cache.isEmpty() || cp < 1 || cp + 1 >= command.size()) {
      return new Start(command, Optional.empty());
    }
    Path folder = cache.get();
    try {
      Files.createDirectories(folder);
      String classpath = jarred(folder, command.get(cp + 1));
      Path archive = folder.resolve("jvm-" + digestOf(classpath) + ARCHIVE_SUFFIX);
      List<String> shared = new ArrayList<>(command);
      shared.set(cp + 1, classpath);
      Optional<Writing> writing = Optional.empty();
      if (Files.isRegularFile(archive)) {
        // The most recently used archives are the ones pruning keeps.
        Files.setLastModifiedTime(archive, FileTime.from(Instant.now()));
        shared.addAll(1, List.of("-XX:SharedArchiveFile=" + archive, QUIET));
      } else if (writes) {
        writing = lease(archive);
        writing.ifPresent(w -> shared.addAll(1, List.of("-XX:ArchiveClassesAtExit=" + w.temporary(), QUIET)));
      }
      return new Start(shared, writing);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Class-data sharing off for this JVM: {}", e.toString());
      return new Start(command, Optional.empty());
    }
  }

  /**
   * The lease to write an archive, unless another JVM holds it: one that runs, or one starting (a
   * lease younger than {@link #WRITE_LEASE} that names no process yet). A lease whose writer is
   * gone without clearing it (its batcher died first, so nobody saw its exit) is taken over, and
   * what it wrote is dropped.
   */
  private static Optional<Writing> lease(Path archive) throws IOException {
    Path lease = archive.resolveSibling(archive.getFileName() + WRITING_SUFFIX);
    if (Files.exists(lease) && !heldByAWriter(lease)) {
      deleteQuietly(lease);
    }
    String prefix = archive.getFileName() + ".";
    Instant dayAgo = Instant.now().minus(Duration.ofDays(1));
    try (Stream<Path> files = Files.list(archive.getParent())) {
      // What a writer that is gone left of this archive, and of others a day ago.
      files.filter(f -> f.getFileName().toString().endsWith(".tmp"))
          .filter(f -> f.getFileName().toString().startsWith(prefix) && !Files.exists(lease)
              || modified(f).toInstant().isBefore(dayAgo))
          .forEach(ClassDataSharing::deleteQuietly);
    }
    try {
      Files.createFile(lease);
    } catch (FileAlreadyExistsException e) {
      return Optional.empty();
    }
    Path temporary = archive.resolveSibling(archive.getFileName() + "." + UUID.randomUUID() + ".tmp");
    return Optional.of(new Writing(temporary, archive, lease));
  }

  /** Whether the lease's writer runs, or is starting. */
  private static boolean heldByAWriter(Path lease) {
    try {
      String[] writer = Files.readString(lease).strip().split(" ");
      if (writer.length < 2) {
        return Files.getLastModifiedTime(lease).toInstant().isAfter(Instant.now().minus(WRITE_LEASE));
      }
      long start = Long.parseLong(writer[1]);
      return ProcessHandle.of(Long.parseLong(writer[0])).filter(ProcessHandle::isAlive)
          .filter(p -> startOf(p).orElse(0L) == start).isPresent();
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  /**
   * The classpath with each folder of classes replaced by a jar of it in the cache, and each
   * {@code folder/*} by the folder's jars, sorted: the JVM archives classes of a classpath it can
   * compare entry by entry.
   */
  private static String jarred(Path folder, String classpath) throws IOException {
    List<String> entries = new ArrayList<>();
    String wildcard = File.separator + "*";
    for (String entry : classpath.split(File.pathSeparator)) {
      Path path = Path.of(entry.endsWith(wildcard) ? entry.substring(0, entry.length() - 1) : entry);
      if (entry.endsWith(wildcard)) {
        try (Stream<Path> jars = Files.list(path)) {
          jars.filter(jar -> jar.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".jar"))
              .sorted().forEach(jar -> entries.add(jar.toString()));
        }
      } else {
        entries.add(Files.isDirectory(path) ? jarOf(folder, path).toString() : entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /**
   * {@code classes-<digest>.jar} of a folder's files, written once per content, with an entry for
   * each folder too: a resource lookup of a folder (Micronaut finds its beans by listing {@code
   * META-INF/micronaut/<service>/}) finds it in a jar only through its entry.
   */
  private static Path jarOf(Path folder, Path classes) throws IOException {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(classes)) {
      paths = walk.filter(path -> !path.equals(classes)).sorted().toList();
    }
    StringBuilder listing = new StringBuilder(JAR_LAYOUT).append('\n').append(classes);
    for (Path path : paths) {
      listing.append('\n').append(classes.relativize(path));
      if (Files.isRegularFile(path)) {
        listing.append(' ').append(Files.size(path)).append(' ').append(Files.getLastModifiedTime(path).toMillis());
      }
    }
    Path jar = folder.resolve("classes-" + Sha256.hex(listing.toString()).substring(0, 32) + ".jar");
    if (Files.isRegularFile(jar)) {
      return jar;
    }
    Path temporary = folder.resolve(jar.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try (OutputStream out = Files.newOutputStream(temporary); JarOutputStream zip = new JarOutputStream(out)) {
      for (Path path : paths) {
        String name = classes.relativize(path).toString().replace(File.separatorChar, '/');
        boolean isFolder = Files.isDirectory(path);
        JarEntry entry = new JarEntry(isFolder ? name + "/" : name);
        entry.setTime(Files.getLastModifiedTime(path).toMillis());
        zip.putNextEntry(entry);
        if (!isFolder) {
          Files.copy(path, zip);
        }
        zip.closeEntry();
      }
    }
    try {
      Files.move(temporary, jar, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      deleteQuietly(temporary);
    }
    prune(folder, ".jar");
    return jar;
  }

  /** A digest of this JVM and of each classpath entry's path, size and time. */
  private static String digestOf(String classpath) throws IOException {
    StringBuilder key = new StringBuilder(System.getProperty("java.home")).append('\n')
        .append(System.getProperty("java.vm.version"));
    for (String entry : classpath.split(File.pathSeparator)) {
      Path path = Path.of(entry);
      key.append('\n').append(entry);
      if (Files.exists(path)) {
        key.append(' ').append(Files.size(path)).append(' ').append(Files.getLastModifiedTime(path).toMillis());
      }
    }
    return Sha256.hex(key.toString()).substring(0, 32);
  }

  /** Keeps the {@value #KEPT} newest files of a kind. */
  private static void prune(Path folder, String suffix) {
    try (Stream<Path> files = Files.list(folder)) {
      files.filter(f -> f.getFileName().toString().endsWith(suffix))
          .sorted(Comparator.comparing(ClassDataSharing::modified).reversed())
          .skip(KEPT)
          .forEach(ClassDataSharing::deleteQuietly);
    } catch (IOException e) {
      LOG.debug("Class-data sharing: cannot prune {}: {}", folder, e.toString());
    }
  }

  private static FileTime modified(Path file) {
    try {
      return Files.getLastModifiedTime(file);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.debug("Class-data sharing: cannot delete {}: {}", file, e.toString());
    }
  }
}
