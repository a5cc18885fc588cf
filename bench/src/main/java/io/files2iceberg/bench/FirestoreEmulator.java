package io.files2iceberg.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Cloud Firestore emulator the ledger suite started, on a free local port, its output in a log
 * file; stopped by its own process handle, never by name.
 */
final class FirestoreEmulator implements AutoCloseable {
  private static final Path JAR =
      Path.of("/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar");

  private final Process process;
  private final String host;

  private FirestoreEmulator(Process process, String host) {
    this.process = process;
    this.host = host;
  }

  /** The emulator at FIRESTORE_EMULATOR_HOST, when set: not ours to start or stop. */
  static Optional<String> externalHost() {
    String external = System.getenv("FIRESTORE_EMULATOR_HOST");
    return external != null && !external.isBlank() ? Optional.of(external) : Optional.empty();
  }

  /** Why the Firestore part cannot run: neither an emulator at FIRESTORE_EMULATOR_HOST nor one to start. */
  static Optional<String> missingBecause() {
    if (externalHost().isPresent()) {
      return Optional.empty();
    }
    return Files.isRegularFile(JAR) ? Optional.empty()
        : Optional.of("the Cloud Firestore emulator is missing (" + JAR
            + "; gcloud components install cloud-firestore-emulator, or set FIRESTORE_EMULATOR_HOST)");
  }

  /** Starts an emulator for {@code project}, writing its output to {@code log}; waits until it serves. */
  static FirestoreEmulator start(String project, Path log) throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process started = new ProcessBuilder(java, "-Duser.language=en", "-Xmx2g", "-cp", JAR.toString(),
        "com.google.cloud.datastore.emulator.firestore.CloudFirestore", "start", "--host=127.0.0.1",
        "--port=" + port, "--project_id=" + project).redirectErrorStream(true).start();
    FirestoreEmulator emulator = new FirestoreEmulator(started, "127.0.0.1:" + port);
    CompletableFuture<Boolean> ready = new CompletableFuture<>();
    Thread pump = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(started.getInputStream(),
          StandardCharsets.UTF_8)); var out = Files.newBufferedWriter(log)) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          out.write(line);
          out.newLine();
          out.flush();
          if (line.contains("Dev App Server is now running")) {
            ready.complete(true);
          }
        }
      } catch (Exception e) {
        ready.completeExceptionally(e);
      }
      ready.complete(false);
    }, "firestore-emulator-log");
    pump.setDaemon(true);
    pump.start();
    boolean up;
    try {
      up = ready.get(120, TimeUnit.SECONDS);
    } catch (Exception e) {
      emulator.close();
      throw e;
    }
    if (!up) {
      emulator.close();
      throw new IllegalStateException("the Cloud Firestore emulator did not start; see " + log);
    }
    Bench.progress("[ledger] Firestore: started the Cloud Firestore emulator (pid " + started.pid()
        + ") on " + emulator.host + ", log " + log);
    return emulator;
  }

  /** {@code host:port}. */
  String host() {
    return host;
  }

  /** Stops the emulator by its own process handle. */
  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    Bench.progress("[ledger] Firestore: stopped the emulator (pid " + process.pid() + ")");
  }
}
