package io.files2iceberg.bench;

import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.auth.Credentials;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;
import com.google.firestore.v1.BatchGetDocumentsRequest;
import com.google.firestore.v1.BatchGetDocumentsResponse;
import com.google.firestore.v1.BatchWriteRequest;
import com.google.firestore.v1.BeginTransactionRequest;
import com.google.firestore.v1.CommitRequest;
import com.google.firestore.v1.RollbackRequest;
import com.google.firestore.v1.RunAggregationQueryRequest;
import com.google.firestore.v1.RunQueryRequest;
import com.google.firestore.v1.RunQueryResponse;
import com.google.firestore.v1.Write;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A gRPC interceptor on the Firestore client's channel that counts what each call costs, from the
 * messages themselves: documents returned by {@code BatchGetDocuments} (found and missing) and by
 * {@code RunQuery}, the writes of every {@code Commit} and {@code BatchWrite}, and the {@code
 * BeginTransaction}, {@code Commit} and {@code Rollback} calls. It also notes the names of the
 * documents written while {@link #capturing} is on, so the baseline can write the same ones bare.
 */
final class FirestoreCounter implements ClientInterceptor {
  final LedgerCounts counts = new LedgerCounts();
  final Set<String> written = ConcurrentHashMap.newKeySet();
  volatile boolean capturing;

  /**
   * A client on the emulator at {@code host} whose every RPC goes through this counter. Not the
   * client's emulator mode: with {@code NoCredentials} it opens a channel of its own and ignores
   * the channel provider; credentials that send the emulator's administrator token keep ours.
   */
  Firestore client(String host, String project) {
    InstantiatingGrpcChannelProvider channel = InstantiatingGrpcChannelProvider.newBuilder()
        .setEndpoint(host)
        .setChannelConfigurator(builder -> builder.usePlaintext())
        .setInterceptorProvider(() -> List.of(this))
        .build();
    return FirestoreOptions.newBuilder()
        .setProjectId(project)
        .setHost(host)
        .setCredentials(new EmulatorOwner())
        .setChannelProvider(channel)
        .build()
        .getService();
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<A> listener, Metadata headers) {
        counts.rpcs.increment();
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onMessage(A message) {
            if (message instanceof BatchGetDocumentsResponse got) {
              if (got.hasFound()) {
                counts.documentsRead.increment();
              } else if (got.hasMissing()) {
                counts.documentsMissing.increment();
              }
            } else if (message instanceof RunQueryResponse row && row.hasDocument()) {
              counts.documentsRead.increment();
            }
            super.onMessage(message);
          }
        }, headers);
      }

      @Override
      public void sendMessage(Q message) {
        if (message instanceof CommitRequest commit) {
          counts.commits.increment();
          counts.documentsWritten.add(commit.getWritesCount());
          capture(commit.getWritesList());
        } else if (message instanceof BatchWriteRequest batch) {
          counts.commits.increment();
          counts.documentsWritten.add(batch.getWritesCount());
          capture(batch.getWritesList());
        } else if (message instanceof BeginTransactionRequest) {
          counts.transactions.increment();
        } else if (message instanceof RollbackRequest) {
          counts.rollbacks.increment();
        } else if (message instanceof RunQueryRequest query) {
          counts.queries.increment();
          if (query.hasNewTransaction()) {
            counts.transactions.increment(); // a transaction begun by its first read
          }
        } else if (message instanceof RunAggregationQueryRequest) {
          counts.queries.increment();
        } else if (message instanceof BatchGetDocumentsRequest get && get.hasNewTransaction()) {
          counts.transactions.increment();
        }
        super.sendMessage(message);
      }
    };
  }

  private void capture(List<Write> writes) {
    if (capturing) {
      for (Write write : writes) {
        written.add(write.hasUpdate() ? write.getUpdate().getName() : write.getDelete());
      }
    }
  }

  /** The emulator's administrator ({@code Bearer owner}); not {@code GoogleCredentials}, so plaintext is allowed. */
  private static final class EmulatorOwner extends Credentials {
    @Override
    public String getAuthenticationType() {
      return "emulator";
    }

    @Override
    public Map<String, List<String>> getRequestMetadata(URI uri) {
      return Map.of("Authorization", List.of("Bearer owner"));
    }

    @Override
    public boolean hasRequestMetadata() {
      return true;
    }

    @Override
    public boolean hasRequestMetadataOnly() {
      return true;
    }

    @Override
    public void refresh() {}
  }
}
