package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the job as a child JVM on this machine, the embedded mode's launcher:
 *
 * <pre>{@code
 * java <spark-job/target/classes/files2iceberg/spark-java-options.txt> -Xmx2g \
 *   -cp spark-job/target/classes:<spark-job/target/classpath.txt>:<spark-job/target/ledger-classpath.txt> \
 *   io.files2iceberg.sparkjob.BatchJob --manifest <uri> --attempt <N>
 * }</pre>
 *
 * with {@code SPARK_LOCAL_IP=127.0.0.1}; Spark's master is the profile's {@code job.master}, which
 * the job reads from the manifest. The child's stdout and stderr are appended to
 * {@code <metadata.path>/logs/<batchId>-attempt<N>.log} (for a {@code gs://} metadata path, to
 * {@code <home>/logs/<profile>/}) by the child itself, not through pipes: a child outlives its
 * batcher and keeps logging. Its pid goes to {@code <batchId>-attempt<N>.pid} beside the log, so
 * that recovery can {@link #reattach} to it. The result is the job's {@link AttemptResult} beside
 * the manifest; only when the job wrote none (killed, out of memory) do the exit code and the log's
 * last line starting with {@value LocalJob#JOB_LINE_PREFIX} (and its last metrics line) stand in.
 */
public final class LocalSparkLauncher implements Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(LocalSparkLauncher.class);

  /** System property naming spark-job's {@code target} folder. */
  public static final String SPARK_JOB_DIR_PROPERTY = "files2iceberg.spark-job.dir";
  /** Environment variable naming spark-job's {@code target} folder. */
  public static final String SPARK_JOB_DIR_ENV = "FILES2ICEBERG_SPARK_JOB_DIR";
  /** The JVM options beyond Spark's module opens, unless the caller gives its own. */
  public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx2g");
  /**
   * Environment variable of JVM options for every local Spark JVM (the job, the warm driver, {@code
   * sql}, the demo's writer), after the launcher's own: {@code -Xmx8g} gives a big local load more
   * memory, {@code -XX:TieredStopAtLevel=1} starts short-lived JVMs sooner.
   */
  public static final String JAVA_OPTS_ENV = "FILES2ICEBERG_SPARK_JAVA_OPTS";

  static final String MAIN_CLASS = "io.files2iceberg.sparkjob.BatchJob";
  private static final String HADOOP_PREFIX = "spark.hadoop.";

  private final Path sparkJobTarget;
  private final Path fallbackLogs;
  private final List<String> command;
  /** The job's classpath, which executors in JVMs of their own are given too. */
  private final String classpath;
  private final ClassDataSharing sharing;

  /**
   * @param sparkJobTarget spark-job's {@code target} folder, with {@code classes/} and {@code
   *     classpath.txt} (see {@link #locateSparkJobTarget})
   * @param fallbackLogs where logs go when the profile's {@code metadata.path} is not local
   * @param jvmOptions JVM options after Spark's, such as {@link #DEFAULT_JVM_OPTIONS}; those of
   *     {@value #JAVA_OPTS_ENV} come after them
   * @throws LaunchException (not retryable) when the job has not been built
   */
  public LocalSparkLauncher(Path sparkJobTarget, Path fallbackLogs, List<String> jvmOptions) {
    this(sparkJobTarget, fallbackLogs, withOptionsOf(System.getenv(), jvmOptions),
        ClassDataSharing.fromEnvironment(System.getenv()));
  }

  /** {@code jvmOptions}, then those of the environment's {@value #JAVA_OPTS_ENV}. */
  static List<String> withOptionsOf(Map<String, String> env, List<String> jvmOptions) {
    List<String> options = new ArrayList<>(jvmOptions);
    options.addAll(JavaOptions.parse(env.get(JAVA_OPTS_ENV)));
    return List.copyOf(options);
  }

  LocalSparkLauncher(Path sparkJobTarget, Path fallbackLogs, List<String> jvmOptions, ClassDataSharing sharing) {
    this.sharing = Objects.requireNonNull(sharing, "sharing");
    this.sparkJobTarget = sparkJobTarget.toAbsolutePath().normalize();
    this.fallbackLogs = fallbackLogs.toAbsolutePath().normalize();
    SparkJobBuild build = SparkJobBuild.read(this.sparkJobTarget, jvmOptions);
    List<String> built = new ArrayList<>(build.java());
    built.add(MAIN_CLASS);
    this.command = List.copyOf(built);
    this.classpath = build.classpath();
  }

  /** The Spark property that gives executors their classpath. */
  static final String EXECUTOR_CLASSPATH = "spark.executor.extraClassPath";
  /** The Spark property that sets the executors' {@code LC_ALL} ({@link FileNameEncoding}). */
  static final String EXECUTOR_LOCALE = "spark.executorEnv.LC_ALL";

  /**
   * Whether a master runs executors in JVMs apart from the driver's: every master but {@code local}
   * and {@code local[...]} ({@code spark://...}, {@code local-cluster[...]}, ...).
   */
  static boolean runsExecutorsApart(String master) {
    String trimmed = master.strip();
    return !(trimmed.equals("local") || trimmed.startsWith("local["));
  }

  /**
   * The JVM options that give a driver's executors the job's code and file names: on a master whose
   * executors run in JVMs of their own, {@value #EXECUTOR_CLASSPATH} is this build's classpath (the
   * same paths the driver runs from, so the workers must see them: one machine or a shared mount)
   * and {@value #EXECUTOR_LOCALE} is {@value FileNameEncoding#UTF8_LOCALE}, each unless the
   * deployment's {@code job.spark-properties} sets it. As system properties, the job's Spark
   * configuration takes them as defaults that the deployment's properties would override.
   */
  List<String> executorOptions(JobSettings job) {
    if (!runsExecutorsApart(job.master())) {
      return List.of();
    }
    List<String> options = new ArrayList<>();
    if (!job.sparkProperties().containsKey(EXECUTOR_CLASSPATH)) {
      options.add("-D" + EXECUTOR_CLASSPATH + "=" + classpath);
    }
    // An executor opens the files by name, as the driver does: UTF-8 names whatever the workers' locale.
    if (!job.sparkProperties().containsKey(EXECUTOR_LOCALE)) {
      options.add("-D" + EXECUTOR_LOCALE + "=" + FileNameEncoding.UTF8_LOCALE);
    }
    return List.copyOf(options);
  }

  /**
   * The local launcher of a deployment's {@code job.mode} ({@link JobSettings#modeOnLocal}): a
   * {@link WarmLocalLauncher} on {@code <home>/warm} (the default), or this launcher, a JVM per batch.
   */
  public static Launcher forMode(Path sparkJobTarget, Home home, JobSettings job) {
    LocalSparkLauncher perBatch = new LocalSparkLauncher(sparkJobTarget, home);
    return switch (job.modeOnLocal()) {
      case PER_BATCH -> perBatch;
      case WARM -> new WarmLocalLauncher(perBatch, WarmLocalLauncher.folder(home), job);
    };
  }

  /** With {@link #DEFAULT_JVM_OPTIONS} and logs of non-local metadata paths in {@code <home>/logs}. */
  public LocalSparkLauncher(Path sparkJobTarget, Home home) {
    this(sparkJobTarget, home.root().resolve("logs"), DEFAULT_JVM_OPTIONS);
  }

  /**
   * spark-job's {@code target} folder: the system property {@value #SPARK_JOB_DIR_PROPERTY}, else
   * the environment variable {@value #SPARK_JOB_DIR_ENV}, else {@code spark-job/target} of the
   * first folder at or above {@code workingDir} that holds {@code spark-job/pom.xml}.
   *
   * @throws LaunchException (not retryable) when none is found
   */
  public static Path locateSparkJobTarget(Map<String, String> env, Path workingDir) {
    return BuildFolder.locate("spark-job", SPARK_JOB_DIR_PROPERTY, SPARK_JOB_DIR_ENV, env, workingDir).orElseThrow(() ->
        new LaunchException("Cannot find the Spark job's build: set -D" + SPARK_JOB_DIR_PROPERTY + " or $"
            + SPARK_JOB_DIR_ENV + " to spark-job/target, or run from the files2iceberg checkout (no spark-job/pom.xml at"
            + " or above " + workingDir.toAbsolutePath().normalize() + ")", false));
  }

  /** The command without {@code --manifest}, for messages and tests. */
  List<String> command() {
    return command;
  }

  /**
   * The command that runs another main class of the job's build exactly as the job runs (the same
   * java, Spark's Java 17 options, JVM options and classpath): the demo's data writer and {@code
   * sql} use it. Run it in {@link #sparkJobTarget()} with {@code SPARK_LOCAL_IP=127.0.0.1}.
   */
  public List<String> commandFor(String mainClass) {
    List<String> other = new ArrayList<>(command.subList(0, command.size() - 1));
    other.add(mainClass);
    return List.copyOf(other);
  }

  /** spark-job's {@code target} folder this launcher runs the job from. */
  public Path sparkJobTarget() {
    return sparkJobTarget;
  }

  /** What a run without a result file (a {@link #launchMain} run) reads it with: never called. */
  private static final AttemptResults NO_RESULT_FILE = AttemptResults.of(StorageSettings.GOOGLE);

  @Override
  public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
    Objects.requireNonNull(manifest, "manifest");
    Objects.requireNonNull(manifestUri, "manifestUri");
    List<String> full = new ArrayList<>(command);
    // Hadoop settings (the GCS connector's endpoint) as Spark configuration of the JVM: the job
    // reads its manifest with them before it starts a session from the manifest's properties.
    full.addAll(full.size() - 1, executorOptions(manifest.deployment().job()));
    int main = full.size() - 1;
    new java.util.TreeMap<>(manifest.deployment().job().sparkProperties()).forEach((key, value) -> {
      if (key.startsWith(HADOOP_PREFIX)) {
        full.add(main, "-D" + key + "=" + value);
      }
    });
    full.add("--manifest");
    full.add(manifestUri);
    full.add("--attempt");
    full.add(String.valueOf(attempt));
    Path log = logFile(manifest, attempt);
    return start(full, manifest.table(), manifest.batchId(), log, "attempt " + attempt,
        Optional.of(AttemptResult.locationBeside(manifestUri, attempt)), resultsOf(manifest), Optional.of(pidFile(log)));
  }

  /** Runs the main as {@link #commandFor} does; its output goes to {@code <fallback logs>/<runId>.log}. */
  @Override
  public LaunchedJob launchMain(SparkMainRun run) {
    List<String> full = new ArrayList<>(commandFor(run.mainClass()));
    full.addAll(run.args());
    return start(full, run.table(), run.runId(), fallbackLogs.resolve(run.runId() + ".log"), run.mainClass(),
        Optional.empty(), NO_RESULT_FILE, Optional.empty());
  }

  /**
   * The child of an earlier attempt, when it still runs: the process its {@code .pid} file names
   * is alive and is this build's job on this manifest and attempt (a pid reused by another process
   * does not count). Without a readable pid file (a batcher killed between starting the child and
   * writing its pid), the running processes are searched for that job's command line, so that
   * recovery never starts a second job beside a live one. Its batcher died, so its exit code is
   * lost; its result file says how it ended.
   */
  @Override
  public Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
    Path log = logFile(manifest, attempt);
    Path pidFile = pidFile(log);
    Optional<ProcessHandle> process;
    try {
      long pid = Long.parseLong(Files.readString(pidFile).strip());
      process = ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .filter(handle -> isJobOf(handle, manifestUri, attempt));
    } catch (NoSuchFileException e) {
      process = runningJobOf(manifestUri, attempt);
      process.ifPresent(found -> writePid(pidFile, found.pid(), manifest.table(), manifest.batchId()));
    } catch (IOException | NumberFormatException e) {
      LOG.warn("Table {} batch {}: cannot read the pid of attempt {} from {} ({}); looking for the job among the "
          + "running processes", manifest.table(), manifest.batchId(), attempt, pidFile, e.toString());
      process = runningJobOf(manifestUri, attempt);
    }
    if (process.isEmpty()) {
      return Optional.empty();
    }
    LOG.info("Table {} batch {}: attempt {} is still running as process {}, log {}", manifest.table(),
        manifest.batchId(), attempt, process.get().pid(), log);
    return Optional.of(new LocalJob(manifest.table(), manifest.batchId(), process.get(), Optional.empty(), log,
        Optional.of(AttemptResult.locationBeside(manifestUri, attempt)), resultsOf(manifest)));
  }

  /** The results beside a manifest, read through its deployment's Storage client where they are on {@code gs://}. */
  static AttemptResults resultsOf(BatchManifest manifest) {
    return AttemptResults.of(manifest.deployment().storage());
  }

  /** A live process of this user that runs the job on exactly this manifest and attempt. */
  static Optional<ProcessHandle> runningJobOf(String manifestUri, int attempt) {
    try (java.util.stream.Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
      return all.filter(ProcessHandle::isAlive)
          .filter(handle -> isJobOf(handle, manifestUri, attempt))
          .findFirst();
    }
  }

  /** Whether the process runs {@value #MAIN_CLASS} with exactly this manifest and attempt. */
  static boolean isJobOf(ProcessHandle process, String manifestUri, int attempt) {
    List<String> args = arguments(process);
    int main = args.indexOf(MAIN_CLASS);
    return main >= 0 && args.subList(main + 1, args.size())
        .equals(List.of("--manifest", manifestUri, "--attempt", String.valueOf(attempt)));
  }

  /**
   * A process's arguments: from {@code /proc/<pid>/cmdline} where there is one (the JDK's {@link
   * ProcessHandle.Info} gives up on a command line as long as a Spark classpath makes it), else as
   * the JDK reports them.
   */
  static List<String> arguments(ProcessHandle process) {
    Path cmdline = Path.of("/proc", String.valueOf(process.pid()), "cmdline");
    try {
      List<String> all = List.of(new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0"));
      return all.isEmpty() ? all : all.subList(1, all.size());
    } catch (IOException | UncheckedIOException e) {
      return process.info().arguments().map(List::of).orElse(List.of());
    }
  }

  /**
   * Starts the child with its output appended straight to its log file, not through pipes the
   * batcher pumps: a child whose batcher dies keeps running and logging, and writes its result.
   * The pid goes to {@code pidFile} at once, for {@link #reattach}.
   */
  private LaunchedJob start(List<String> full, String table, String runId, Path log, String what,
      Optional<String> resultLocation, AttemptResults results, Optional<Path> pidFile) {
    Process process;
    try {
      process = startProcess(full, log);
    } catch (IOException e) {
      throw new LaunchException("Cannot start the Spark job of table " + table + " batch " + runId + ": "
          + e.getMessage(), true, e);
    }
    // The pid first: once the start is told (the log line, then the ledger), a batcher killed from
    // then on leaves recovery a pid file that finds the job still running instead of a second job.
    pidFile.ifPresent(file -> writePid(file, process.pid(), table, runId));
    LOG.info("Table {} batch {}: {} started as process {}, log {}", table, runId, what, process.pid(), log);
    return new LocalJob(table, runId, process.toHandle(), Optional.of(process), log, resultLocation, results);
  }

  /**
   * Starts a command of {@link #commandFor} in {@link #sparkJobTarget()} with {@code
   * SPARK_LOCAL_IP=127.0.0.1}, its output appended to {@code log} by the child itself.
   */
  Process startProcess(List<String> full, Path log) throws IOException {
    Files.createDirectories(log.getParent());
    return startJvm(full, builder -> {
      builder.redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.redirectErrorStream(true);
    });
  }

  /**
   * Starts a command of {@link #commandFor} (or the job's) in {@link #sparkJobTarget()} with {@code
   * SPARK_LOCAL_IP=127.0.0.1}, UTF-8 file names and {@link ClassDataSharing class-data sharing};
   * {@code io} says where its input and output go.
   */
  public Process startJvm(List<String> command, Consumer<ProcessBuilder> io) throws IOException {
    ClassDataSharing.Start start = sharing.start(command);
    ProcessBuilder builder = new ProcessBuilder(start.command()).directory(sparkJobTarget.toFile());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    FileNameEncoding.requireUtf8(builder.environment());
    io.accept(builder);
    Process process;
    try {
      process = builder.start();
    } catch (IOException | RuntimeException e) {
      start.notStarted();
      throw e;
    }
    start.whenExited(process);
    return process;
  }

  private static void writePid(Path file, long pid, String table, String runId) {
    try {
      io.files2iceberg.core.manifest.AtomicFile.replace(file, pid + System.lineSeparator());
    } catch (IOException e) {
      // Without it recovery cannot see that the job still runs, and launches the batch again,
      // which the job's snapshot walk keeps from writing the batch twice.
      LOG.warn("Table {} batch {}: cannot write the job's pid to {}: {}", table, runId, file, e.toString());
    }
  }

  /** {@code <log folder>/<batchId>-attempt<N>.pid} beside {@code <batchId>-attempt<N>.log}. */
  static Path pidFile(Path log) {
    String name = log.getFileName().toString();
    return log.resolveSibling((name.endsWith(".log") ? name.substring(0, name.length() - 4) : name) + ".pid");
  }

  /** {@code <metadata.path>/logs/<batchId>-attempt<N>.log}, or under the fallback folder. */
  Path logFile(BatchManifest manifest, int attempt) {
    return logFile(manifest.profile(), fallbackLogs, manifest.batchId(), attempt);
  }

  /**
   * Where the local launcher writes the log of one attempt: {@code
   * <metadata.path>/logs/<batchId>-attempt<N>.log}, or {@code <fallbackLogs>/<profile>/} when
   * the metadata path is not local ({@code <home>/logs} for the launcher the commands open).
   */
  public static Path logFile(TableProfile profile, Path fallbackLogs, String batchId, int attempt) {
    return logFolder(profile, fallbackLogs).resolve(AttemptResult.stem(batchId, attempt) + ".log");
  }

  /**
   * The folder of the local launcher's logs and pid files of one profile's attempts: {@code
   * <metadata.path>/logs}, or {@code <fallbackLogs>/<profile>} when the metadata path is not local.
   */
  public static Path logFolder(TableProfile profile, Path fallbackLogs) {
    return localFolder(profile.metadata().path())
        .map(folder -> folder.resolve("logs"))
        .orElse(fallbackLogs.toAbsolutePath().normalize().resolve(profile.name()));
  }

  /** A plain path or a {@code file:} URI as a local folder; empty for any other scheme. */
  static Optional<Path> localFolder(String path) {
    if (path.startsWith("file:")) {
      return Optional.of(Path.of(URI.create(path)));
    }
    if (path.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      return Optional.empty();
    }
    return Optional.of(Path.of(path));
  }

  private static java.io.File nullDevice() {
    return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }
}
