package io.files2iceberg.batcher.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@code batch serve}'s HTTP endpoint over real HTTP: the scrape, the health a liveness probe reads. */
class MetricsEndpointTest {
  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void healthIsUpOrDownAsTheServeLoopSaysWithoutDetails() throws Exception {
    AtomicBoolean healthy = new AtomicBoolean(true);
    try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0),
        () -> "files2iceberg_x 1\n", healthy::get)) {
      HttpResponse<String> up = get(endpoint.uri().resolve(MetricsEndpoint.HEALTH_PATH), "GET");
      healthy.set(false);
      HttpResponse<String> down = get(endpoint.uri().resolve(MetricsEndpoint.HEALTH_PATH), "GET");
      HttpResponse<String> posted = get(endpoint.uri().resolve(MetricsEndpoint.HEALTH_PATH), "POST");
      HttpResponse<String> other = get(endpoint.uri().resolve("/healthz"), "GET");
      HttpResponse<String> scrape = get(endpoint.uri(), "GET");

      assertThat(up.statusCode()).isEqualTo(200);
      assertThat(up.body()).isEqualTo("{\"status\":\"UP\"}");
      assertThat(up.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(down.statusCode()).isEqualTo(503);
      assertThat(down.body()).isEqualTo("{\"status\":\"DOWN\"}");
      assertThat(posted.statusCode()).isEqualTo(405);
      assertThat(other.statusCode()).isEqualTo(404);
      assertThat(other.body()).contains("/prometheus", "/health");
      assertThat(scrape.statusCode()).as("the metrics are served whatever the health").isEqualTo(200);
      assertThat(scrape.body()).isEqualTo("files2iceberg_x 1\n");
    }
  }

  private HttpResponse<String> get(URI uri, String method) throws Exception {
    return client.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
