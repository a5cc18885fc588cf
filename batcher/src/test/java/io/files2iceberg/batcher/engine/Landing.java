package io.files2iceberg.batcher.engine;

import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.launch.WarmLocalLauncher;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.memory.InMemoryLedgerStore;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The embedded deployment of one test: a home (SQLite ledger, or one in memory for {@link
 * #inMemory}; JDBC-on-SQLite catalog, warehouse), a folder of profiles and a landing folder. Files
 * land as the listener records them: matched by {@link ObjectMatcher}, identified as local objects
 * (empty bucket, absolute path, last-modified microseconds as the generation) and recorded in the
 * ledger; a {@code _SUCCESS} marks the partition READY.
 */
final class Landing implements AutoCloseable {
  /** The job's build, as the reactor leaves it before the batcher's tests run. */
  static final Path SPARK_JOB_TARGET = Path.of("..", "spark-job", "target");

  final Path root;
  final Home home;
  final Path config;
  final Path landing;
  final MutableClock clock = new MutableClock(Instant.now());
  final Ledger ledger;
  private final AtomicInteger events = new AtomicInteger();
  private final List<WarmLocalLauncher> warmLaunchers = new java.util.concurrent.CopyOnWriteArrayList<>();

  Landing(Path root) throws IOException {
    this(root, true);
  }

  private Landing(Path root, boolean sqlite) throws IOException {
    this.root = root;
    this.home = new Home(root.resolve("home"));
    this.config = Files.createDirectories(root.resolve("profiles"));
    this.landing = Files.createDirectories(root.resolve("landing"));
    this.ledger = sqlite ? SqliteLedger.open(home.ledgerDb(), clock) : InMemoryLedgerStore.ledger(clock);
  }

  /**
   * A landing whose ledger lives in this JVM's memory only, not in the home's {@code ledger.db}: for
   * tests that launch no job, since a job opens the home's ledger file.
   */
  static Landing inMemory(Path root) throws IOException {
    return new Landing(root, false);
  }

  /**
   * Writes a profile loading {@code local.test.<name>} from {@code landing/<name>/<partition>/*.csv}
   * (header, columns {@code id,amount}), keyed by {@code id}, on {@code local[1]}; {@code extra} is
   * HOCON appended to it (later keys win).
   */
  Path profile(String name, String extra) throws IOException {
    String hocon = """
        extract {
          path = "file://%s/%s/*/*.csv"
          format = csv
          options { header = "true" }
        }
        transform.cast.columns { id = BIGINT, amount = INT }
        load {
          iceberg.table = "local.test.%s"
          primary-key = [id]
        }
        job {
          master = "local[1]"
          spark-properties {
            "spark.ui.enabled" = "false"
            "spark.sql.shuffle.partitions" = "1"
            "spark.default.parallelism" = "1"
          }
        }
        """.formatted(landing.toAbsolutePath(), name, name) + extra;
    return Files.writeString(config.resolve(name + ".conf"), hocon);
  }

  ProfileRegistry registry() {
    try {
      return ProfileRegistry.load(config, home);
    } catch (ProfileException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** Writes {@code landing/<name>/<partition>/<file>} with the header and rows {@code id,amount}. */
  Path write(String table, String partition, String file, String... rows) {
    Path path = landing.resolve(table).resolve(partition).resolve(file);
    try {
      Files.createDirectories(path.getParent());
      return Files.writeString(path, "id,amount\n" + String.join("\n", rows) + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Records a landed file as the listener would; returns its file id. */
  String record(Path file) {
    ObjectMatch match = match(file);
    if (!(match instanceof ObjectMatch.DataFile data)) {
      throw new IllegalStateException(file + " is not a data file: " + match);
    }
    ObjectLocation object = data.object();
    FileRecorded recorded = ledger.recordFile(new RecordFile(data.partition().table(), data.partition().token(),
        object.bucket(), object.name(), data.generation(), object.uri(), size(file), nextEvent(), clock.instant(),
        Optional.empty(), !data.profile().extract().batchFile().successFileFilter()));
    return recorded.file().fileId();
  }

  /** Writes and records files, then the partition's {@code _SUCCESS}: the partition is READY. */
  List<String> land(String table, String partition, int files, int firstId) {
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < files; i++) {
      int id = firstId + i;
      ids.add(record(write(table, partition, "part-" + i + ".csv", id + "," + id * 10)));
    }
    markReady(table, partition);
    return ids;
  }

  void markReady(String table, String partition) {
    Path marker = landing.resolve(table).resolve(partition).resolve("_SUCCESS");
    try {
      Files.createDirectories(marker.getParent());
      Files.writeString(marker, "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ObjectMatch match = match(marker);
    if (!(match instanceof ObjectMatch.SuccessMarker ready)) {
      throw new IllegalStateException(marker + " is not a success marker: " + match);
    }
    ledger.markReady(new MarkReady(ready.partition().table(), ready.partition().token(), ready.partition().prefix(),
        nextEvent(), clock.instant()));
  }

  private ObjectMatch match(Path file) {
    ObjectMatcher matcher = new ObjectMatcher(registry().profiles());
    return matcher.match(ObjectLocation.file(file), generation(file), size(file));
  }

  static long generation(Path file) {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class).lastModifiedTime().to(TimeUnit.MICROSECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String nextEvent() {
    return String.valueOf(1000 + events.incrementAndGet());
  }

  /** The real local launcher, smaller than the default so that two jobs fit side by side. */
  LocalSparkLauncher launcher() {
    return new LocalSparkLauncher(SPARK_JOB_TARGET, home.root().resolve("logs"),
        List.of("-Xmx768m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
  }

  /**
   * The warm launcher on this home's driver folder, its driver as small as {@link #launcher()}'s
   * jobs; {@link #close} stops its driver.
   */
  WarmLocalLauncher warmLauncher(java.time.Duration idleTimeout) {
    var job = registry().deployment().job();
    WarmLocalLauncher warm = new WarmLocalLauncher(launcher(), WarmLocalLauncher.folder(home),
        new io.files2iceberg.core.profile.JobSettings(job.sparkProperties(), job.master(), job.dataprocRegion(),
            job.runtimeVersion(), job.serviceAccount(), job.subnetwork(), job.jarUri(), job.leaseTimeout(),
            job.maxAttempts(), job.mode(), idleTimeout));
    warmLaunchers.add(warm);
    return warm;
  }

  /** Every job log under the home, its last lines: what a failed assertion shows. */
  String jobLogs() {
    StringBuilder out = new StringBuilder();
    try (var files = Files.walk(home.root())) {
      for (Path log : files.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
        List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.contains(" INFO ")).toList();
        out.append("\n==== ").append(log).append('\n');
        lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> out.append(l).append('\n'));
      }
    } catch (IOException e) {
      out.append("cannot read the logs: ").append(e);
    }
    return out.toString();
  }

  @Override
  public void close() {
    try {
      for (WarmLocalLauncher warm : warmLaunchers) {
        warm.driverPid().flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
      }
    } finally {
      ledger.close();
    }
  }
}
