package io.files2iceberg.batcher.listen;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.ConfigProblems;
import io.files2iceberg.batcher.cli.DeploymentFile;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.StopSignals;
import io.files2iceberg.batcher.engine.launch.ClassDataSharing;
import io.files2iceberg.batcher.engine.launch.FileNameEncoding;
import io.files2iceberg.batcher.engine.launch.JavaOptions;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.core.profile.Home;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code listen}: the listener service ({@code io.files2iceberg.listener.ListenerApplication}) as
 * a child process with this one's terminal, once the command line and the profiles are checked.
 * The child gets {@value #JAVA_OPTS_ENV} as its JVM options and this process's id, so it stops
 * when this process ends however it ends; {@code SIGTERM} or Ctrl-C here is passed on (the
 * listener finishes the messages in flight) and this command exits with the listener's exit code.
 */
@Command(
    name = "listen",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the listener: receives Pub/Sub push envelopes of GCS notifications on",
      "listener.push-path (default /pubsub/push) and records files and ready partitions",
      "in the ledger. Health on /health, Prometheus metrics on /prometheus.",
      "Exits with the listener's exit code: 2 for invalid configuration or usage,",
      "1 when the home already has a live listener."
    },
    footer = {
      "",
      "The listener runs in its own JVM, with $FILES2ICEBERG_JAVA_OPTS as its JVM options.",
      "Logs are JSON lines for Cloud Logging; FILES2ICEBERG_LOG_FORMAT=TEXT prints plain text."
    })
public final class ListenCommand extends CliCommand {
  /** The listener JVM's options, split at whitespace as the shell would. */
  public static final String JAVA_OPTS_ENV = "FILES2ICEBERG_JAVA_OPTS";
  static final String CONFIG_ENV = "FILES2ICEBERG_CONFIG";

  @Mixin ConfigOption config;

  @Mixin HomeOption home;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "HTTP port. Default: $PORT, else the profiles' listener.port (8080). The address is the profiles'"
          + " listener.host, else 0.0.0.0 when $PORT is set (Cloud Run), else 127.0.0.1.")
  Integer port;

  /** Tests stop the listener by interrupting the command and leave the JVM's signals alone. */
  boolean handleSignals = true;

  @Override
  public Integer call() throws IOException, InterruptedException {
    Map<String, String> env = System.getenv();
    Optional<Path> profiles = Optional.ofNullable(config.path())
        .or(() -> Optional.ofNullable(env.get(CONFIG_ENV)).filter(v -> !v.isBlank()).map(Path::of));
    if (profiles.isEmpty()) {
      throw usageError("Missing required option: '--config=FILE|DIR' (or $" + CONFIG_ENV + ")");
    }
    if (port != null && (port < 1 || port > 65535)) {
      throw usageError("--port: must be a port from 1 to 65535, got " + port);
    }
    Home resolved = home.resolve();
    if (ConfigProblems.load(profiles.get(), resolved, err()).isEmpty()) {
      return ExitCode.INVALID;
    }
    List<String> args = new ArrayList<>(List.of("--config", profiles.get().toAbsolutePath().toString()));
    DeploymentFile.chosen().ifPresent(file -> args.addAll(List.of("--deployment", file.toAbsolutePath().toString())));
    if (home.home != null) {
      args.add("--home");
      args.add(resolved.root().toString());
    }
    if (port != null) {
      args.add("--port");
      args.add(Integer.toString(port));
    }
    List<String> command = ListenerProcess.javaCommand(ListenerProcess.locateTarget(env, Path.of("")),
        JavaOptions.parse(env.get(JAVA_OPTS_ENV)), args);
    out().flush();
    err().flush();
    ClassDataSharing.Start sharing = ClassDataSharing.fromEnvironment(env).start(command);
    ProcessBuilder builder = new ProcessBuilder(sharing.command()).inheritIO();
    FileNameEncoding.requireUtf8(builder.environment());
    Process listener;
    try {
      listener = builder.start();
    } catch (IOException e) {
      sharing.notStarted();
      throw e;
    }
    CompletableFuture<Void> archived = sharing.whenExited(listener);
    if (handleSignals) {
      StopSignals.onTermination("stopping the listener (it finishes the messages in flight)", listener::destroy);
    }
    try {
      int code = listener.waitFor();
      // The listener's class-data archive, when it wrote one, is kept before this JVM ends.
      try {
        archived.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // Sharing only saves time: the next listener writes it.
      }
      return code;
    } catch (InterruptedException e) {
      // Stopped from this JVM (a test, an embedding caller): stop the listener as SIGTERM would.
      int code = stop(listener);
      Thread.currentThread().interrupt();
      return code;
    }
  }

  private static int stop(Process listener) {
    listener.destroy();
    try {
      if (!listener.waitFor(ListenerProcess.STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        listener.destroyForcibly();
        listener.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      listener.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    return listener.isAlive() ? ExitCode.FAILED : listener.exitValue();
  }
}
