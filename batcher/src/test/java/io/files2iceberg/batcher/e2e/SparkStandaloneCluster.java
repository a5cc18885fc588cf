package io.files2iceberg.batcher.e2e;

import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster on this machine: a {@code Master} and two {@code Worker}s (one core
 * and 1 GiB each), each a JVM of its own started from the job's build, as the local launcher
 * starts the job. One per test JVM, started on first use and stopped when the JVM exits, so that
 * the module's classes share it. A driver reaches it at {@link #masterUrl()}; its executors are
 * children of the workers, each writing its log under {@code <worker folder>/<app id>/<executor id>/}.
 *
 * <p>Spark's launcher, which a worker uses to build an executor's command, needs {@code SPARK_HOME}
 * (an empty folder here), {@code SPARK_SCALA_VERSION} and {@code SPARK_TESTING=1} (no {@code jars/}
 * folder then); the executors' classpath comes from {@code spark.executor.extraClassPath}, which
 * the job's launchers set on a master like this one. The workers run under the POSIX locale; the
 * launchers give the executors a UTF-8 one.
 */
final class SparkStandaloneCluster {
  static final int WORKERS = 2;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Pattern APP_ID = Pattern.compile("Connected to Spark cluster with app ID (\\S+)");
  private static final Pattern DAEMON_PID = Pattern.compile("Started daemon with process name: (\\d+)@");
  private static SparkStandaloneCluster shared;

  private final Path root;
  private final String masterUrl;
  private final List<Process> processes = new ArrayList<>();
  private final List<Path> workerFolders = new ArrayList<>();

  private SparkStandaloneCluster(Path root) throws Exception {
    this.root = root;
    int port = freePort();
    this.masterUrl = "spark://127.0.0.1:" + port;
    LocalSparkLauncher build = new LocalSparkLauncher(
        LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")), root.resolve("logs"),
        List.of("-Xmx256m"));
    Path sparkHome = Files.createDirectories(root.resolve("spark-home"));
    Path master = root.resolve("master.log");
    start(build.commandFor("org.apache.spark.deploy.master.Master"),
        List.of("--host", "127.0.0.1", "--port", Integer.toString(port), "--webui-port", "0"), sparkHome, master);
    awaitLine(master, "I have been elected leader");
    List<Path> workerLogs = new ArrayList<>();
    for (int i = 1; i <= WORKERS; i++) {
      Path folder = Files.createDirectories(root.resolve("worker-" + i));
      workerFolders.add(folder);
      Path log = root.resolve("worker-" + i + ".log");
      workerLogs.add(log);
      start(build.commandFor("org.apache.spark.deploy.worker.Worker"), List.of("--host", "127.0.0.1",
          "--webui-port", "0", "--cores", "1", "--memory", "1g", "--work-dir", folder.toString(), masterUrl),
          sparkHome, log);
    }
    for (Path log : workerLogs) {
      awaitLine(log, "Successfully registered with master");
    }
  }

  /** The module's cluster, started on first use under {@code target/spark-cluster}. */
  static synchronized SparkStandaloneCluster shared() throws Exception {
    if (shared == null) {
      Path root = Path.of("target", "spark-cluster", "cluster-" + ProcessHandle.current().pid()).toAbsolutePath();
      SparkStandaloneCluster started = new SparkStandaloneCluster(Files.createDirectories(root));
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "spark-cluster-stop"));
      shared = started;
      System.err.println("[cluster] Spark standalone cluster at " + started.masterUrl + " (" + WORKERS
          + " workers), logs in " + root);
    }
    return shared;
  }

  /** {@link #shared()}, started in the background: a test goes on with its own set-up meanwhile. */
  static CompletableFuture<SparkStandaloneCluster> sharedStarting() {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return shared();
      } catch (Exception e) {
        throw new IllegalStateException("the Spark cluster did not start: " + e.getMessage(), e);
      }
    });
  }

  /** {@code spark://127.0.0.1:<port>}, the master a driver submits to. */
  String masterUrl() {
    return masterUrl;
  }

  /**
   * The executors an application ran, by executor id, each with its process id as the executor
   * logged it ("Started daemon with process name: pid@host" in its {@code stderr}).
   */
  Map<String, Long> executorsOf(String appId) {
    Map<String, Long> executors = new LinkedHashMap<>();
    for (Path executor : executorFolders(appId)) {
      pidIn(executor.resolve("stderr")).ifPresent(pid -> executors.put(executor.getFileName().toString(), pid));
    }
    return executors;
  }

  /** The application id a driver's log names ("Connected to Spark cluster with app ID ..."). */
  static String applicationOf(String driverLog) {
    Matcher matcher = APP_ID.matcher(driverLog);
    if (!matcher.find()) {
      throw new AssertionError("the driver's log names no application of the cluster");
    }
    return matcher.group(1);
  }

  /** What the application's executors logged, one executor after the other. */
  String executorLogs(String appId) {
    StringBuilder text = new StringBuilder();
    for (Path executor : executorFolders(appId)) {
      Path log = executor.resolve("stderr");
      try {
        if (Files.isRegularFile(log)) {
          text.append(Files.readString(log, StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return text.toString();
  }

  /** {@code <worker folder>/<app id>/<executor id>} of every worker that ran one of its executors. */
  private List<Path> executorFolders(String appId) {
    List<Path> folders = new ArrayList<>();
    for (Path worker : workerFolders) {
      Path app = worker.resolve(appId);
      if (Files.isDirectory(app)) {
        try (Stream<Path> ids = Files.list(app)) {
          folders.addAll(ids.filter(Files::isDirectory).sorted().toList());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return folders;
  }

  private static OptionalLong pidIn(Path log) {
    try {
      if (!Files.isRegularFile(log)) {
        return OptionalLong.empty();
      }
      Matcher matcher = DAEMON_PID.matcher(Files.readString(log, StandardCharsets.UTF_8));
      return matcher.find() ? OptionalLong.of(Long.parseLong(matcher.group(1))) : OptionalLong.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void start(List<String> command, List<String> args, Path sparkHome, Path log) throws IOException {
    List<String> full = new ArrayList<>(command);
    full.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(full).directory(root.toFile());
    Map<String, String> env = builder.environment();
    env.put("SPARK_HOME", sparkHome.toString());
    env.put("SPARK_SCALA_VERSION", "2.13");
    env.put("SPARK_TESTING", "1");
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    // A stock machine's POSIX locale, under which a JVM cannot open a file whose name is not
    // ASCII: the executors get a UTF-8 one from the job's launcher (spark.executorEnv.LC_ALL).
    env.put("LC_ALL", "C");
    env.remove("LC_CTYPE");
    env.remove("LANG");
    builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    processes.add(builder.start());
  }

  private void awaitLine(Path log, String line) throws Exception {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (Files.isRegularFile(log) && Files.readString(log, StandardCharsets.UTF_8).contains(line)) {
        return;
      }
      for (Process process : processes) {
        if (!process.isAlive()) {
          stop();
          throw new IllegalStateException("a Spark cluster process exited with " + process.exitValue()
              + " before \"" + line + "\"; see " + log + ":\n" + tail(log));
        }
      }
      Thread.sleep(100);
    }
    stop();
    throw new IllegalStateException("no \"" + line + "\" in " + log + " after " + START_TIMEOUT + ":\n" + tail(log));
  }

  private static String tail(Path log) throws IOException {
    if (!Files.isRegularFile(log)) {
      return "(no log)";
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }

  /** Stops the workers' executors, the workers and the master: only the processes this cluster started. */
  private void stop() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process process = processes.get(i);
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
