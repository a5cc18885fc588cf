package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.listener.push.PushController;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A deployment with {@code listener.list-prefix-on-marker = false} and its own {@code
 * listener.push-path}, in a deployment file apart from the profiles ({@code files2iceberg.deployment},
 * the environment's {@code FILES2ICEBERG_DEPLOYMENT}): the marker makes its partition READY with the
 * files already known, and the endpoint is where the deployment file says.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ListingOffTest implements TestPropertyProvider {
  private static final String BUCKET = "landing";
  private static final String TABLE = "local.demo.orders";
  private static final String PUSH_PATH = "/gcs/notifications";

  private Path root;

  @Inject
  @Client("/")
  HttpClient client;

  @Inject Ledger ledger;
  @Inject Storage storage;

  @Override
  public Map<String, String> getProperties() {
    try {
      root = Files.createTempDirectory("listing-off-test");
      Path config = Files.createDirectories(root.resolve("profiles"));
      Files.writeString(
          config.resolve("orders.yaml"),
          """
          extract:
            path: "gs://landing/orders/*/*.csv"
            format: csv
          load:
            iceberg.table: local.demo.orders
          """);
      // Beside the profiles, but not the one named: it must not be read.
      Files.writeString(config.resolve("deployment.conf"), "listener.push-path = /not/this/one\n");
      Path deployment = Files.createDirectories(root.resolve("ops")).resolve("orders-deployment.yaml");
      Files.writeString(
          deployment,
          """
          listener:
            push-path: /gcs/notifications
            list-prefix-on-marker: false
          """);
      return Map.of(
          "files2iceberg.config", config.toString(),
          "files2iceberg.deployment", deployment.toString(),
          "files2iceberg.home", root.resolve("home").toString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  void deleteTempFolder() throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  @Test
  void markerMakesThePartitionReadyWithOnlyTheFilesAlreadyNotified() {
    // part-1 is in the bucket but its notification has not arrived; nothing lists the folder.
    storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, "orders/d1/part-1.csv", 2L)).build(), new byte[] {1});

    HttpResponse<?> data = post(PUSH_PATH, Envelopes.finalized("o-1", BUCKET, "orders/d1/part-0.csv", 1, 10));
    HttpResponse<?> marker = post(PUSH_PATH, Envelopes.finalized("o-2", BUCKET, "orders/d1/_SUCCESS", 3, 0));

    assertThat(data.code()).isEqualTo(204);
    assertThat(marker.code()).isEqualTo(204);
    assertThat(marker.header(PushController.OUTCOME_HEADER)).isEqualTo("partition_ready");
    PartitionRecord partition = ledger.partition(TABLE, "d1").orElseThrow();
    assertThat(partition.state()).isEqualTo(PartitionState.READY);
    assertThat(file("orders/d1/part-0.csv", 1)).isPresent();
    assertThat(file("orders/d1/part-1.csv", 2)).isEmpty();
    assertThat(ledger.tableStatus(TABLE).filesByState().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(1);
  }

  @Test
  void pushEndpointIsAtTheConfiguredPathOnly() {
    String envelope = Envelopes.finalized("o-3", BUCKET, "orders/d2/part-0.csv", 4, 10);

    HttpResponse<?> configured = post(PUSH_PATH, envelope);
    HttpResponse<?> defaultPath = post("/pubsub/push", envelope);
    HttpResponse<?> besideTheProfiles = post("/not/this/one", envelope);

    assertThat(configured.code()).isEqualTo(204);
    assertThat(configured.header(PushController.OUTCOME_HEADER)).isEqualTo("recorded");
    assertThat(defaultPath.code()).isEqualTo(404);
    assertThat(besideTheProfiles.code()).isEqualTo(404);
  }

  private Optional<FileRecord> file(String name, long generation) {
    return ledger.file(LedgerSchema.fileId(BUCKET, name, generation));
  }

  private HttpResponse<?> post(String path, String body) {
    try {
      return client
          .toBlocking()
          .exchange(HttpRequest.POST(path, body).contentType(MediaType.APPLICATION_JSON_TYPE));
    } catch (HttpClientResponseException e) {
      return e.getResponse();
    }
  }
}
