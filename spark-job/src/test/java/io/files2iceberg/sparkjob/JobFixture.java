package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.BatchManifestCodec;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import io.files2iceberg.sparkjob.extract.LiveGenerations;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * A files2iceberg home for one test class: the embedded catalog and ledger of its {@link Home},
 * a landing folder, and helpers that do what the listener and the batcher will do (record files,
 * mark partitions ready, claim a batch, write its manifest) and then run the job through its
 * entry point, as the local launcher will.
 */
final class JobFixture {
  static final Instant START = Instant.parse("2024-05-01T10:00:00Z");

  final Home home;
  final MutableClock clock = new MutableClock(START);
  final SparkSession spark;
  private final AtomicInteger events = new AtomicInteger();
  private final AtomicInteger manifests = new AtomicInteger();
  private Function<Path, Ledger> ledgerOpener;

  /** What the last {@link #runJob} printed. */
  String stdout = "";
  String stderr = "";

  /** A home with its own session; {@code catalogProfile} gives the session's catalog properties. */
  JobFixture(Path root, String catalogProfile) {
    this.home = new Home(root);
    this.spark = SparkSessions.newSession(CatalogConf.sparkProperties(profile("catalog_probe", catalogProfile)));
    this.ledgerOpener = path -> SqliteLedger.open(path, clock);
  }

  /** The embedded default: catalog {@code local}, JDBC on SQLite, under this home. */
  static JobFixture embedded(Path root) {
    return new JobFixture(root, """
        extract.path = "file:///landing/probe/*.parquet"
        load.iceberg.table = "local.probe.probe"
        """);
  }

  /** The embedded deployment of this home: its SQLite ledger, the job's defaults. */
  Deployment deployment() {
    return DeploymentLoader.defaults(home);
  }

  /** A profile named {@code name} from HOCON text, resolved against this home. */
  TableProfile profile(String name, String hocon) {
    try {
      return ProfileLoader.parse(hocon, home.root().resolve("profiles").resolve(name + ".conf"), home);
    } catch (ProfileException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * A profile of Parquet files landed as {@code landing/<name>/dt=<day>/<file>}, one date partition
   * a day, of this ingestion type ({@code incremental}, {@code last}, {@code full}), into {@code
   * table} with these more {@code load} keys; {@code extra} is appended at the top level.
   */
  TableProfile dailyParquet(String name, String ingestionType, String table, String loadKeys, String extra) {
    return profile(name, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            ingestion-type = %s
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load {
          iceberg.table = "%s"
          %s
        }
        %s
        """.formatted(landing(name), ingestionType, table, loadKeys, extra));
  }

  /** The Iceberg table as it is now. */
  Table icebergTable(String table) {
    try {
      Table loaded = Spark3Util.loadIcebergTable(spark, table);
      loaded.refresh();
      return loaded;
    } catch (Exception e) { // Spark's ParseException and NoSuchTableException are checked
      throw new IllegalStateException("cannot load table " + table, e);
    }
  }

  Path landing(String relative) {
    return home.root().resolve("landing").resolve(relative);
  }

  /** Opens the ledger the way the job will (a new connection to the same file each time). */
  Ledger openLedger() {
    return ledgerOpener.apply(home.ledgerDb());
  }

  void openLedgersWith(Function<Path, Ledger> opener) {
    this.ledgerOpener = opener;
  }

  // --- landing files --------------------------------------------------------------------------

  /** Writes the rows with Spark in that format to one file at {@code landing/<relative>}. */
  Path writeFile(String format, String relative, StructType schema, List<Row> rows, Map<String, String> options) {
    Path scratch = home.root().resolve("scratch").resolve("w" + manifests.incrementAndGet());
    spark.createDataFrame(rows, schema).coalesce(1).write().format(format).options(options).save(scratch.toString());
    try (Stream<Path> files = Files.list(scratch)) {
      Path part = files.filter(p -> p.getFileName().toString().startsWith("part-")).findFirst().orElseThrow();
      Path target = landing(relative);
      Files.createDirectories(target.getParent());
      Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path writeFile(String format, String relative, StructType schema, List<Row> rows) {
    return writeFile(format, relative, schema, rows, Map.of());
  }

  /** Writes text as it is (json lines, csv, or garbage). */
  Path writeText(String relative, String text) {
    try {
      Path target = landing(relative);
      Files.createDirectories(target.getParent());
      Files.writeString(target, text, StandardCharsets.UTF_8);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // --- the listener's and the batcher's part ---------------------------------------------------

  /** A landed file as the listener records it. */
  record Landed(Path path, String partition, long generation) {
    static Landed of(Path path, String partition) {
      return new Landed(path, partition, 1);
    }
  }

  /**
   * Records the files, marks their partitions ready and claims them into one batch, as the
   * listener and the batcher do; returns the batch's manifest.
   */
  BatchManifest claimBatch(TableProfile profile, Landed... files) {
    try (Ledger ledger = openLedger()) {
      Set<String> partitions = new LinkedHashSet<>();
      for (Landed file : files) {
        pinGeneration(file);
        clock.advance(Duration.ofSeconds(1));
        ledger.recordFile(new RecordFile(profile.table(), file.partition(), "", file.path().toString(),
            file.generation(), uri(file.path()), size(file.path()), "event-" + events.incrementAndGet(),
            clock.instant(), Optional.empty(), false));
        partitions.add(file.partition());
      }
      for (String partition : partitions) {
        ledger.markReady(new MarkReady(profile.table(), partition, "file:///landing/" + partition + "/",
            "marker-" + events.incrementAndGet(), clock.instant()));
      }
      BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(profile.table(), 1000, Duration.ofMinutes(30), false))
          .orElseThrow();
      ledger.markRunning(batch.batchId(), Duration.ofMinutes(30));
      clock.advance(Duration.ofSeconds(5));
      return BatchManifest.of(batch.batchId(), profile, deployment(), profile.extract().batchFile().ingestionType(),
          profile.extract().saveCheckpoint(), clock.instant(), ledger.filesOfBatch(batch.batchId()));
    }
  }

  /** A manifest the batcher makes without the ledger (mode full lists the files): no checkpoint. */
  BatchManifest unrecordedBatch(TableProfile profile, String batchId, Landed... files) {
    List<ManifestFile> manifestFiles = new ArrayList<>();
    for (Landed file : files) {
      pinGeneration(file);
      manifestFiles.add(new ManifestFile(LedgerSchema.fileId("", file.path().toString(), file.generation()),
          file.path().toUri().toString(),
          file.partition(), file.generation(), size(file.path()), "listed", clock.instant()));
    }
    return new BatchManifest(BatchManifest.CURRENT_VERSION, batchId, profile, deployment(),
        profile.extract().batchFile().ingestionType(), false, clock.instant(), manifestFiles);
  }

  /**
   * Makes the landed file's generation its live one: the job reads only the generation the
   * manifest names, which on the landing folder is the modification time in microseconds.
   */
  static void pinGeneration(Landed file) {
    try {
      Files.setLastModifiedTime(file.path(), FileTime.from(file.generation(), TimeUnit.MICROSECONDS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The landed file's live generation: its modification time in microseconds. */
  static long liveGeneration(Path path) {
    try {
      return ObjectLocation.localGeneration(Files.readAttributes(path, BasicFileAttributes.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path writeManifest(BatchManifest manifest) {
    try {
      Path path = home.metadata(manifest.profile().name()).resolve("batch-" + manifests.incrementAndGet() + ".json");
      Files.createDirectories(path.getParent());
      Files.writeString(path, BatchManifestCodec.toJson(manifest), StandardCharsets.UTF_8);
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // --- the job ---------------------------------------------------------------------------------

  /** Runs the job on the manifest file through its entry point; returns the exit code. */
  int runJob(Path manifest) {
    return runJob(manifest, LiveGenerations.byScheme());
  }

  /**
   * Runs the job as a launcher does ({@code --attempt 1}) and returns the result it wrote beside
   * the manifest; its exit code is the result's.
   */
  io.files2iceberg.core.manifest.AttemptResult runAttempt(Path manifest, LiveGenerations generations) {
    int code = runJob(manifest, generations, "--attempt", "1");
    try {
      String location = io.files2iceberg.core.manifest.AttemptResult.locationBeside(manifest.toString(), 1);
      io.files2iceberg.core.manifest.AttemptResult result = io.files2iceberg.core.manifest.AttemptResult.fromJson(
          Files.readString(Path.of(location)), location);
      assertThat(result.exitCode()).isEqualTo(code);
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs the job as {@link #runJob(Path)} does, asking {@code generations} for live generations. */
  int runJob(Path manifest, LiveGenerations generations) {
    return runJob(manifest, generations, new String[0]);
  }

  private int runJob(Path manifest, LiveGenerations generations, String... more) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      BatchJob job = new BatchJob(clock, outStream, errStream, m -> spark, settings -> openLedger(), generations);
      List<String> args = new ArrayList<>(List.of("--manifest", manifest.toString()));
      args.addAll(List.of(more));
      code = job.execute(args.toArray(String[]::new));
    }
    stdout = out.toString(StandardCharsets.UTF_8);
    stderr = err.toString(StandardCharsets.UTF_8);
    return code;
  }

  /** Writes the manifest, runs the job, expects success and returns its report. */
  BatchLoadReport load(BatchManifest manifest) {
    int code = runJob(writeManifest(manifest));
    assertThat(code).as("exit code; stderr: %s", stderr).isEqualTo(BatchJob.EXIT_OK);
    return report();
  }

  /** The report on the last line of the last run's stdout. */
  BatchLoadReport report() {
    String[] lines = stdout.strip().split("\\R");
    assertThat(lines).as("stdout").hasSize(1);
    return BatchLoadReport.fromMetricsLine(lines[0]).orElseThrow();
  }

  /** The query's rows, each as Spark prints a row: {@code [c1,42,2024-01-01]}. */
  List<String> rows(String sql) {
    return spark.sql(sql).collectAsList().stream().map(Row::toString).toList();
  }

  /** The Spark jobs this session starts while {@code work} runs. */
  int sparkJobs(Runnable work) throws TimeoutException {
    AtomicInteger jobs = new AtomicInteger();
    SparkListener counter = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart jobStart) {
        jobs.incrementAndGet();
      }
    };
    spark.sparkContext().listenerBus().waitUntilEmpty(10_000);
    spark.sparkContext().addSparkListener(counter);
    try {
      work.run();
      spark.sparkContext().listenerBus().waitUntilEmpty(10_000);
    } finally {
      spark.sparkContext().removeSparkListener(counter);
    }
    return jobs.get();
  }

  long snapshotCount(String table) {
    return spark.sql("SELECT * FROM " + table + ".snapshots").count();
  }

  /** The file's URI as the listener records it: literal, not percent-encoded ({@code file:///a b.json}). */
  static String uri(Path path) {
    return ObjectLocation.file(path).uri();
  }

  private static long size(Path path) {
    try {
      return Files.size(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
