package io.files2iceberg.listener.pull;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.api.gax.rpc.TransportChannelProvider;
import com.google.cloud.pubsub.v1.Publisher;
import com.google.cloud.pubsub.v1.SubscriptionAdminClient;
import com.google.cloud.pubsub.v1.SubscriptionAdminSettings;
import com.google.cloud.pubsub.v1.TopicAdminClient;
import com.google.cloud.pubsub.v1.TopicAdminSettings;
import com.google.protobuf.ByteString;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.PushConfig;
import com.google.pubsub.v1.Subscription;
import com.google.pubsub.v1.TopicName;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Cloud Pub/Sub emulator of the Google Cloud SDK, run as a child process on 127.0.0.1 and a
 * free port, with the admin and publish calls a test needs over a plaintext channel (the Java
 * client does not read {@code PUBSUB_EMULATOR_HOST}).
 */
final class PubsubEmulator implements AutoCloseable {
  /** The SDK's emulator folder; {@code PUBSUB_EMULATOR_DIR} names another. */
  static final Path HOME =
      Path.of(
          Optional.ofNullable(System.getenv("PUBSUB_EMULATOR_DIR"))
              .filter(dir -> !dir.isBlank())
              .orElse("/usr/lib/google-cloud-sdk/platform/pubsub-emulator"));
  static final Path SCRIPT = HOME.resolve("bin/cloud-pubsub-emulator");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Process process;
  private final String host;
  private final Path log;
  private final ManagedChannel channel;
  private final TransportChannelProvider channels;

  private PubsubEmulator(Process process, String host, Path log) {
    this.process = process;
    this.host = host;
    this.log = log;
    this.channel = ManagedChannelBuilder.forTarget(host).usePlaintext().build();
    this.channels = FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel));
  }

  static boolean isInstalled() {
    return Files.isExecutable(SCRIPT);
  }

  static PubsubEmulator start() {
    try {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = socket.getLocalPort();
      }
      Path log = Files.createDirectories(Path.of("target")).resolve("pubsub-emulator-" + port + ".log");
      ProcessBuilder builder =
          new ProcessBuilder(SCRIPT.toString(), "--host=127.0.0.1", "--port=" + port)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      // The emulator is a Java program: run it on this JVM's Java.
      builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
      Process process = builder.start();
      PubsubEmulator emulator = new PubsubEmulator(process, "127.0.0.1:" + port, log);
      emulator.awaitPort(port);
      return emulator;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the Pub/Sub emulator " + SCRIPT, e);
    }
  }

  private void awaitPort(int port) throws IOException {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "The Pub/Sub emulator exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
        return;
      } catch (IOException e) {
        sleep(200);
      }
    }
    close();
    throw new IllegalStateException(
        "The Pub/Sub emulator did not listen on " + host + " within " + START_TIMEOUT + ":\n"
            + Files.readString(log));
  }

  /** {@code 127.0.0.1:<port>}. */
  String host() {
    return host;
  }

  void createTopic(String topic) throws IOException {
    try (TopicAdminClient topics =
        TopicAdminClient.create(
            TopicAdminSettings.newBuilder()
                .setTransportChannelProvider(channels)
                .setCredentialsProvider(NoCredentialsProvider.create())
                .build())) {
      topics.createTopic(topic);
    }
  }

  /**
   * @param pushEndpoint empty for a pull subscription
   */
  void createSubscription(String subscription, String topic, Optional<String> pushEndpoint)
      throws IOException {
    Subscription.Builder request =
        Subscription.newBuilder().setName(subscription).setTopic(topic).setAckDeadlineSeconds(10);
    pushEndpoint.ifPresent(
        endpoint -> request.setPushConfig(PushConfig.newBuilder().setPushEndpoint(endpoint)));
    try (SubscriptionAdminClient subscriptions =
        SubscriptionAdminClient.create(
            SubscriptionAdminSettings.newBuilder()
                .setTransportChannelProvider(channels)
                .setCredentialsProvider(NoCredentialsProvider.create())
                .build())) {
      subscriptions.createSubscription(request.build());
    }
  }

  /** Publishes one message; returns its message id. */
  String publish(String topic, Map<String, String> attributes, byte[] data) throws Exception {
    Publisher publisher =
        Publisher.newBuilder(TopicName.parse(topic))
            .setChannelProvider(channels)
            .setCredentialsProvider(NoCredentialsProvider.create())
            .build();
    try {
      return publisher
          .publish(
              PubsubMessage.newBuilder()
                  .putAllAttributes(attributes)
                  .setData(ByteString.copyFrom(data))
                  .build())
          .get(30, TimeUnit.SECONDS);
    } finally {
      publisher.shutdown();
      publisher.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Freezes the emulator ({@code SIGSTOP} to the process this class started and its children):
   * its port stays open and answers nothing, as a partitioned or hung server does.
   */
  void freeze() {
    signal("STOP");
  }

  /** Lets a frozen emulator go on ({@code SIGCONT}). */
  void resume() {
    signal("CONT");
  }

  private void signal(String signal) {
    java.util.List<ProcessHandle> processes = new java.util.ArrayList<>();
    processes.add(process.toHandle());
    process.descendants().forEach(processes::add);
    for (ProcessHandle handle : processes) {
      try {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(handle.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
          throw new IllegalStateException("kill -" + signal + " " + handle.pid() + " failed");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
