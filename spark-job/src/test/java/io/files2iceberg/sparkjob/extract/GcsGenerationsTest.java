package io.files2iceberg.sparkjob.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.StorageOptions;
import com.sun.net.httpserver.HttpServer;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gs:// generations against a stand-in that answers the JSON API as GCS does: one metadata GET
 * per object, asking only for the generation; 404 when the object is gone.
 */
class GcsGenerationsTest {
  private HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile int status = 200;
  private volatile String body = "";

  @BeforeEach
  void startStandIn() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
      exchange.close();
    });
    server.start();
  }

  @AfterEach
  void stopStandIn() {
    server.stop(0);
  }

  private GcsGenerations generations() {
    return new GcsGenerations(StorageOptions.http()
        .setHost("http://127.0.0.1:" + server.getAddress().getPort())
        .setProjectId("test-project")
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService());
  }

  @Test
  void liveGenerationIsTheObjectsGenerationFromOneMetadataRequest() throws IOException {
    body = "{\"kind\":\"storage#object\",\"bucket\":\"landing\",\"name\":\"raw/dt=2024-01-01/a b.parquet\","
        + "\"generation\":\"1733000000123456\"}";

    OptionalLong generation = generations().of(ObjectLocation.parse("gs://landing/raw/dt=2024-01-01/a b.parquet"));

    assertThat(generation).hasValue(1733000000123456L);
    assertThat(requests).singleElement().asString()
        .startsWith("GET /storage/v1/b/landing/o/raw%2Fdt=2024-01-01%2Fa%20b.parquet?")
        .contains("fields=")
        .contains("generation");
  }

  @Test
  void deletedObjectHasNoLiveGeneration() throws IOException {
    status = 404;
    body = "{\"error\":{\"code\":404,\"message\":\"No such object: landing/raw/a.parquet\"}}";

    assertThat(generations().of(ObjectLocation.parse("gs://landing/raw/a.parquet"))).isEmpty();
  }

  @Test
  void storageThatCannotAnswerIsAnIoErrorNamingTheObject() {
    status = 403;
    body = "{\"error\":{\"code\":403,\"message\":\"denied\"}}";

    assertThatThrownBy(() -> generations().of(ObjectLocation.parse("gs://landing/raw/a.parquet")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot read the generation of gs://landing/raw/a.parquet");
  }
}
