package io.files2iceberg.batcher.local;

import io.files2iceberg.batcher.engine.launch.BuildFolder;
import io.files2iceberg.batcher.engine.launch.ClassDataSharing;
import io.files2iceberg.batcher.engine.launch.FileNameEncoding;
import io.files2iceberg.batcher.engine.launch.JavaOptions;
import io.files2iceberg.core.logging.LogFormat;
import io.files2iceberg.core.profile.Home;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener service as a child process on this machine, as {@code bin/files2iceberg listen}
 * runs it: {@code java -cp listener/target/classes:listener/target/lib/*
 * io.files2iceberg.listener.ListenerApplication --config DIR --home DIR --port N}, bound to
 * {@code 127.0.0.1}, with plain-text logs in {@code <home>/logs/listener.log}, and the JVM options
 * of the environment's {@value #JAVA_OPTS_ENV}.
 *
 * <p>The child does not outlive this process: it is given this process's id ({@value
 * #PARENT_PID_PROPERTY}) and stops within a second or two of this process ending, also when this
 * one is killed with {@code SIGKILL} and cannot stop it. A home holds one live listener: a second
 * one exits at once naming the first one's process id, which {@link #start} reports.
 *
 * <p>{@link #close} stops it with {@code SIGTERM}, so it finishes the messages in flight and
 * closes the ledger; a listener that has not stopped after {@link #STOP_TIMEOUT} is killed.
 */
public final class ListenerProcess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerProcess.class);

  /** System property naming listener's {@code target} folder; {@code bin/files2iceberg} sets it. */
  public static final String LISTENER_DIR_PROPERTY = "files2iceberg.listener.dir";
  /** Environment variable naming listener's {@code target} folder. */
  public static final String LISTENER_DIR_ENV = "FILES2ICEBERG_LISTENER_DIR";
  /**
   * JVM options of the listener child ({@code local}, {@code demo}), after {@code
   * -Dmicronaut.server.host=127.0.0.1}: {@code FILES2ICEBERG_JAVA_OPTS} goes to the CLI's own JVM
   * there, as {@code FILES2ICEBERG_SPARK_JAVA_OPTS} goes to the Spark JVMs.
   */
  public static final String JAVA_OPTS_ENV = "FILES2ICEBERG_LISTENER_JAVA_OPTS";
  static final String MAIN_CLASS = "io.files2iceberg.listener.ListenerApplication";
  /** The listener's parent-death watch reads this ({@code ParentWatch} in the listener). */
  static final String PARENT_PID_PROPERTY = "files2iceberg.listener.parent-pid";
  public static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

  private final Process process;
  private final int port;
  private final Path log;

  private ListenerProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * The listener logs JSON lines for Cloud Logging unless told otherwise; the one {@code local}
   * and {@code demo} start writes a log file for people, so it logs text unless the user chose a
   * format ({@value LogFormat#ENV}, which the child inherits).
   */
  static void textLogsUnlessChosen(Map<String, String> environment) {
    String chosen = environment.get(LogFormat.ENV);
    if (chosen == null || chosen.isBlank()) {
      environment.put(LogFormat.ENV, "TEXT");
    }
  }

  /**
   * Starts the listener on a free port and waits until {@code /health} says {@code UP}.
   *
   * @param listenerTarget listener's {@code target} folder ({@link #locateTarget})
   * @throws IllegalStateException when it exits or is not healthy within {@code timeout}, with the
   *     end of its log
   */
  public static ListenerProcess start(Path listenerTarget, Path config, Home home, Duration timeout)
      throws InterruptedException {
    return start(listenerTarget, config, Optional.empty(), home, timeout);
  }

  /**
   * Starts the listener as {@link #start(Path, Path, Home, Duration)} does, on a deployment file
   * named apart from the profiles ({@code --deployment}).
   */
  public static ListenerProcess start(Path listenerTarget, Path config, Optional<Path> deployment, Home home,
      Duration timeout)
      throws InterruptedException {
    return start(listenerTarget, config, deployment, home, timeout, ListenerProcess::freePort, System.getenv());
  }

  /**
   * As {@link #start(Path, Path, Optional, Home, Duration)}, on the ports {@code ports} gives. A
   * port free when chosen may be taken before the listener binds it (a warm driver starting beside
   * it opens sockets of its own): a listener that exits because its port is in use is started
   * again on the next port, {@value #BIND_ATTEMPTS} times at most. {@code env} is this process's
   * environment ({@value #JAVA_OPTS_ENV}, class-data sharing's settings).
   */
  static ListenerProcess start(Path listenerTarget, Path config, Optional<Path> deployment, Home home,
      Duration timeout, IntSupplier ports, Map<String, String> env) throws InterruptedException {
    Path log = home.root().resolve("logs").resolve("listener.log");
    for (int attempt = 1; ; attempt++) {
      int port = ports.getAsInt();
      long logStart = sizeOf(log);
      try {
        return startOn(port, listenerTarget, config, deployment, home, timeout, log, env);
      } catch (IllegalStateException e) {
        if (attempt >= BIND_ATTEMPTS || !portTaken(log, logStart)) {
          throw e;
        }
        LOG.info("Port {} was taken before the listener could bind it; starting the listener on another port", port);
      }
    }
  }

  private static final int BIND_ATTEMPTS = 3;

  private static long sizeOf(Path log) {
    try {
      return Files.exists(log) ? Files.size(log) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** Whether what the listener logged since {@code from} says its port was in use. */
  private static boolean portTaken(Path log, long from) {
    try {
      byte[] all = Files.readAllBytes(log);
      String written = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
          StandardCharsets.UTF_8);
      return written.contains("already in use");
    } catch (IOException e) {
      return false;
    }
  }

  private static ListenerProcess startOn(int port, Path listenerTarget, Path config, Optional<Path> deployment,
      Home home, Duration timeout, Path log, Map<String, String> env) throws InterruptedException {
    List<String> arguments = new ArrayList<>(List.of("--config", config.toAbsolutePath().toString()));
    deployment.ifPresent(file -> arguments.addAll(List.of("--deployment", file.toString())));
    arguments.addAll(List.of("--home", home.root().toString(), "--port", Integer.toString(port)));
    List<String> options = new ArrayList<>(List.of("-Dmicronaut.server.host=127.0.0.1"));
    options.addAll(JavaOptions.parse(env.get(JAVA_OPTS_ENV)));
    List<String> command = javaCommand(listenerTarget, options, arguments);
    ClassDataSharing.Start sharing = ClassDataSharing.fromEnvironment(env).start(command);
    ProcessBuilder builder = new ProcessBuilder(sharing.command());
    textLogsUnlessChosen(builder.environment());
    FileNameEncoding.requireUtf8(builder.environment());
    builder.environment().remove("PORT");
    builder.redirectErrorStream(true);
    builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Process process;
    try {
      Files.createDirectories(log.getParent());
      builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      process = builder.start();
    } catch (IOException e) {
      sharing.notStarted();
      throw new UncheckedIOException("Cannot start the listener: " + e.getMessage(), e);
    }
    sharing.whenExited(process);
    ListenerProcess listener = new ListenerProcess(process, port, log);
    try {
      listener.awaitHealthy(timeout);
    } catch (RuntimeException | InterruptedException e) {
      listener.close();
      throw e;
    }
    LOG.info("Listener started as process {} on port {}, log {}", process.pid(), port, log);
    return listener;
  }

  /**
   * The command line of a listener child of this process: {@code java}, the JVM options, this
   * process's id ({@value #PARENT_PID_PROPERTY}), listener's classpath and main class, then the
   * listener's own arguments.
   *
   * @throws IllegalStateException when listener's classes or jars are missing
   */
  public static List<String> javaCommand(Path listenerTarget, List<String> jvmOptions, List<String> arguments) {
    Path classes = listenerTarget.resolve("classes");
    Path lib = listenerTarget.resolve("lib");
    if (!Files.isDirectory(classes) || !Files.isDirectory(lib)) {
      throw new IllegalStateException("The listener is not built: " + classes + " or " + lib
          + " is missing; build it first: mvn -pl listener -am package -DskipTests");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-D" + PARENT_PID_PROPERTY + "=" + ProcessHandle.current().pid());
    command.add("-cp");
    command.add(classes + java.io.File.pathSeparator + lib + java.io.File.separator + "*");
    command.add(MAIN_CLASS);
    command.addAll(arguments);
    return command;
  }

  /**
   * listener's {@code target} folder: the system property {@value #LISTENER_DIR_PROPERTY}, else the
   * environment variable {@value #LISTENER_DIR_ENV}, else {@code listener/target} of the first
   * folder at or above {@code workingDir} that holds {@code listener/pom.xml}.
   */
  public static Path locateTarget(Map<String, String> env, Path workingDir) {
    return BuildFolder.locate("listener", LISTENER_DIR_PROPERTY, LISTENER_DIR_ENV, env, workingDir).orElseThrow(() ->
        new IllegalStateException("Cannot find the listener's build: set -D" + LISTENER_DIR_PROPERTY + " or $"
            + LISTENER_DIR_ENV + " to listener/target, or run from the files2iceberg checkout"));
  }

  /** The base URL, {@code http://127.0.0.1:<port>}. */
  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The push endpoint at {@code pushPath} (the profiles' {@code listener.push-path}). */
  public URI pushUri(String pushPath) {
    return baseUri().resolve(pushPath);
  }

  public long pid() {
    return process.pid();
  }

  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  private void awaitHealthy(Duration timeout) throws InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest health = HttpRequest.newBuilder(baseUri().resolve("/health")).timeout(Duration.ofSeconds(5)).build();
    Instant deadline = Instant.now().plus(timeout);
    String last = "no answer";
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The listener exited with code " + process.exitValue() + " before it was up:"
            + System.lineSeparator() + tail(log, 20));
      }
      try {
        HttpResponse<String> response = http.send(health, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200 && response.body().contains("\"UP\"")) {
          return;
        }
        last = "HTTP " + response.statusCode() + " " + response.body();
      } catch (IOException e) {
        last = e.toString();
      }
      TimeUnit.MILLISECONDS.sleep(250);
    }
    throw new IllegalStateException("The listener on port " + port + " was not healthy within " + timeout.toSeconds()
        + "s (" + last + "):" + System.lineSeparator() + tail(log, 20));
  }

  /** Stops the listener gracefully ({@code SIGTERM}), killing it after {@link #STOP_TIMEOUT}. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("The listener (process {}) did not stop within {}s; killing it", process.pid(),
            STOP_TIMEOUT.toSeconds());
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** The last {@code lines} lines of a log, for error messages. */
  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot find a free port", e);
    }
  }
}
