package io.files2iceberg.batcher.events;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.api.gax.rpc.TransportChannelProvider;
import com.google.cloud.pubsub.v1.SubscriptionAdminClient;
import com.google.cloud.pubsub.v1.SubscriptionAdminSettings;
import com.google.cloud.pubsub.v1.TopicAdminClient;
import com.google.cloud.pubsub.v1.TopicAdminSettings;
import com.google.pubsub.v1.PublishRequest;
import com.google.pubsub.v1.PublishResponse;
import com.google.pubsub.v1.PublisherGrpc;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.PullRequest;
import com.google.pubsub.v1.PushConfig;
import com.google.pubsub.v1.ReceivedMessage;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A topic to publish change events to, and what reached it: on the Cloud Pub/Sub emulator of the
 * Google Cloud SDK where the machine has it (started on a free loopback port, pulled back through a
 * subscription), else on an in-process fake of the Publisher gRPC service, which says so on
 * stderr. The Java client does not read {@code PUBSUB_EMULATOR_HOST}: both are reached over a
 * plaintext channel built here.
 */
abstract class TestTopic implements AutoCloseable {
  static final String TOPIC = "projects/files2iceberg-test/topics/lake-changes";
  private static final String SUBSCRIPTION = "projects/files2iceberg-test/subscriptions/lake-changes-test";
  static final Path EMULATOR =
      Path.of("/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator");

  private final ManagedChannel channel;
  final TransportChannelProvider channels;

  private TestTopic(String host) {
    channel = ManagedChannelBuilder.forTarget(host).usePlaintext().build();
    channels = FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel));
  }

  /** {@code -Dfiles2iceberg.test.pubsub=fake} tests against the fake even where the emulator is installed. */
  static final String MODE_PROPERTY = "files2iceberg.test.pubsub";

  static TestTopic start() throws Exception {
    boolean fake = "fake".equals(System.getProperty(MODE_PROPERTY));
    if (!fake && Files.isExecutable(EMULATOR)) {
      return Emulated.start();
    }
    System.err.println((fake ? MODE_PROPERTY + " = fake" : "The Pub/Sub emulator is not installed at " + EMULATOR)
        + ": the Pub/Sub sink is tested against an in-process fake Publisher service instead");
    return Faked.start();
  }

  /** A sink publishing to this topic. */
  PubSubChangeSink sink() {
    return sink(TOPIC);
  }

  /** A sink publishing to another topic of the same server (one that does not exist: its publishes fail). */
  PubSubChangeSink sink(String topic) {
    return PubSubChangeSink.open(topic, java.util.Optional.of(channels),
        java.util.Optional.of(NoCredentialsProvider.create()));
  }

  /** The messages that reached the topic, waiting up to 30 s for {@code count} of them. */
  abstract List<PubsubMessage> received(int count) throws Exception;

  @Override
  public void close() {
    channel.shutdownNow();
  }

  /** The SDK's emulator, a child process of this test; stopped by its own process handle. */
  private static final class Emulated extends TestTopic {
    private final Process process;

    private Emulated(String host, Process process) {
      super(host);
      this.process = process;
    }

    static Emulated start() throws Exception {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = socket.getLocalPort();
      }
      Path log = Files.createDirectories(Path.of("target")).resolve("pubsub-emulator-" + port + ".log");
      ProcessBuilder builder = new ProcessBuilder(EMULATOR.toString(), "--host=127.0.0.1", "--port=" + port)
          .redirectErrorStream(true).redirectOutput(log.toFile());
      builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
      Process process = builder.start();
      Emulated emulated = new Emulated("127.0.0.1:" + port, process);
      Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
      while (true) {
        try (Socket socket = new Socket()) {
          socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
          break;
        } catch (IOException e) {
          if (!process.isAlive() || Instant.now().isAfter(deadline)) {
            emulated.close();
            throw new IllegalStateException("The Pub/Sub emulator did not start:\n" + Files.readString(log));
          }
          Thread.sleep(200);
        }
      }
      try (TopicAdminClient topics = TopicAdminClient.create(TopicAdminSettings.newBuilder()
          .setTransportChannelProvider(emulated.channels).setCredentialsProvider(NoCredentialsProvider.create())
          .build());
          SubscriptionAdminClient subscriptions = emulated.subscriptions()) {
        topics.createTopic(TOPIC);
        subscriptions.createSubscription(SUBSCRIPTION, TOPIC, PushConfig.getDefaultInstance(), 10);
      }
      System.err.println("Pub/Sub sink tested against the Pub/Sub emulator at 127.0.0.1:" + port
          + " (pid " + process.pid() + ")");
      return emulated;
    }

    private SubscriptionAdminClient subscriptions() throws IOException {
      return SubscriptionAdminClient.create(SubscriptionAdminSettings.newBuilder()
          .setTransportChannelProvider(channels).setCredentialsProvider(NoCredentialsProvider.create()).build());
    }

    @Override
    List<PubsubMessage> received(int count) throws Exception {
      List<PubsubMessage> messages = new ArrayList<>();
      Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
      try (SubscriptionAdminClient subscriptions = subscriptions()) {
        while (messages.size() < count && Instant.now().isBefore(deadline)) {
          List<ReceivedMessage> pulled = subscriptions.pullCallable().call(PullRequest.newBuilder()
              .setSubscription(SUBSCRIPTION).setMaxMessages(count).build()).getReceivedMessagesList();
          pulled.forEach(m -> messages.add(m.getMessage()));
          if (!pulled.isEmpty()) {
            subscriptions.acknowledge(SUBSCRIPTION, pulled.stream().map(ReceivedMessage::getAckId).toList());
          }
        }
      }
      return messages;
    }

    @Override
    public void close() {
      super.close();
      process.destroy(); // only the process this test started, by its handle
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Publish only: records what it is sent and answers with message ids. */
  private static final class Faked extends TestTopic {
    private final Server server;
    private final List<PubsubMessage> messages;

    private Faked(Server server, List<PubsubMessage> messages) {
      super("127.0.0.1:" + server.getPort());
      this.server = server;
      this.messages = messages;
    }

    static Faked start() throws IOException {
      List<PubsubMessage> messages = new CopyOnWriteArrayList<>();
      AtomicLong ids = new AtomicLong();
      Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
          .addService(new PublisherGrpc.PublisherImplBase() {
            @Override
            public void publish(PublishRequest request, StreamObserver<PublishResponse> response) {
              if (!request.getTopic().equals(TOPIC)) {
                response.onError(io.grpc.Status.NOT_FOUND.withDescription("Topic not found").asRuntimeException());
                return;
              }
              PublishResponse.Builder published = PublishResponse.newBuilder();
              for (PubsubMessage message : request.getMessagesList()) {
                messages.add(message);
                published.addMessageIds(Long.toString(ids.incrementAndGet()));
              }
              response.onNext(published.build());
              response.onCompleted();
            }
          }).build().start();
      return new Faked(server, messages);
    }

    @Override
    List<PubsubMessage> received(int count) {
      return List.copyOf(messages);
    }

    @Override
    public void close() {
      super.close();
      server.shutdownNow();
    }
  }
}
