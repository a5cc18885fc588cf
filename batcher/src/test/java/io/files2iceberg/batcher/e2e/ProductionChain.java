package io.files2iceberg.batcher.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.StorageStandIn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The production chain on this machine, wired in one place: every {@code gs://} path of every
 * component goes to one {@link StorageStandIn} (the deployment's {@code storage.endpoint}); the
 * stand-in publishes each finalized object in GCS's notification format (attributes and the
 * JSON_API_V1 object resource) to a topic of the Cloud Pub/Sub emulator, which pushes it to the
 * listener's push route; the ledger is the Cloud Firestore emulator; the batcher and its local
 * warm driver run as processes of their own, the job reading its data files through the Hadoop
 * GCS connector and writing its results beside its manifests in the stand-in's bucket.
 *
 * <p>Which client points where:
 *
 * <ul>
 *   <li>listener (child JVM): Storage client for marker listings and generations {@code ->}
 *       stand-in; Firestore client {@code ->} emulator ({@code FIRESTORE_EMULATOR_HOST}); push
 *       route {@code <-} the Pub/Sub emulator's push subscription;
 *   <li>batcher ({@code batch serve}, child JVM): Storage client for manifests and results
 *       {@code ->} stand-in; Firestore {@code ->} emulator;
 *   <li>warm driver (child of the batcher): GCS connector ({@code fs.gs.storage.root.url}) and
 *       its Storage client for generations {@code ->} stand-in; Firestore checkpoint {@code ->}
 *       emulator; the Iceberg catalog is JDBC on SQLite under the home, the warehouse local.
 * </ul>
 *
 * <p>Without the Pub/Sub emulator the stand-in POSTs the same push envelope to the listener
 * itself, and says so on stderr.
 */
final class ProductionChain implements AutoCloseable {
  static final String LANDING_BUCKET = "landing";
  static final String LAKE_BUCKET = "lake";
  static final String PROJECT = "files2iceberg-chain";
  static final String TOPIC = "projects/" + PROJECT + "/topics/landing-finalized";
  static final String PUSH_SUBSCRIPTION = "projects/" + PROJECT + "/subscriptions/listener-push";
  static final String PULL_SUBSCRIPTION = "projects/" + PROJECT + "/subscriptions/listener-pull";
  static final Path PUBSUB_EMULATOR =
      Path.of("/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Path root;
  private final String firestoreHost;
  private final StorageStandIn storage;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<Process> processes = new ArrayList<>();
  private final AtomicInteger published = new AtomicInteger();
  private final List<String> deliveryFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
  private Process pubsub;
  private String pubsubHost;
  private Process listener;
  private URI pushUri;
  private Process batcher;

  private ProductionChain(Path root, String firestoreHost) throws IOException {
    this.root = root;
    this.firestoreHost = firestoreHost;
    this.storage = StorageStandIn.start(Files.createDirectories(root.resolve("gcs")));
    storage.createBucket(LANDING_BUCKET);
    storage.createBucket(LAKE_BUCKET);
  }

  /**
   * The stand-in, the Pub/Sub emulator (where installed) and the listener on these files: the
   * profile folder gets {@code deployment.conf} with the ledger on the Firestore emulator (this
   * prefix), {@code storage.endpoint} on the stand-in and {@code job.master} this Spark master.
   */
  static ProductionChain start(Path root, String firestoreHost, String prefix, String profileText, String master)
      throws Exception {
    ProductionChain chain = new ProductionChain(root, firestoreHost);
    try {
      Path profiles = Files.createDirectories(root.resolve("profiles"));
      Files.writeString(profiles.resolve("clicks.conf"), profileText);
      Files.writeString(profiles.resolve("deployment.conf"), chain.deployment(prefix, master));
      chain.startListener(List.of());
      if (Files.isExecutable(PUBSUB_EMULATOR)) {
        chain.startPubsub();
      } else {
        System.err.println("[chain] no Pub/Sub emulator at " + PUBSUB_EMULATOR
            + ": the stand-in POSTs each notification's push envelope to the listener itself");
      }
      chain.storage.onFinalize(chain::notifyFinalized);
      return chain;
    } catch (Exception | Error e) {
      chain.close();
      throw e;
    }
  }

  private String deployment(String prefix, String master) {
    return """
        ledger { type = firestore, firestore-project = "%s", collection-prefix = "%s" }
        storage { endpoint = "%s", credentials = none }
        job {
          master = "%s"
          lease-timeout = 20s
          warm.idle-timeout = 5m
          spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
        }
        """.formatted(io.files2iceberg.ledger.firestore.FirestoreEmulator.PROJECT, prefix, storage.endpoint(),
            master);
  }

  StorageStandIn storage() {
    return storage;
  }

  StorageSettings storageSettings() {
    return new StorageSettings(Optional.of(storage.endpoint()), StorageSettings.Credentials.NONE);
  }

  Path profiles() {
    return root.resolve("profiles");
  }

  Path home() {
    return root.resolve("home");
  }

  /** Whether the Pub/Sub emulator delivers (else the stand-in posts the envelopes itself). */
  boolean viaPubsub() {
    return pubsub != null;
  }

  int published() {
    return published.get();
  }

  List<String> deliveryFailures() {
    return List.copyOf(deliveryFailures);
  }

  // ---- the listener

  private void startListener(List<String> jvmOptions) throws Exception {
    int port = freePort();
    Path log = Files.createDirectories(home().resolve("logs")).resolve("listener.log");
    List<String> options = new ArrayList<>(List.of("-Dmicronaut.server.host=127.0.0.1"));
    options.addAll(jvmOptions);
    List<String> command = ListenerProcess.javaCommand(ListenerProcess.locateTarget(System.getenv(), Path.of("")),
        options,
        List.of("--config", profiles().toString(), "--home", home().toString(), "--port", Integer.toString(port)));
    listener = start(command, log);
    pushUri = URI.create("http://127.0.0.1:" + port + "/pubsub/push");
    awaitHttp(URI.create("http://127.0.0.1:" + port + "/health"), listener, log);
  }

  /**
   * The second delivery: the push subscription is deleted, a pull subscription takes its place
   * and a listener in pull mode streams from it (on the emulator's plaintext channel). Without the
   * emulator nothing changes: the stand-in goes on posting envelopes, and says so.
   */
  void switchToPull() throws Exception {
    if (pubsub == null) {
      System.err.println("[chain] no Pub/Sub emulator: pull delivery is not exercised; the stand-in goes on"
          + " posting push envelopes");
      return;
    }
    listener.destroy();
    listener.waitFor(30, TimeUnit.SECONDS);
    pubsubCall("DELETE", "/v1/" + PUSH_SUBSCRIPTION, "");
    pubsubCall("PUT", "/v1/" + PULL_SUBSCRIPTION,
        JSON.createObjectNode().put("topic", TOPIC).put("ackDeadlineSeconds", 10).toString());
    startListener(List.of("-Dfiles2iceberg.listener.pull.subscription=" + PULL_SUBSCRIPTION,
        "-Dfiles2iceberg.listener.pull.emulator-host=" + pubsubHost));
    System.err.println("[chain] the listener now pulls from " + PULL_SUBSCRIPTION);
  }

  // ---- Pub/Sub: the emulator's REST surface (topics, push subscriptions, publish)

  private void startPubsub() throws Exception {
    int port = freePort();
    Path log = Files.createDirectories(root.resolve("logs")).resolve("pubsub-emulator.log");
    ProcessBuilder builder = new ProcessBuilder(PUBSUB_EMULATOR.toString(), "--host=127.0.0.1", "--port=" + port)
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pubsub = builder.start();
    processes.add(pubsub);
    pubsubHost = "127.0.0.1:" + port;
    awaitPort(port, pubsub, log);
    pubsubCall("PUT", "/v1/" + TOPIC, "{}");
    ObjectNode subscription = JSON.createObjectNode().put("topic", TOPIC).put("ackDeadlineSeconds", 10);
    subscription.putObject("pushConfig").put("pushEndpoint", pushUri.toString());
    pubsubCall("PUT", "/v1/" + PUSH_SUBSCRIPTION, subscription.toString());
  }

  private JsonNode pubsubCall(String method, String path, String body) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://" + pubsubHost + path))
        .method(method, HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException("Pub/Sub emulator: " + method + " " + path + " answered "
          + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  /** The stand-in's finalize event, as GCS sends it to the bucket's notification topic. */
  private void notifyFinalized(StorageStandIn.FinalizedObject object) {
    if (!object.bucket().equals(LANDING_BUCKET)) {
      return; // the bucket notification covers the landing bucket only, as Terraform sets it
    }
    String data = Base64.getEncoder().encodeToString(object.resourceJson().getBytes(StandardCharsets.UTF_8));
    try {
      if (pubsub != null) {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode message = body.putArray("messages").addObject();
        message.put("data", data);
        ObjectNode attributes = message.putObject("attributes");
        object.notificationAttributes().forEach(attributes::put);
        pubsubCall("POST", "/v1/" + TOPIC + ":publish", body.toString());
      } else {
        postEnvelope(object, data);
      }
      published.incrementAndGet();
    } catch (IOException | InterruptedException | RuntimeException e) {
      deliveryFailures.add(object.name() + ": " + e);
    }
  }

  private void postEnvelope(StorageStandIn.FinalizedObject object, String data)
      throws IOException, InterruptedException {
    ObjectNode envelope = JSON.createObjectNode();
    envelope.put("subscription", PUSH_SUBSCRIPTION);
    ObjectNode message = envelope.putObject("message");
    message.put("data", data);
    message.put("messageId", Long.toString(object.generation()));
    message.put("publishTime", Instant.now().toString());
    ObjectNode attributes = message.putObject("attributes");
    object.notificationAttributes().forEach(attributes::put);
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(pushUri)
        .POST(HttpRequest.BodyPublishers.ofString(envelope.toString()))
        .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException("listener answered " + response.statusCode() + ": " + response.body());
    }
  }

  // ---- the batcher

  /** {@code files2iceberg batch serve} in a JVM of its own, every second. */
  void startBatcher() throws IOException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "="
            + LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")),
        "-cp", System.getProperty("java.class.path"),
        "io.files2iceberg.batcher.cli.Files2Iceberg",
        "batch", "serve", "--config", profiles().toString(), "--home", home().toString(),
        "--interval", "1s", "--metrics-port", "-1"));
    batcher = start(command, home().resolve("logs").resolve("batcher.log"));
  }

  /** SIGKILL to the batcher alone: its warm driver lives on, as it would on Dataproc. */
  void killBatcher() throws InterruptedException {
    batcher.destroyForcibly();
    batcher.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM: the current run ends, then the batcher exits. */
  void stopBatcher() throws InterruptedException {
    batcher.destroy();
    if (!batcher.waitFor(60, TimeUnit.SECONDS)) {
      batcher.destroyForcibly();
    }
  }

  Path batcherLog() {
    return home().resolve("logs").resolve("batcher.log");
  }

  Path driverLog() {
    return home().resolve("warm").resolve("driver.log");
  }

  Path listenerLog() {
    return home().resolve("logs").resolve("listener.log");
  }

  // ---- processes

  private Process start(List<String> command, Path log) throws IOException {
    Files.createDirectories(log.getParent());
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().put("FIRESTORE_EMULATOR_HOST", firestoreHost);
    builder.environment().put("FILES2ICEBERG_LOG_FORMAT", "TEXT");
    builder.environment().remove("PORT");
    builder.environment().remove(io.files2iceberg.core.storage.StorageClients.EMULATOR_HOST);
    Process process = builder.start();
    processes.add(process);
    return process;
  }

  private void awaitHttp(URI health, Process process, Path log) throws Exception {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try {
        if (http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.discarding())
            .statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(health + " not UP within " + START_TIMEOUT + ":\n" + Files.readString(log));
  }

  private static void awaitPort(int port, Process process, Path log) throws Exception {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
        return;
      } catch (IOException e) {
        Thread.sleep(200);
      }
    }
    throw new IllegalStateException("port " + port + " not open within " + START_TIMEOUT + ":\n"
        + Files.readString(log));
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Stops what this chain started, by pid: the batcher, the warm driver (found by its folder's
   * {@code driver.pid}), the listener, the Pub/Sub emulator; then the stand-in.
   */
  @Override
  public void close() throws IOException {
    for (Process process : processes) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    Path driverPid = home().resolve("warm").resolve("driver.pid");
    if (Files.isRegularFile(driverPid)) {
      String text = Files.readString(driverPid).strip().split("\\s+")[0];
      try {
        ProcessHandle.of(Long.parseLong(text)).ifPresent(ProcessHandle::destroyForcibly);
      } catch (NumberFormatException e) {
        // no pid written
      }
    }
    storage.close();
  }
}
