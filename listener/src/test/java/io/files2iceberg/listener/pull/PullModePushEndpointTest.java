package io.files2iceberg.listener.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A pulling listener takes its messages from the subscription only: its push endpoint answers
 * {@code 404} to an anonymous post, which leaves the ledger untouched, unless {@code
 * listener.push-enabled = true} turns it on beside the pull.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PullModePushEndpointTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private FakePubsub pubsub;

  @BeforeAll
  void startPubsub() {
    pubsub = FakePubsub.start();
  }

  @AfterAll
  void stopPubsub() {
    pubsub.close();
  }

  @Test
  void anonymousSuccessMarkerPostedToAPullingListenerIs404AndMarksNothingReady() throws Exception {
    try (Listener listener = new Listener("")) {
      DataFile marker = marker("2024-06-01");

      HttpResponse<String> response = listener.post("/pubsub/push", marker.pushEnvelope("forged-1"));

      assertThat(response.statusCode()).isEqualTo(404);
      assertThat(listener.ledger.partition(TestDeployment.TABLE, "2024-06-01")).isEmpty();
      assertThat(listener.ledger.tables()).doesNotContain(TestDeployment.TABLE);
      assertThat(listener.ledger.quarantinedMessages()).isEmpty();
      // The listener is up all the same: health and metrics answer.
      assertThat(listener.get("/health").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void pullingListenerWithPushEnabledTakesPushesToo() throws Exception {
    try (Listener listener = new Listener("push-enabled = true")) {
      DataFile marker = marker("2024-06-02");

      HttpResponse<String> response = listener.post("/pubsub/push", marker.pushEnvelope("pushed-1"));

      assertThat(response.statusCode()).isEqualTo(204);
      assertThat(response.headers().firstValue("X-Files2iceberg-Outcome")).contains("partition_ready");
      assertThat(listener.ledger.partition(TestDeployment.TABLE, "2024-06-02").orElseThrow().state())
          .isEqualTo(PartitionState.READY);
    }
  }

  @Test
  void pushDisabledWithoutPullModeStopsTheStartNamingTheKeys() {
    TestDeployment deployment = TestDeployment.create("push-enabled = false");
    try {
      Map<String, Object> properties = new HashMap<>(deployment.properties());
      properties.put("micronaut.server.port", -1);

      assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, properties).close())
          .hasStackTraceContaining(
              "listener.push-enabled is false and files2iceberg.listener.pull.subscription is not set:"
                  + " the listener would receive nothing");
    } finally {
      deployment.close();
    }
  }

  private static DataFile marker(String date) {
    return new DataFile("raw/clicks/dt=" + date + "/_SUCCESS", TestDeployment.dataFile(date).generation(), 0);
  }

  /** A listener in pull mode on the fake subscription, with these lines under {@code listener}. */
  private final class Listener implements AutoCloseable {
    private final TestDeployment deployment;
    private final EmbeddedServer server;
    private final Ledger ledger;

    Listener(String listenerKeys) {
      deployment = TestDeployment.create(listenerKeys);
      Map<String, Object> properties = new HashMap<>(deployment.properties());
      properties.put("micronaut.server.port", -1);
      properties.put(
          PullConfiguration.PREFIX + ".subscription",
          "projects/files2iceberg-test/subscriptions/pull-" + UUID.randomUUID());
      properties.put(PullConfiguration.PREFIX + ".emulator-host", pubsub.host());
      properties.put(PullConfiguration.PREFIX + ".shutdown-timeout", "2s");
      server = ApplicationContext.run(EmbeddedServer.class, properties);
      ledger = server.getApplicationContext().getBean(Ledger.class);
    }

    HttpResponse<String> post(String path, String body) throws Exception {
      return HTTP.send(
          HttpRequest.newBuilder(uri(path))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
      return HTTP.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
      return URI.create("http://127.0.0.1:" + server.getPort() + path);
    }

    @Override
    public void close() {
      server.getApplicationContext().close();
      deployment.close();
    }
  }
}
