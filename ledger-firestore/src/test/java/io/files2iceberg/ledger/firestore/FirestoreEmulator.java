package io.files2iceberg.ledger.firestore;

import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Firestore the tests run against, one per test JVM, shared by every test class (each test
 * works under its own collection prefix) and stopped after the run. Chosen in this order:
 *
 * <ol>
 *   <li>{@code FIRESTORE_EMULATOR_HOST} set: the emulator already running there.
 *   <li>The Cloud Firestore emulator of the Google Cloud SDK ({@link #CLOUD_EMULATOR_JAR}), started
 *       on a free loopback port.
 *   <li>The npm package {@code @firestore-emulator/server}, as {@code .ci/run} installs it into
 *       {@code .ci/firestore-emulator} (or {@code FIRESTORE_NPM_EMULATOR_DIR}); its transactions
 *       are not isolated, so the tests that race transactions are skipped, saying so.
 *   <li>Neither: the tests fail, naming what is missing.
 * </ol>
 *
 * <p>{@code -Dfiles2iceberg.test.firestore=emulator|npm} (or {@code FILES2ICEBERG_TEST_FIRESTORE})
 * forces one of the two.
 *
 * <p>Public, in this module's test jar, for other modules' tests that run against Firestore.
 */
public final class FirestoreEmulator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FirestoreEmulator.class);

  static final Path CLOUD_EMULATOR_JAR =
      Path.of("/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar");
  public static final String PROJECT = "files2iceberg-test";
  static final String MODE_PROPERTY = "files2iceberg.test.firestore";
  static final String NPM_PACKAGE = "@firestore-emulator/server";
  private static final Duration STARTUP = Duration.ofSeconds(90);
  private static final SecureRandom RANDOM = new SecureRandom();

  enum Kind {
    EXTERNAL("the emulator at FIRESTORE_EMULATOR_HOST"),
    CLOUD_FIRESTORE_EMULATOR("the Cloud Firestore emulator"),
    NPM(NPM_PACKAGE);

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  private final Kind kind;
  private final String host;
  private final Process process;
  private final Firestore client;

  private FirestoreEmulator(Kind kind, String host, Process process) {
    this.kind = kind;
    this.host = host;
    this.process = process;
    this.client = options().build().getService();
  }

  /** The emulator of this test run, started on first use. */
  static FirestoreEmulator of(ExtensionContext context) {
    return context.getRoot()
        .getStore(ExtensionContext.Namespace.create(FirestoreEmulator.class))
        .getOrComputeIfAbsent(FirestoreEmulator.class, key -> start(), FirestoreEmulator.class);
  }

  Kind kind() {
    return kind;
  }

  public String host() {
    return host;
  }

  /** The emulator process this run started; empty for one at {@code FIRESTORE_EMULATOR_HOST}. */
  Optional<Process> process() {
    return Optional.ofNullable(process);
  }

  /** A Firestore ledger on this emulator with these settings (project {@link #PROJECT}). */
  public FirestoreLedger openLedger(io.files2iceberg.core.profile.LedgerSettings settings, java.time.Clock clock) {
    return FirestoreLedger.open(settings, clock, host);
  }

  /** The shared client; tests must not close it. */
  Firestore client() {
    return client;
  }

  /** Options for a client of one's own, pointed at this emulator without credentials. */
  FirestoreOptions.Builder options() {
    return FirestoreLedger.emulator(FirestoreOptions.newBuilder().setProjectId(PROJECT), host);
  }

  Optional<String> transactionsNotIsolatedBecause() {
    return kind == Kind.NPM
        ? Optional.of("needs the Cloud Firestore emulator: " + NPM_PACKAGE + " does not isolate transactions")
        : Optional.empty();
  }

  /** A fresh collection prefix: every test has a store of its own in the shared emulator. */
  public static String newPrefix() {
    byte[] random = new byte[5];
    RANDOM.nextBytes(random);
    return "t" + HexFormat.of().formatHex(random) + "_";
  }

  // --- starting and stopping ---------------------------------------------------------------------

  /**
   * An emulator of one's own, outside a test run (as {@link FirestoreEmulatorExtension} starts
   * the shared one): {@code FIRESTORE_EMULATOR_HOST} when set, else the Cloud Firestore emulator,
   * else the npm stand-in. The caller closes it.
   */
  public static FirestoreEmulator startOwn() {
    return start();
  }

  private static FirestoreEmulator start() {
    String mode = Optional.ofNullable(System.getProperty(MODE_PROPERTY))
        .or(() -> Optional.ofNullable(System.getenv("FILES2ICEBERG_TEST_FIRESTORE")))
        .orElse("auto").trim().toLowerCase(Locale.ROOT);
    String external = System.getenv("FIRESTORE_EMULATOR_HOST");
    FirestoreEmulator emulator;
    switch (mode) {
      case "auto" -> {
        if (external != null && !external.isBlank()) {
          emulator = new FirestoreEmulator(Kind.EXTERNAL, external, null);
        } else if (Files.isRegularFile(CLOUD_EMULATOR_JAR)) {
          emulator = startCloudEmulator();
        } else {
          emulator = startNpmEmulator();
        }
      }
      case "emulator" -> emulator = startCloudEmulator();
      case "npm" -> emulator = startNpmEmulator();
      default -> throw new IllegalStateException(
          MODE_PROPERTY + " = '" + mode + "': expected auto, emulator or npm");
    }
    LOG.info("Firestore tests run against {} at {}", emulator.kind.description, emulator.host);
    emulator.transactionsNotIsolatedBecause().ifPresent(reason ->
        LOG.warn("Tests that race transactions will be SKIPPED: {}", reason));
    return emulator;
  }

  private static FirestoreEmulator startCloudEmulator() {
    if (!Files.isRegularFile(CLOUD_EMULATOR_JAR)) {
      throw new IllegalStateException("The Cloud Firestore emulator is not installed: " + CLOUD_EMULATOR_JAR
          + " is missing (gcloud components install cloud-firestore-emulator)");
    }
    int port = freePort();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = List.of(java, "-Duser.language=en", "-Xmx1g", "-cp", CLOUD_EMULATOR_JAR.toString(),
        "com.google.cloud.datastore.emulator.firestore.CloudFirestore", "start",
        "--host=127.0.0.1", "--port=" + port, "--project_id=" + PROJECT);
    Process process = launch(command, null, Kind.CLOUD_FIRESTORE_EMULATOR);
    return awaitReady(Kind.CLOUD_FIRESTORE_EMULATOR, process, port, "Dev App Server is now running");
  }

  private static FirestoreEmulator startNpmEmulator() {
    Path dir = npmDirectory().orElseThrow(() -> new IllegalStateException(
        "No Firestore emulator for the tests: neither " + CLOUD_EMULATOR_JAR + " nor the npm package "
            + NPM_PACKAGE + " (install it with: npm install --no-save --prefix .ci/firestore-emulator "
            + NPM_PACKAGE + ", as .ci/run does; or set FIRESTORE_EMULATOR_HOST)"));
    int port = freePort();
    // The package is a library: bind its gRPC server to loopback only and report when it listens.
    String script = String.join("\n",
        "const { FirestoreServer } = require('" + NPM_PACKAGE + "');",
        "const grpc = require('@grpc/grpc-js');",
        "const server = new FirestoreServer();",
        "server.server.bindAsync('127.0.0.1:" + port + "', grpc.ServerCredentials.createInsecure(), (err) => {",
        "  if (err) { console.error(err); process.exit(1); }",
        "  console.log('firestore-emulator listening on 127.0.0.1:" + port + "');",
        "});",
        "process.stdin.on('end', () => process.exit(0));",
        "process.stdin.resume();");
    Process process = launch(List.of("node", "-e", script), dir, Kind.NPM);
    return awaitReady(Kind.NPM, process, port, "firestore-emulator listening");
  }

  /** {@code FIRESTORE_NPM_EMULATOR_DIR}, else {@code .ci/firestore-emulator} of the nearest enclosing repo. */
  private static Optional<Path> npmDirectory() {
    String configured = System.getenv("FIRESTORE_NPM_EMULATOR_DIR");
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured)).filter(FirestoreEmulator::hasPackage);
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(".ci").resolve("firestore-emulator");
      if (hasPackage(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static boolean hasPackage(Path dir) {
    return Files.isDirectory(dir.resolve("node_modules").resolve(NPM_PACKAGE));
  }

  private static Process launch(List<String> command, Path workingDir, Kind kind) {
    Path log = Path.of("target", "firestore-emulator-" + kind.name().toLowerCase(Locale.ROOT) + ".log").toAbsolutePath();
    try {
      Files.createDirectories(log.getParent());
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(log.toFile());
      if (workingDir != null) {
        builder.directory(workingDir.toFile());
      }
      Process process = builder.start();
      // A backstop for a JVM that ends without closing the store.
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "firestore-emulator-stop"));
      return process;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + kind.description + ": " + command.get(0), e);
    }
  }

  private static FirestoreEmulator awaitReady(Kind kind, Process process, int port, String readyLine) {
    Path log = Path.of("target", "firestore-emulator-" + kind.name().toLowerCase(Locale.ROOT) + ".log").toAbsolutePath();
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(kind.description + " exited with " + process.exitValue() + ":\n" + tail(log));
      }
      if (tail(log).contains(readyLine) && accepts(port)) {
        return new FirestoreEmulator(kind, "127.0.0.1:" + port, process);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    process.destroyForcibly();
    throw new IllegalStateException(kind.description + " did not start within " + STARTUP.toSeconds() + " s:\n" + tail(log));
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String tail(Path log) {
    try {
      String text = Files.readString(log, StandardCharsets.UTF_8);
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "";
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free loopback port", e);
    }
  }

  @Override
  public void close() {
    try {
      client.close();
    } catch (Exception e) {
      LOG.warn("Closing the Firestore client failed", e);
    }
    if (process != null) {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
      LOG.info("Stopped {}", kind.description);
    }
  }
}
