package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.Ledger;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
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

/** {@code /health} follows the ledger: UP while it answers, DOWN with a 503 once it does not. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HealthTest implements TestPropertyProvider {
  private Path root;

  @Inject
  @Client("/")
  HttpClient client;

  @Inject Ledger ledger;

  @Override
  public Map<String, String> getProperties() {
    try {
      root = Files.createTempDirectory("health-test");
      Path profile =
          Files.writeString(
              root.resolve("clicks.conf"),
              "extract.path = \"gs://landing/raw/*/*.parquet\"\nload.iceberg.table = \"local.demo.clicks\"\n");
      return Map.of(
          "files2iceberg.config", profile.toString(),
          "files2iceberg.home", root.resolve("home").toString(),
          // As ListenerApplication sets it where the listener answers on loopback only.
          "endpoints.health.details-visible", "ANONYMOUS");
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
  void healthIsUpWhileTheLedgerAnswersAndDownWith503OnceItDoesNot() {
    HttpResponse<String> up = get("/health");

    // A closed ledger answers nothing: what an unreachable store looks like to the listener.
    ledger.close();
    HttpResponse<String> down = get("/health");

    assertThat(up.code()).isEqualTo(200);
    assertThat(up.body()).contains("\"status\":\"UP\"").contains("\"ledger\"");
    assertThat(down.code()).isEqualTo(503);
    assertThat(down.body()).contains("\"status\":\"DOWN\"").contains("\"available\":false");
  }

  private HttpResponse<String> get(String path) {
    try {
      return client.toBlocking().exchange(HttpRequest.GET(path), String.class);
    } catch (HttpClientResponseException e) {
      return e.getResponse().getBody(String.class).isPresent()
          ? HttpResponse.<String>status(e.getStatus()).body(e.getResponse().getBody(String.class).get())
          : HttpResponse.status(e.getStatus());
    }
  }
}
