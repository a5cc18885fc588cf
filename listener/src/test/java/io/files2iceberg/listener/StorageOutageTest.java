package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.ServiceOptions;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.listener.FailingGcsServer.ConnectionReset;
import io.files2iceberg.listener.FailingGcsServer.Json;
import io.files2iceberg.listener.push.PushController;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
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
 * A marker's folder listing against a Cloud Storage that fails: the real Storage client talks to
 * {@link FailingGcsServer} on loopback, which resets the connection or answers GCS's error JSON.
 * An I/O failure or a 5xx is transient, so the push gets {@code 503} and the redelivery lists
 * again; only a listing that can never succeed (403, 404) quarantines the marker. The client's
 * own retries are off, so each push makes one listing request. {@link UnresolvableStorageTest}
 * covers a DNS failure.
 */
@MicronautTest(environments = StorageOutageTest.FAILING_GCS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StorageOutageTest implements TestPropertyProvider {
  static final String FAILING_GCS = "failing-gcs";
  static final String HOST = "test.failing-gcs.host";
  private static final String BUCKET = "landing";
  private static final String TABLE = "local.demo.clicks";

  private Path root;
  private FailingGcsServer gcs;

  @Inject
  @Client("/")
  HttpClient client;

  @Inject Ledger ledger;

  @Override
  public Map<String, String> getProperties() {
    try {
      gcs = new FailingGcsServer();
      root = Files.createTempDirectory("storage-outage-test");
      Path profile =
          Files.writeString(
              root.resolve("clicks.conf"),
              """
              extract.path = "gs://landing/raw/clicks/dt=*/*.parquet"
              load.iceberg.table = "local.demo.clicks"
              """);
      return Map.of(
          "files2iceberg.config", profile.toString(),
          "files2iceberg.home", root.resolve("home").toString(),
          HOST, gcs.host());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  void stop() throws IOException {
    gcs.close();
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  @Test
  void connectionResetDuringTheMarkerListingIs503WithoutQuarantineAndTheRedeliveryMakesThePartitionReady() {
    String marker = "raw/clicks/dt=2024-06-01/_SUCCESS";
    gcs.reply(new ConnectionReset());
    int requestsBefore = gcs.requestLines().size();

    HttpResponse<?> reset = post(Envelopes.finalized("m-reset", BUCKET, marker, 601, 0));

    assertThat(reset.code()).isEqualTo(503);
    assertThat(outcome(reset)).isEqualTo("retry");
    // The JDK's HTTP client sends a GET once more when the connection fails before the reply.
    assertThat(gcs.requestLines().size() - requestsBefore).isBetween(1, 2);
    String request = gcs.requestLines().get(requestsBefore);
    assertThat(request).startsWith("GET /storage/v1/b/landing/o?").endsWith(" HTTP/1.1");
    assertThat(URLDecoder.decode(request, StandardCharsets.UTF_8))
        .contains("prefix=raw/clicks/dt=2024-06-01/")
        .contains("delimiter=/");
    assertThat(quarantined("m-reset")).isEmpty();
    assertThat(ledger.partition(TABLE, "dt=2024-06-01")).isEmpty();

    gcs.reply(
        new Json(
            200,
            """
            {"kind":"storage#objects","items":[{"kind":"storage#object","bucket":"landing",\
            "name":"raw/clicks/dt=2024-06-01/part-0.parquet","generation":"611","size":"10",\
            "updated":"2024-06-01T00:00:00.000Z"}]}"""));
    HttpResponse<?> redelivered = post(Envelopes.finalized("m-reset", BUCKET, marker, 601, 0));

    assertThat(redelivered.code()).isEqualTo(204);
    assertThat(outcome(redelivered)).isEqualTo("partition_ready");
    assertThat(ledger.partition(TABLE, "dt=2024-06-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
    FileRecord listed =
        ledger.file(LedgerSchema.fileId(BUCKET, "raw/clicks/dt=2024-06-01/part-0.parquet", 611)).orElseThrow();
    assertThat(listed.eventId()).isEqualTo("listing:m-reset");
    assertThat(quarantined("m-reset")).isEmpty();
  }

  @Test
  void connectionDroppedInTheMiddleOfAListingPageIs503WithoutQuarantine() {
    gcs.reply(new FailingGcsServer.DroppedMidResponse());
    int requestsBefore = gcs.requestLines().size();

    HttpResponse<?> response =
        post(Envelopes.finalized("m-dropped", BUCKET, "raw/clicks/dt=2024-06-05/_SUCCESS", 605, 0));

    assertThat(response.code()).isEqualTo(503);
    assertThat(outcome(response)).isEqualTo("retry");
    assertThat(gcs.requestLines()).hasSize(requestsBefore + 1);
    assertThat(URLDecoder.decode(gcs.requestLines().get(requestsBefore), StandardCharsets.UTF_8))
        .startsWith("GET /storage/v1/b/landing/o?")
        .contains("prefix=raw/clicks/dt=2024-06-05/");
    assertThat(quarantined("m-dropped")).isEmpty();
    assertThat(ledger.partition(TABLE, "dt=2024-06-05")).isEmpty();
  }

  @Test
  void serverErrorsAndThrottlingDuringTheMarkerListingAre503WithoutQuarantine() {
    int[] statuses = {500, 503, 429, 408};
    for (int status : statuses) {
      String messageId = "m-status-" + status;
      gcs.reply(FailingGcsServer.error(status, "backendError", "Backend Error"));

      HttpResponse<?> response =
          post(Envelopes.finalized(messageId, BUCKET, "raw/clicks/dt=2024-06-02/_SUCCESS", 602, 0));

      assertThat(response.code()).as("GCS %d", status).isEqualTo(503);
      assertThat(outcome(response)).as("GCS %d", status).isEqualTo("retry");
      assertThat(quarantined(messageId)).as("GCS %d", status).isEmpty();
    }
    assertThat(ledger.partition(TABLE, "dt=2024-06-02")).isEmpty();
  }

  @Test
  void forbiddenListingQuarantinesTheMarkerWithTheReasonAndLeavesThePartitionNotReady() {
    String marker = "raw/clicks/dt=2024-06-03/_SUCCESS";
    gcs.reply(
        FailingGcsServer.error(
            403,
            "forbidden",
            "listener@p.iam.gserviceaccount.com does not have storage.objects.list access to the Google"
                + " Cloud Storage bucket."));

    HttpResponse<?> response = post(Envelopes.finalized("m-forbidden", BUCKET, marker, 603, 0));

    assertThat(response.code()).isEqualTo(204);
    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantined("m-forbidden").orElseThrow();
    assertThat(quarantined.reason())
        .isEqualTo(
            "listing gs://landing/raw/clicks/dt=2024-06-03/ failed (403): listener@p.iam.gserviceaccount.com does"
                + " not have storage.objects.list access to the Google Cloud Storage bucket.");
    assertThat(quarantined.objectUri()).contains("gs://landing/" + marker);
    assertThat(ledger.partition(TABLE, "dt=2024-06-03")).isEmpty();
  }

  @Test
  void listingOfABucketThatDoesNotExistQuarantinesTheMarker() {
    gcs.reply(FailingGcsServer.error(404, "notFound", "The specified bucket does not exist."));

    HttpResponse<?> response =
        post(Envelopes.finalized("m-no-bucket", BUCKET, "raw/clicks/dt=2024-06-04/_SUCCESS", 604, 0));

    assertThat(response.code()).isEqualTo(204);
    assertThat(outcome(response)).isEqualTo("quarantined");
    assertThat(quarantined("m-no-bucket").orElseThrow().reason())
        .isEqualTo("listing gs://landing/raw/clicks/dt=2024-06-04/ failed (404): The specified bucket does not exist.");
  }

  private HttpResponse<?> post(String body) {
    try {
      return client
          .toBlocking()
          .exchange(HttpRequest.POST("/pubsub/push", body).contentType(MediaType.APPLICATION_JSON_TYPE));
    } catch (HttpClientResponseException e) {
      return e.getResponse();
    }
  }

  private static String outcome(HttpResponse<?> response) {
    return response.header(PushController.OUTCOME_HEADER);
  }

  private Optional<QuarantinedMessage> quarantined(String messageId) {
    return ledger.quarantinedMessages().stream().filter(m -> m.messageId().equals(messageId)).findFirst();
  }

  /** The listener's Storage client, pointed at the failing server, without the client's retries. */
  @Factory
  @Requires(env = FAILING_GCS)
  static class FailingGcsBeans {
    @Singleton
    @Replaces(bean = Storage.class, factory = ListenerFactory.class)
    Storage storage(@Property(name = HOST) String host) {
      return StorageOptions.http()
          .setHost(host)
          .setProjectId("test-project")
          .setCredentials(NoCredentials.getInstance())
          .setRetrySettings(ServiceOptions.getNoRetrySettings())
          .build()
          .getService();
    }
  }
}
