package io.files2iceberg.listener.pull;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import com.google.protobuf.Timestamp;
import com.google.pubsub.v1.AcknowledgeRequest;
import com.google.pubsub.v1.ModifyAckDeadlineRequest;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.ReceivedMessage;
import com.google.pubsub.v1.StreamingPullRequest;
import com.google.pubsub.v1.StreamingPullResponse;
import com.google.pubsub.v1.SubscriberGrpc;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-process fake of Pub/Sub's Subscriber service on a plain gRPC server at 127.0.0.1: just
 * what the Java client's streaming pull uses. Published messages go out on the open streaming-pull
 * streams; an ack ({@code Acknowledge}) settles a message, a nack ({@code ModifyAckDeadline} with
 * 0 s) puts it back for redelivery at once, as the real service does without a retry policy.
 * Other deadline extensions are accepted and ignored. It keeps which message ids were acked and
 * nacked, in order.
 */
final class FakePubsub implements AutoCloseable {
  private final Server server;
  private final Service service = new Service();
  private final AtomicLong messageIds = new AtomicLong(1000);

  private FakePubsub() {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .addService(service)
            .build();
  }

  static FakePubsub start() {
    FakePubsub fake = new FakePubsub();
    try {
      fake.server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    fake.service.startDelivering();
    return fake;
  }

  /** {@code 127.0.0.1:<port>}, the listener's emulator host. */
  String host() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Publishes one message to every subscriber; returns its message id. */
  String publish(Map<String, String> attributes, byte[] data) {
    Instant now = Instant.now();
    String id = Long.toString(messageIds.incrementAndGet());
    service.ready.add(
        PubsubMessage.newBuilder()
            .setMessageId(id)
            .putAllAttributes(attributes)
            .setData(ByteString.copyFrom(data))
            .setPublishTime(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
            .build());
    return id;
  }

  List<String> acked() {
    return List.copyOf(service.acked);
  }

  List<String> nacked() {
    return List.copyOf(service.nacked);
  }

  @Override
  public void close() {
    service.delivery.shutdownNow();
    server.shutdownNow();
    try {
      server.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class Service extends SubscriberGrpc.SubscriberImplBase {
    final BlockingQueue<PubsubMessage> ready = new LinkedBlockingQueue<>();
    final Map<String, PubsubMessage> outstanding = new ConcurrentHashMap<>();
    final List<String> acked = new CopyOnWriteArrayList<>();
    final List<String> nacked = new CopyOnWriteArrayList<>();
    final Set<StreamObserver<StreamingPullResponse>> streams = ConcurrentHashMap.newKeySet();
    final ExecutorService delivery = Executors.newSingleThreadExecutor();

    void startDelivering() {
      delivery.execute(
          () -> {
            while (!Thread.currentThread().isInterrupted()) {
              try {
                PubsubMessage message = ready.poll(50, TimeUnit.MILLISECONDS);
                if (message != null && !deliver(message)) {
                  ready.add(message);
                  Thread.sleep(50);
                }
              } catch (InterruptedException e) {
                return;
              }
            }
          });
    }

    /** Sends the message on one open stream; false when none is open. */
    private boolean deliver(PubsubMessage message) {
      for (StreamObserver<StreamingPullResponse> stream : streams) {
        String ackId = UUID.randomUUID().toString();
        outstanding.put(ackId, message);
        try {
          synchronized (stream) {
            stream.onNext(
                StreamingPullResponse.newBuilder()
                    .addReceivedMessages(ReceivedMessage.newBuilder().setAckId(ackId).setMessage(message))
                    .build());
          }
          return true;
        } catch (RuntimeException e) {
          outstanding.remove(ackId);
          streams.remove(stream);
        }
      }
      return false;
    }

    @Override
    public StreamObserver<StreamingPullRequest> streamingPull(
        StreamObserver<StreamingPullResponse> responses) {
      return new StreamObserver<>() {
        @Override
        public void onNext(StreamingPullRequest request) {
          if (!request.getSubscription().isEmpty()) {
            streams.add(responses);
          }
          request.getAckIdsList().forEach(Service.this::ack);
          for (int i = 0; i < request.getModifyDeadlineAckIdsCount(); i++) {
            if (request.getModifyDeadlineSeconds(i) == 0) {
              nack(request.getModifyDeadlineAckIds(i));
            }
          }
        }

        @Override
        public void onError(Throwable failure) {
          streams.remove(responses);
        }

        @Override
        public void onCompleted() {
          streams.remove(responses);
          synchronized (responses) {
            responses.onCompleted();
          }
        }
      };
    }

    @Override
    public void acknowledge(AcknowledgeRequest request, StreamObserver<Empty> response) {
      request.getAckIdsList().forEach(this::ack);
      response.onNext(Empty.getDefaultInstance());
      response.onCompleted();
    }

    @Override
    public void modifyAckDeadline(ModifyAckDeadlineRequest request, StreamObserver<Empty> response) {
      if (request.getAckDeadlineSeconds() == 0) {
        request.getAckIdsList().forEach(this::nack);
      }
      response.onNext(Empty.getDefaultInstance());
      response.onCompleted();
    }

    private void ack(String ackId) {
      PubsubMessage message = outstanding.remove(ackId);
      if (message != null) {
        acked.add(message.getMessageId());
      }
    }

    private void nack(String ackId) {
      PubsubMessage message = outstanding.remove(ackId);
      if (message != null) {
        nacked.add(message.getMessageId());
        ready.add(message);
      }
    }
  }
}
