package io.files2iceberg.listener;

import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ListenerSettings;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.micronaut.runtime.Micronaut;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * Starts the listener: {@code --config DIR [--deployment FILE] [--home DIR] [--port N]}, each also
 * from the environment ({@code FILES2ICEBERG_CONFIG}, {@code FILES2ICEBERG_DEPLOYMENT}, {@code
 * FILES2ICEBERG_HOME}, {@code PORT}) so that the
 * container on Cloud Run needs no arguments. The port is {@code --port}, else {@code PORT}, else
 * the deployment file's {@code listener.port}. The address is the Micronaut property {@value
 * #HOST_PROPERTY} when set, else the deployment file's {@code listener.host}, else every interface on Cloud Run ({@code
 * PORT} set) and loopback anywhere else ({@link ListenerSettings#bindAddress}).
 */
public final class ListenerApplication {

  static final String USAGE =
      String.join(
          System.lineSeparator(),
          "Usage: files2iceberg listen --config DIR [--deployment FILE] [--home DIR] [--port N]",
          "Runs the listener: receives Pub/Sub push envelopes of GCS notifications on",
          "listener.push-path (default /pubsub/push) and records files and ready partitions",
          "in the ledger. Health on /health, Prometheus metrics on /prometheus.",
          "",
          "  --config DIR   folder of table profiles (or one profile file);",
          "                 default $FILES2ICEBERG_CONFIG",
          "  --deployment FILE  the deployment file (ledger, listener, job, storage); default",
          "                 $FILES2ICEBERG_DEPLOYMENT, else deployment.conf beside the profiles",
          "  --home DIR     embedded home (ledger.db, ...); default $FILES2ICEBERG_HOME,",
          "                 else .files2iceberg/",
          "  --port N       HTTP port; default $PORT, else the deployment's listener.port (8080)",
          "                 The address is the deployment's listener.host, else 0.0.0.0 when $PORT",
          "                 is set (Cloud Run), else 127.0.0.1",
          "  -h, --help     print this help and exit",
          "",
          "Logs are JSON lines for Cloud Logging; FILES2ICEBERG_LOG_FORMAT=TEXT prints plain text.");

  /** Micronaut's bind address; set (a {@code -D}, {@code MICRONAUT_SERVER_HOST}), it wins. */
  static final String HOST_PROPERTY = "micronaut.server.host";
  /** Who sees {@code /health}'s details; set as a {@code -D}, it wins over {@link #healthDetails}. */
  static final String DETAILS_PROPERTY = "endpoints.health.details-visible";

  /** Held for the life of the process: an unreachable channel would be closed, releasing the lock. */
  private static HomeLock homeLock;

  private ListenerApplication() {}

  /** Exits 2 on a command line that cannot work, saying why and how the command is used. */
  private static void exitWithUsage(String error) {
    System.err.println("error: " + error);
    System.err.println(USAGE);
    System.exit(2);
  }

  public static void main(String[] args) {
    Map<String, String> env = System.getenv();
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      exitWithUsage(e.getMessage());
      return;
    }
    if (options.help()) {
      System.out.println(USAGE);
      return;
    }
    // First: a listener whose parent died while it started must not come up at all.
    try {
      ParentWatch.parentPid(System.getProperty(ParentWatch.PARENT_PID_PROPERTY)).ifPresent(ParentWatch::start);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    Optional<String> config = options.config().or(() -> nonBlank(env.get("FILES2ICEBERG_CONFIG")));
    if (config.isEmpty()) {
      exitWithUsage("--config DIR (or FILES2ICEBERG_CONFIG) is required");
      return;
    }
    Optional<String> home = options.home().or(() -> nonBlank(env.get(Home.ENV)));
    Optional<String> deployment =
        options.deployment().or(() -> nonBlank(env.get(ListenerFactory.DEPLOYMENT_ENV)));

    // Load the profiles once up front: a bad profile folder is reported like `validate` does,
    // and the port may come from them.
    ProfileRegistry registry;
    Home resolvedHome = Home.resolve(home.map(Path::of), env);
    try {
      registry = ProfileRegistry.load(Path.of(config.get()), deployment.map(Path::of), resolvedHome);
    } catch (ProfileException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    // One listener per home: a second one (a rerun of `local` beside a listener left running)
    // would answer pushes meant for the first.
    try {
      homeLock = HomeLock.acquire(resolvedHome.root());
    } catch (HomeLock.HomeTakenException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(1);
      return;
    } catch (IOException e) {
      // A home that cannot hold the lock file (a read-only container file system with Firestore)
      // runs unguarded; a SQLite ledger there fails on its own.
      LoggerFactory.getLogger(ListenerApplication.class).warn(
          "Cannot lock the home {} against a second listener: {}", resolvedHome.root(), e.toString());
    }
    int port =
        options.port()
            .or(() -> nonBlank(env.get("PORT")).map(p -> Options.port(p, "PORT")))
            .orElse(registry.deployment().listener().port());

    Map<String, Object> properties = new HashMap<>();
    properties.put(ListenerFactory.CONFIG, config.get());
    home.ifPresent(h -> properties.put(ListenerFactory.HOME, h));
    deployment.ifPresent(d -> properties.put(ListenerFactory.DEPLOYMENT, d));
    properties.put("micronaut.server.port", port);
    ListenerSettings settings = registry.deployment().listener();
    Optional<String> hostGiven =
        nonBlank(System.getProperty(HOST_PROPERTY)).or(() -> nonBlank(env.get("MICRONAUT_SERVER_HOST")));
    String host = hostGiven.orElseGet(() -> settings.bindAddress(env));
    if (hostGiven.isEmpty()) {
      properties.put(HOST_PROPERTY, host);
    }
    if (nonBlank(System.getProperty(DETAILS_PROPERTY)).isEmpty()) {
      properties.put(DETAILS_PROPERTY, healthDetails(host));
    }
    Micronaut.build(new String[0])
        .mainClass(ListenerApplication.class)
        .banner(false)
        .properties(properties)
        .start();
  }

  /**
   * Who sees {@code /health}'s details (the ledger's state and reason, pull mode's subscription):
   * anyone where the listener answers on loopback only, as on a laptop; nobody where the network
   * can reach it (Cloud Run, {@code listener.host = "0.0.0.0"}), where they stay in the log.
   */
  static String healthDetails(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress() ? "ANONYMOUS" : "NEVER";
    } catch (UnknownHostException e) {
      return "NEVER";
    }
  }

  private static Optional<String> nonBlank(String value) {
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
  }

  /** The command line. */
  record Options(boolean help, Optional<String> config, Optional<String> deployment, Optional<String> home,
      Optional<Integer> port) {

    static Options parse(String[] args) {
      boolean help = false;
      Optional<String> config = Optional.empty();
      Optional<String> deployment = Optional.empty();
      Optional<String> home = Optional.empty();
      Optional<Integer> port = Optional.empty();
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        String name = arg;
        String value = null;
        int equals = arg.indexOf('=');
        if (arg.startsWith("--") && equals > 0) {
          name = arg.substring(0, equals);
          value = arg.substring(equals + 1);
        }
        switch (name) {
          case "-h", "--help" -> help = true;
          case "--config", "--deployment", "--home", "--port" -> {
            if (value == null) {
              if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
              }
              value = args[++i];
            }
            switch (name) {
              case "--config" -> config = Optional.of(value);
              case "--deployment" -> deployment = Optional.of(value);
              case "--home" -> home = Optional.of(value);
              default -> port = Optional.of(port(value, "--port"));
            }
          }
          default -> throw new IllegalArgumentException("unknown option " + arg);
        }
      }
      return new Options(help, config, deployment, home, port);
    }

    static int port(String text, String what) {
      try {
        int port = Integer.parseInt(text.trim());
        if (port >= 1 && port <= 65535) {
          return port;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException(what + " \"" + text + "\" is not a port from 1 to 65535");
    }
  }
}
