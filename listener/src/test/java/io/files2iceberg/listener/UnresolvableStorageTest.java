package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.Ledger;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A marker's listing while the Cloud Storage host does not resolve (a DNS failure: the real
 * Storage client, pointed at a name under {@code .invalid}, which never resolves, throws a
 * {@code StorageException} with code 0 caused by an {@code UnknownHostException}). The failure is
 * transient: the push gets {@code 503} and nothing is quarantined.
 */
@MicronautTest(environments = StorageOutageTest.FAILING_GCS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnresolvableStorageTest implements TestPropertyProvider {
  private Path root;

  @Inject
  @Client("/")
  HttpClient client;

  @Inject Ledger ledger;

  @Override
  public Map<String, String> getProperties() {
    try {
      root = Files.createTempDirectory("unresolvable-storage-test");
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
          StorageOutageTest.HOST, "http://storage.files2iceberg-test.invalid");
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
  void dnsFailureDuringTheMarkerListingIs503WithoutQuarantine() {
    String body = Envelopes.finalized("m-dns", "landing", "raw/clicks/dt=2024-06-06/_SUCCESS", 606, 0);

    HttpResponse<?> response;
    try {
      response =
          client.toBlocking().exchange(HttpRequest.POST("/pubsub/push", body).contentType(MediaType.APPLICATION_JSON_TYPE));
    } catch (HttpClientResponseException e) {
      response = e.getResponse();
    }

    assertThat(response.code()).isEqualTo(503);
    assertThat(response.header(PushController.OUTCOME_HEADER)).isEqualTo("retry");
    assertThat(ledger.quarantinedMessages()).isEmpty();
    assertThat(ledger.partition("local.demo.clicks", "dt=2024-06-06")).isEmpty();
    assertThat(prometheus())
        .contains("files2iceberg_listener_messages_total{outcome=\"retry\",reason=\"listing-unavailable\"} 1.0");
  }

  private String prometheus() {
    return client.toBlocking().retrieve(HttpRequest.GET("/prometheus"));
  }
}
