package io.files2iceberg.batcher.launch;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.Home;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the job as a child JVM on this machine, the embedded mode's launcher:
 *
 * <pre>{@code
 * java <spark-job/target/classes/files2iceberg/spark-java-options.txt> -Xmx2g \
 *   -cp spark-job/target/classes:<spark-job/target/classpath.txt>:<spark-job/target/ledger-classpath.txt> \
 *   io.files2iceberg.sparkjob.BatchJob --manifest <uri>
 * }</pre>
 *
 * with {@code SPARK_LOCAL_IP=127.0.0.1}; Spark's master is the profile's {@code job.master}, which
 * the job reads from the manifest. The child's stdout and stderr go to
 * {@code <metadata.path>/logs/<batchId>-attempt<N>.log} (for a {@code gs://} metadata path, to
 * {@code <home>/logs/}); the last stdout line that is a metrics line is the report, and the last
 * stderr line starting with {@value #JOB_LINE_PREFIX} is the detail.
 */
public final class LocalSparkLauncher implements Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(LocalSparkLauncher.class);

  /** System property naming spark-job's {@code target} folder. */
  public static final String SPARK_JOB_DIR_PROPERTY = "files2iceberg.spark-job.dir";
  /** Environment variable naming spark-job's {@code target} folder. */
  public static final String SPARK_JOB_DIR_ENV = "FILES2ICEBERG_SPARK_JOB_DIR";
  /** The JVM options beyond Spark's module opens, unless the caller gives its own. */
  public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx2g");

  static final String MAIN_CLASS = "io.files2iceberg.sparkjob.BatchJob";
  static final String JAVA_OPTIONS_RESOURCE = "files2iceberg/spark-java-options.txt";
  static final String BUILD_FOLDER_RESOURCE = "files2iceberg/build-folder.txt";
  static final String CLASSPATH_FILE = "classpath.txt";
  static final String LEDGER_CLASSPATH_FILE = "ledger-classpath.txt";
  static final String JOB_LINE_PREFIX = "files2iceberg:";
  private static final String BUILD_HINT = "build the job first: mvn -pl spark-job -am package -DskipTests";

  private final Path sparkJobTarget;
  private final Path fallbackLogs;
  private final List<String> command;

  /**
   * @param sparkJobTarget spark-job's {@code target} folder, with {@code classes/} and {@code
   *     classpath.txt} (see {@link #locateSparkJobTarget})
   * @param fallbackLogs where logs go when the profile's {@code metadata.path} is not local
   * @param jvmOptions JVM options after Spark's, such as {@link #DEFAULT_JVM_OPTIONS}
   * @throws LaunchException (not retryable) when the job has not been built
   */
  public LocalSparkLauncher(Path sparkJobTarget, Path fallbackLogs, List<String> jvmOptions) {
    this.sparkJobTarget = sparkJobTarget.toAbsolutePath().normalize();
    this.fallbackLogs = fallbackLogs.toAbsolutePath().normalize();
    Path classes = this.sparkJobTarget.resolve("classes");
    Path optionsFile = classes.resolve(JAVA_OPTIONS_RESOURCE);
    List<Path> required = List.of(this.sparkJobTarget.resolve(CLASSPATH_FILE),
        this.sparkJobTarget.resolve(LEDGER_CLASSPATH_FILE), optionsFile, classes.resolve(BUILD_FOLDER_RESOURCE));
    for (Path file : required) {
      if (!Files.isRegularFile(file)) {
        throw new LaunchException("The Spark job is not built: " + file + " is missing; " + BUILD_HINT, false);
      }
    }
    List<String> built = new ArrayList<>();
    built.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    try {
      built.addAll(parseOptions(Files.readString(optionsFile)));
      built.addAll(jvmOptions);
      built.add("-cp");
      built.add(classpath(classes));
    } catch (IOException e) {
      throw new LaunchException("Cannot read the Spark job's build in " + this.sparkJobTarget + ": " + e, false, e);
    }
    built.add(MAIN_CLASS);
    this.command = List.copyOf(built);
  }

  /**
   * The job's classpath: its classes, {@value #CLASSPATH_FILE} (Spark and every library) and
   * {@value #LEDGER_CLASSPATH_FILE} (the Firestore ledger's shaded jar, for {@code ledger.type =
   * firestore}). The build writes absolute paths; an entry inside the checkout that built it (this
   * project's own modules, such as core's jar) is taken from the checkout this target folder is in,
   * so a copied or moved checkout runs its own jars, not the original's.
   *
   * @throws LaunchException (not retryable) naming the first entry that does not exist
   */
  private String classpath(Path classes) throws IOException {
    Path builtIn = Path.of(lastLine(classes.resolve(BUILD_FOLDER_RESOURCE))).getParent();
    Path checkout = sparkJobTarget.getParent() == null ? null : sparkJobTarget.getParent().getParent();
    List<String> entries = new ArrayList<>();
    entries.add(classes.toString());
    for (String file : List.of(CLASSPATH_FILE, LEDGER_CLASSPATH_FILE)) {
      for (String entry : Files.readString(sparkJobTarget.resolve(file)).trim().split(java.io.File.pathSeparator)) {
        if (entry.isBlank()) {
          continue;
        }
        Path path = Path.of(entry);
        if (builtIn != null && checkout != null && path.startsWith(builtIn)) {
          path = checkout.resolve(builtIn.relativize(path));
        }
        if (!Files.exists(path)) {
          throw new LaunchException("The Spark job's build is incomplete: " + path + " (in " + sparkJobTarget.resolve(file)
              + ") does not exist; " + BUILD_HINT, false);
        }
        entries.add(path.toString());
      }
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  /** The last line of a generated file that is neither blank nor a {@code #} comment. */
  private static String lastLine(Path file) throws IOException {
    String last = null;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.isBlank() && !line.strip().startsWith("#")) {
        last = line.strip();
      }
    }
    if (last == null) {
      throw new LaunchException("The Spark job's build is incomplete: " + file + " is empty; " + BUILD_HINT, false);
    }
    return last;
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
    String property = System.getProperty(SPARK_JOB_DIR_PROPERTY);
    if (property != null && !property.isBlank()) {
      return Path.of(property);
    }
    String fromEnv = env.get(SPARK_JOB_DIR_ENV);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Path.of(fromEnv);
    }
    for (Path dir = workingDir.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("spark-job").resolve("pom.xml"))) {
        return dir.resolve("spark-job").resolve("target");
      }
    }
    throw new LaunchException("Cannot find the Spark job's build: set -D" + SPARK_JOB_DIR_PROPERTY + " or $"
        + SPARK_JOB_DIR_ENV + " to spark-job/target, or run from the files2iceberg checkout (no spark-job/pom.xml at or"
        + " above " + workingDir.toAbsolutePath().normalize() + ")", false);
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

  @Override
  public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
    Objects.requireNonNull(manifest, "manifest");
    Objects.requireNonNull(manifestUri, "manifestUri");
    List<String> full = new ArrayList<>(command);
    full.add("--manifest");
    full.add(manifestUri);
    return start(full, manifest.table(), manifest.batchId(), logFile(manifest, attempt), "attempt " + attempt);
  }

  /** Runs the main as {@link #commandFor} does; its output goes to {@code <fallback logs>/<runId>.log}. */
  @Override
  public LaunchedJob launchMain(SparkMainRun run) {
    List<String> full = new ArrayList<>(commandFor(run.mainClass()));
    full.addAll(run.args());
    return start(full, run.table(), run.runId(), fallbackLogs.resolve(run.runId() + ".log"), run.mainClass());
  }

  private LaunchedJob start(List<String> full, String table, String runId, Path log, String what) {
    ProcessBuilder builder = new ProcessBuilder(full).directory(sparkJobTarget.toFile());
    builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    builder.redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
    try {
      Files.createDirectories(log.getParent());
      Writer writer = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
      Process process = builder.start();
      LOG.info("Table {} batch {}: {} started as process {}, log {}", table, runId, what, process.pid(), log);
      return new ChildJob(table, runId, process, writer, log);
    } catch (IOException e) {
      throw new LaunchException("Cannot start the Spark job of table " + table + " batch " + runId + ": "
          + e.getMessage(), true, e);
    }
  }

  /** {@code <metadata.path>/logs/<batchId>-attempt<N>.log}, or under the fallback folder. */
  Path logFile(BatchManifest manifest, int attempt) {
    String name = manifest.batchId() + "-attempt" + attempt + ".log";
    return localFolder(manifest.profile().metadata().path())
        .map(folder -> folder.resolve("logs"))
        .orElse(fallbackLogs.resolve(manifest.profile().name()))
        .resolve(name);
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

  static List<String> parseOptions(String text) {
    List<String> options = new ArrayList<>();
    for (String line : text.split("\\R")) {
      String trimmed = line.trim();
      if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
        options.addAll(List.of(trimmed.split("\\s+")));
      }
    }
    return options;
  }

  private static java.io.File nullDevice() {
    return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }

  /** One child JVM: two pumps copy its output to the log and keep what the result needs. */
  private static final class ChildJob implements LaunchedJob {
    private final String table;
    private final String batchId;
    private final Process process;
    private final Writer log;
    private final Path logFile;
    private final Thread stdout;
    private final Thread stderr;
    private volatile BatchLoadReport report;
    private volatile String jobLine;
    private volatile String lastErrorLine;
    private volatile boolean cancelled;
    private JobResult result;

    ChildJob(String table, String batchId, Process process, Writer log, Path logFile) {
      this.table = table;
      this.batchId = batchId;
      this.process = process;
      this.log = log;
      this.logFile = logFile;
      String name = "job-" + batchId;
      this.stdout = daemon(name + "-out", () -> pump(process.getInputStream(), true));
      this.stderr = daemon(name + "-err", () -> pump(process.getErrorStream(), false));
    }

    private static Thread daemon(String name, Runnable body) {
      Thread thread = new Thread(body, name);
      thread.setDaemon(true);
      thread.start();
      return thread;
    }

    @Override
    public Optional<String> log() {
      return Optional.of(logFile.toString());
    }

    @Override
    public String jobId() {
      return "pid " + process.pid();
    }

    @Override
    public synchronized Optional<JobResult> await(Duration timeout) throws InterruptedException {
      if (result != null) {
        return Optional.of(result);
      }
      if (!process.waitFor(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS)) {
        return Optional.empty();
      }
      // The pumps end at the streams' end, which follows the exit.
      stdout.join(TimeUnit.SECONDS.toMillis(30));
      stderr.join(TimeUnit.SECONDS.toMillis(30));
      closeLog();
      result = result(process.exitValue());
      LOG.info("Table {} batch {}: process {} exited with {} ({})", table, batchId,
          process.pid(), result.exit().code(), result.detail());
      return Optional.of(result);
    }

    private JobResult result(int code) {
      JobExit exit = JobExit.fromCode(code);
      Optional<BatchLoadReport> parsed = Optional.ofNullable(report);
      boolean fromJob = jobLine != null || (exit == JobExit.LOADED && parsed.isPresent());
      String detail;
      if (jobLine != null) {
        detail = jobLine;
      } else if (exit == JobExit.LOADED && parsed.isPresent()) {
        BatchLoadReport r = parsed.get();
        detail = (r.alreadyCommitted() ? "already committed in snapshot " : "committed snapshot ") + r.snapshotId()
            + ", checkpoint " + r.checkpoint().code();
      } else if (cancelled) {
        detail = "the job was cancelled (exit code " + code + ")";
      } else {
        detail = "the job exited with code " + code + " without a " + JOB_LINE_PREFIX + " line"
            + Optional.ofNullable(lastErrorLine).map(line -> "; last stderr line: " + line).orElse("");
      }
      return new JobResult(exit, parsed, detail, fromJob && !cancelled, Optional.of(logFile.toString()));
    }

    @Override
    public void cancel() {
      if (!process.isAlive()) {
        return;
      }
      cancelled = true;
      LOG.warn("Table {} batch {}: cancelling process {}", table, batchId, process.pid());
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }

    private void pump(InputStream stream, boolean isStdout) {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          write(line);
          if (isStdout) {
            BatchLoadReport.fromMetricsLine(line).ifPresent(parsed -> report = parsed);
          } else if (!line.isBlank()) {
            lastErrorLine = line.strip();
            if (line.startsWith(JOB_LINE_PREFIX)) {
              jobLine = line.strip();
            }
          }
        }
      } catch (IOException e) {
        LOG.warn("Table {} batch {}: lost the job's {}: {}", table, batchId,
            isStdout ? "stdout" : "stderr", e.toString());
      }
    }

    private void write(String line) {
      synchronized (log) {
        try {
          log.write(line);
          log.write(System.lineSeparator());
          log.flush();
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot write the job log " + logFile, e);
        }
      }
    }

    private void closeLog() {
      synchronized (log) {
        try {
          log.close();
        } catch (IOException e) {
          LOG.warn("Cannot close the job log {}: {}", logFile, e.toString());
        }
      }
    }
  }

}
