package io.files2iceberg.semantics;

import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.local.LandingNotifier;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.batcher.engine.BatchRunner;
import io.files2iceberg.batcher.engine.RunOptions;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.replay.Replay;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.InProcessJobs;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;

/**
 * One embedded deployment for a test class, the way {@code local} runs it: a home (SQLite ledger,
 * JDBC-on-SQLite catalog), a folder of profiles, a landing folder, the real listener as a child
 * process and the real notifier posting envelopes to it, the real batcher ({@link BatchRunner}) and
 * the real Spark job, run in this JVM on the class's session ({@link InProcessJobs}). Tables are
 * read back through Iceberg's own API.
 */
final class Deployment implements AutoCloseable {
  static final String NAMESPACE = "local.sem.";

  final Path root;
  final Home home;
  final Path profiles;
  final Path landing;
  final ParquetFiles files;
  private final ListenerProcess listener;
  private final LandingNotifier notifier;
  final Ledger ledger;
  final ProfileRegistry registry;
  final SparkSession spark;
  final InProcessJobs jobs;
  private final BatchRunner runner;
  /** Hooks run once each on the first manifest that names their file: between claim and read. */
  private final Map<Path, Consumer<Path>> beforeRead = new ConcurrentHashMap<>();

  /**
   * @param profileTexts profile name to HOCON; {@code LANDING} stands for the landing folder
   */
  Deployment(Path root, Map<String, String> profileTexts) throws Exception {
    this.root = root;
    this.home = new Home(root.resolve("home"));
    this.profiles = Files.createDirectories(root.resolve("profiles"));
    this.landing = Files.createDirectories(root.resolve("landing"));
    this.files = new ParquetFiles(root.resolve("staging"));
    for (Map.Entry<String, String> profile : profileTexts.entrySet()) {
      Files.writeString(profiles.resolve(profile.getKey() + ".conf"),
          profile.getValue().replace("LANDING", landing.toString()));
    }
    this.registry = ProfileRegistry.load(profiles, home);
    TableProfile first = registry.profiles().get(0);
    this.ledger = Ledgers.open(registry.deployment().ledger(), Clock.systemUTC());
    this.spark = Sessions.newSession(CatalogConf.sessionProperties(first, registry.deployment().job()));
    this.jobs = new InProcessJobs(spark, this::beforeRead);
    this.runner = BatchRunner.builder(registry, ledger, profile -> jobs)
        .options(new RunOptions(1, Duration.ofMinutes(10)))
        .build();
    this.listener = ListenerProcess.start(ListenerProcess.locateTarget(System.getenv(), Path.of("")), profiles, home,
        Duration.ofSeconds(90));
    // Ahead of the files' clock, so that every landed file counts as settled at once.
    Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(5));
    this.notifier = new LandingNotifier(landing, listener.pushUri(registry.deployment().listener().pushPath()), Set.of("_SUCCESS"),
        ahead);
  }

  /** The folder of a table's partition in the landing folder. */
  Path partition(String profile, String token) {
    return landing.resolve(profile).resolve(token);
  }

  /** Writes a data file into a partition folder. */
  Path write(String profile, String token, String file, List<ParquetFiles.Column> columns, List<Object[]> rows) {
    return files.write(partition(profile, token).resolve(file), columns, rows);
  }

  /** Writes bytes as they are (a corrupt or an empty file). */
  Path writeBytes(String profile, String token, String file, byte[] bytes) {
    try {
      Path path = partition(profile, token).resolve(file);
      Files.createDirectories(path.getParent());
      return Files.write(path, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void marker(String profile, String token) {
    writeBytes(profile, token, "_SUCCESS", new byte[0]);
  }

  /** Deletes a landed object (no notification follows: GCS notifies only OBJECT_FINALIZE here). */
  static void delete(Path file) {
    try {
      Files.delete(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs {@code hook} once, on the file, when the first manifest naming it is about to be read. */
  void beforeRead(Path file, Consumer<Path> hook) {
    beforeRead.put(file.toAbsolutePath().normalize(), hook);
  }

  private void beforeRead(BatchManifest manifest) {
    for (ManifestFile file : manifest.files()) {
      Path path = Path.of(java.net.URI.create(file.uri())).toAbsolutePath().normalize();
      Consumer<Path> hook = beforeRead.remove(path);
      if (hook != null) {
        hook.accept(path);
      }
    }
  }

  /** Posts every new object and generation to the listener, as the notifier of {@code local} does. */
  LandingNotifier.ScanResult scan() throws InterruptedException {
    LandingNotifier.ScanResult result = notifier.scan();
    if (result.pending() > 0 || result.unsettled() > 0) {
      throw new IllegalStateException("The notifier left objects undelivered: " + result.describe());
    }
    return result;
  }

  /** One batcher run over every ledger-driven table, as {@code batch run-once} (or a round of {@code local}). */
  RunSummary runOnce() {
    return runner.runOnce();
  }

  /** A run of one table when asked ({@code batch run-once --table}, a schedule). */
  RunSummary runTable(String profile) {
    return runner.runTable(profile(profile));
  }

  /** {@code replay --force --partition TOKEN} on a table with a checkpoint, the command's logic. */
  Replay.Report replayForce(String profile, String token) {
    TableProfile table = profile(profile);
    return new Replay(localListing(), ledger, Clock.systemUTC())
        .run(table, PartitionRange.only(table, token), true, false, line -> {});
  }

  /** {@code replay --no-checkpoint --partition TOKEN}: the listed files loaded once, no ledger. */
  RunSummary replayWithoutCheckpoint(String profile, String token) {
    TableProfile table = profile(profile);
    List<ManifestFile> listed = new Replay(localListing(), ledger, Clock.systemUTC())
        .listedFiles(table, PartitionRange.only(table, token));
    return runner.runListed(table, listed);
  }

  private static StorageListing localListing() {
    return new StorageListing(() -> {
      throw new IllegalStateException("the landing folder is listed without a storage client");
    });
  }

  TableProfile profile(String name) {
    return registry.byName(name).orElseThrow(() -> new IllegalArgumentException("no profile " + name));
  }

  /** The table's rows, read through Iceberg's generic reader: column name to value. */
  List<Map<String, Object>> rows(String profile) {
    Table table;
    try {
      table = Spark3Util.loadIcebergTable(spark, NAMESPACE + profile);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot load table " + NAMESPACE + profile + ": " + e, e);
    }
    table.refresh();
    List<Map<String, Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (Types.NestedField field : table.schema().columns()) {
          row.put(field.name(), record.getField(field.name()));
        }
        rows.add(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Whether the catalog has the table. */
  boolean hasTable(String profile) {
    try {
      Spark3Util.loadIcebergTable(spark, NAMESPACE + profile);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** Every ledger record of a partition's files. */
  List<FileRecord> ledgerFiles(String profile, String token) {
    return ledger.filesOfPartition(NAMESPACE + profile, token);
  }

  /** A test class's end: the deployment (when it started) closed, then its folder (when made) deleted. */
  static void closeAndDelete(Deployment deployment, Path dir) throws IOException {
    if (deployment != null) {
      deployment.close();
    }
    if (dir != null) {
      try (var walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
    } finally {
      ledger.close();
      spark.catalog().clearCache();
    }
  }
}
