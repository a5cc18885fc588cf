package io.files2iceberg.bench;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.StorageListing.Listed;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.BatchManifestCodec;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One batch MERGEd into one table, by files2iceberg's job and by {@code HandWrittenMerge}, in
 * rounds that alternate which side goes first; the home (ledger, catalog, warehouse) is restored
 * from a copy before every run, so each run starts from the same table and the same claimed
 * batch.
 *
 * <p>The table: {@code tableRows} keys in version 1 over ten day folders (day = id % 10), loaded by
 * the job as a first batch. The measured batch: {@code updatedKeys} of those keys in versions 2
 * and 3 (two rows each), all of the last day, and {@code newKeys} new keys, in {@code files} files
 * per set in that same day folder. The key is {@code [id, dt]}: it includes the partition column,
 * so the batch's rows can only match rows of the batch's day. The job
 * runs as the batcher runs it (the local launcher's child JVM on the claimed batch's manifest);
 * the baseline runs in a child JVM with the same classpath, options and {@code local[2]}. Both
 * are timed from process start to exit.
 */
final class MergeBench {
  static final String TABLE = "local.bench.events";
  static final String JOB = "files2iceberg";
  static final String BASELINE = "hand-written";
  /** The seed's ten days end on the batch's day: the keys of the batch's day are those with id % 10 == 9. */
  private static final String SEED_FIRST_DAY = "2026-11-21";
  private static final String BATCH_DAY = "2026-11-30";

  private final String suite;
  private final String label;
  private final long tableRows;
  private final long updatedKeys;
  private final long newKeys;
  private final int files;
  private final Path work;
  private final Duration timeout;
  private final Report report;
  private final Path home;
  private final Path landing;
  private final Path pristine;
  private final LocalSparkLauncher launcher;
  private final TableProfile profile;
  private final Deployment deployment;
  private BatchManifest batch;
  private Path manifestFile;
  private Path fileList;
  private final Map<String, String> checks = new LinkedHashMap<>();

  MergeBench(String suite, String label, long tableRows, long updatedKeys, long newKeys, int files, Path work,
      Duration timeout, Report report) throws Exception {
    this.suite = suite;
    this.label = label;
    this.tableRows = tableRows;
    this.updatedKeys = updatedKeys;
    this.newKeys = newKeys;
    this.files = files;
    this.work = work;
    this.timeout = timeout;
    this.report = report;
    this.home = work.resolve("home");
    this.landing = work.resolve("landing").resolve("bench");
    this.pristine = work.resolve("pristine");
    Path profiles = Files.createDirectories(work.resolve("profiles"));
    Path profileFile = profiles.resolve("bench.conf");
    Files.writeString(profileFile, Bench.dayProfile("file://" + landing.toString() + "/dt=*/*.parquet", "parquet", "iceberg.table = " + TABLE + "\nprimary-key = [id, dt]\npartition-by = [dt]\niceberg.precombine-field = version"));
    Files.writeString(profiles.resolve("deployment.conf"), """
        job.master = "local[2]"
        job.spark-properties { "spark.ui.enabled" = "false" }
        """);
    ProfileRegistry registry = ProfileRegistry.load(profileFile, new Home(home));
    this.profile = registry.profiles().get(0);
    this.deployment = registry.deployment();
    this.launcher = new LocalSparkLauncher(LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")),
        new Home(home));
  }

  /** Generates the data, loads the table and claims the measured batch; then copies the home. */
  void prepare() throws Exception {
    Bench.progress("[" + suite + " " + label + "] generating " + tableRows + " table rows");
    generate("seed", 0, tableRows, 1, "1", SEED_FIRST_DAY, 10, 1);
    BatchManifest seed = claim();
    Bench.progress("[" + suite + " " + label + "] loading them with the job (batch " + seed.batchId() + ")");
    runJob(seed, writeManifest(seed));
    Bench.progress("[" + suite + " " + label + "] generating the batch: " + updatedKeys + " keys x 2 versions + "
        + newKeys + " new keys, " + files + " file(s) per set");
    if (updatedKeys > 0) {
      generate("updated", 9, updatedKeys, Math.max(1, tableRows / updatedKeys), "2,3", BATCH_DAY, 1, files);
    }
    generate("new", tableRows, newKeys, 1, "1", BATCH_DAY, 1, files);
    batch = claim();
    manifestFile = writeManifest(batch);
    fileList = work.resolve("batch-files.txt");
    Files.write(fileList, batch.files().stream().map(f -> Path.of(java.net.URI.create(f.uri())).toString()).toList(),
        StandardCharsets.UTF_8);
    copyTree(home, pristine);
  }

  /** The measured runs: {@code rounds} of both sides, alternating which goes first. */
  void measure(int rounds) throws Exception {
    for (int round = 1; round <= rounds; round++) {
      List<String> order = round % 2 == 1 ? List.of(JOB, BASELINE) : List.of(BASELINE, JOB);
      for (String side : order) {
        restore();
        double[] load = loadAverage();
        long start = System.nanoTime();
        Optional<String> detail = side.equals(JOB) ? runJob(batch, manifestFile) : runBaseline();
        double seconds = (System.nanoTime() - start) / 1e9;
        report.measured(new Report.Measurement(suite, label, side, round, seconds, load[0], loadAverage()[0],
            detail.orElse("")));
        if (round == rounds) {
          checks.put(side, check());
        }
      }
    }
    if (!checks.get(JOB).equals(checks.get(BASELINE))) {
      throw new IllegalStateException("the two sides left different tables: " + checks);
    }
    report.checked(suite, label, checks.get(JOB));
  }

  // --- the batcher's part: record, mark ready, claim, write the manifest ------------------------

  private BatchManifest claim() throws IOException {
    ObjectMatcher matcher = new ObjectMatcher(List.of(profile));
    Map<String, PartitionRef> partitions = new LinkedHashMap<>();
    try (Ledger ledger = SqliteLedger.open(new Home(home).ledgerDb(), Clock.systemUTC());
        Stream<Path> walk = Files.walk(landing)) {
      int event = 0;
      for (Path path : walk.filter(Files::isRegularFile).sorted().toList()) {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        Listed listed = Listed.of(ObjectLocation.file(path), attributes);
        if (matcher.match(listed.location(), listed.generation(), listed.size()) instanceof ObjectMatch.DataFile file) {
          ledger.recordFile(listed.toRecordFile(TABLE, file.partition().token(), "bench-" + (++event), false));
          partitions.putIfAbsent(file.partition().token(), file.partition());
        }
      }
      for (PartitionRef partition : partitions.values()) {
        ledger.markReady(new MarkReady(TABLE, partition.token(), partition.prefix(), "bench-marker-" + partition.token(),
            java.time.Instant.now()));
      }
      BatchRecord claimed = ledger.claimPartitions(new ClaimPartitions(TABLE, 1_000_000, Duration.ofHours(12), false))
          .orElseThrow(() -> new IllegalStateException("nothing to claim in " + landing));
      ledger.markRunning(claimed.batchId(), Duration.ofHours(12));
      return BatchManifest.of(claimed.batchId(), profile, deployment, profile.extract().batchFile().ingestionType(), true,
          claimed.createdAt(), ledger.filesOfBatch(claimed.batchId()));
    }
  }

  private Path writeManifest(BatchManifest manifest) throws IOException {
    Path file = Files.createDirectories(work.resolve("manifests")).resolve(manifest.batchId() + ".json");
    Files.writeString(file, BatchManifestCodec.toJson(manifest), StandardCharsets.UTF_8);
    return file;
  }

  // --- the two sides ---------------------------------------------------------------------------

  /** The job through the local launcher, as the batcher starts it; the detail is its timings. */
  private Optional<String> runJob(BatchManifest manifest, Path file) throws Exception {
    LaunchedJob job = launcher.launch(manifest, file.toString(), 1);
    Optional<JobResult> result = job.await(timeout);
    if (result.isEmpty()) {
      job.cancel();
      throw new IllegalStateException("the job did not finish in " + timeout + " (log: " + job.log().orElse("?") + ")");
    }
    if (result.get().exit() != JobExit.LOADED) {
      throw new IllegalStateException("the job failed: " + result.get().detail() + " (log: "
          + result.get().log().orElse("?") + ")");
    }
    return result.get().report().map(r -> "read " + r.metrics().readMillis() + " ms, merge "
        + r.metrics().mergeMillis() + " ms, commit " + r.metrics().commitMillis() + " ms");
  }

  private Optional<String> runBaseline() throws Exception {
    sparkMain("baseline", "io.files2iceberg.bench.spark.HandWrittenMerge", "--home", home.toString(), "--table", TABLE,
        "--batch-id", batch.batchId(), "--files-from", fileList.toString());
    return Optional.empty();
  }

  private String check() throws Exception {
    List<String> lines = sparkMain("check", "io.files2iceberg.bench.spark.TableCheck", "--home", home.toString(),
        "--table", TABLE);
    return lines.stream().filter(line -> line.startsWith("{\"rows\"")).reduce((a, b) -> b)
        .orElseThrow(() -> new IllegalStateException("TableCheck printed no result"));
  }

  private void generate(String prefix, long from, long count, long stride, String versions, String firstDay, int days,
      int filesPerDay) throws Exception {
    sparkMain("generate-" + prefix, "io.files2iceberg.bench.spark.GenerateData", "--out", landing.toString(),
        "--from", Long.toString(from), "--count", Long.toString(count), "--stride", Long.toString(stride),
        "--versions", versions, "--first-day", firstDay, "--days", Integer.toString(days),
        "--files", Integer.toString(filesPerDay), "--prefix", prefix);
  }

  /**
   * Runs a bench main as the job runs (the launcher's java, options and classpath, with this
   * module's classes first); returns its stdout lines.
   */
  private List<String> sparkMain(String name, String mainClass, String... args) throws Exception {
    List<String> command = new ArrayList<>(launcher.commandFor(mainClass));
    int cp = command.indexOf("-cp");
    Path benchClasses = Path.of(MergeBench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    command.set(cp + 1, benchClasses + java.io.File.pathSeparator + command.get(cp + 1));
    command.addAll(List.of(args));
    Path logs = Files.createDirectories(work.resolve("logs"));
    Path out = logs.resolve(name + ".out");
    Path err = logs.resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process process = builder.start();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(name + " did not finish in " + timeout + " (log: " + err + ")");
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(name + " exited with " + process.exitValue() + " (log: " + err + ")");
    }
    return Files.readAllLines(out, StandardCharsets.UTF_8);
  }

  // --- restoring the home ----------------------------------------------------------------------

  private void restore() throws IOException {
    deleteTree(home);
    copyTree(pristine, home);
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path source : walk.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target);
        }
      }
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** The 1-minute load average, and the 5- and 15-minute ones, from {@code /proc/loadavg}. */
  static double[] loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Double.parseDouble(parts[2])};
    } catch (IOException | RuntimeException e) {
      return new double[] {-1, -1, -1};
    }
  }
}
