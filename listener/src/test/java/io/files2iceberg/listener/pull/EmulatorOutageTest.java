package io.files2iceberg.listener.pull;

import static io.files2iceberg.listener.pull.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pulling listener whose Pub/Sub stops answering: the emulator, started by this test alone, is
 * frozen with {@code SIGSTOP} (its port stays open and answers nothing, as a partition does).
 * {@code /health} goes DOWN once Pub/Sub has not answered for {@code unreachable-timeout}, UP again
 * once the emulator answers, and a message published during the outage is recorded once after it.
 *
 * <p>The outage is kept to seconds: the emulator does not answer the client's stream keepalive, so
 * the client cancels an idle stream after about 20 s, and the emulator (0.8.20) fails on the
 * cancel and keeps delivering to the dead stream. The real service answers the keepalive.
 */
class EmulatorOutageTest {
  private static final Logger LOG = LoggerFactory.getLogger(EmulatorOutageTest.class);
  private static final Duration DOWN_WITHIN = Duration.ofSeconds(20);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void healthIsDownWhilePubsubDoesNotAnswerAndUpAfterwardsWithTheMessageOfTheOutageRecordedOnce()
      throws Exception {
    Assumptions.assumeTrue(PubsubEmulator.isInstalled(), "The Pub/Sub emulator is not installed at " + PubsubEmulator.SCRIPT);
    try (PubsubEmulator emulator = PubsubEmulator.start();
        TestDeployment deployment = TestDeployment.create("")) {
      String project = "files2iceberg-outage-" + UUID.randomUUID().toString().substring(0, 8);
      String topic = "projects/" + project + "/topics/landing";
      String subscription = "projects/" + project + "/subscriptions/landing-pull";
      emulator.createTopic(topic);
      emulator.createSubscription(subscription, topic, java.util.Optional.empty());
      Map<String, Object> properties = new HashMap<>(deployment.properties());
      properties.put("micronaut.server.port", -1);
      // As ListenerApplication sets it where the listener answers on loopback only.
      properties.put("endpoints.health.details-visible", "ANONYMOUS");
      properties.put(PullConfiguration.PREFIX + ".subscription", subscription);
      properties.put(PullConfiguration.PREFIX + ".emulator-host", emulator.host());
      properties.put(PullConfiguration.PREFIX + ".shutdown-timeout", "2s");
      properties.put(PullConfiguration.PREFIX + ".unreachable-timeout", "2s");
      try (ApplicationContext context = ApplicationContext.run(EmbeddedServer.class, properties).getApplicationContext()) {
        EmbeddedServer server = context.getBean(EmbeddedServer.class);
        Ledger ledger = context.getBean(Ledger.class);
        URI health = URI.create("http://127.0.0.1:" + server.getPort() + "/health");
        DataFile before = TestDeployment.dataFile("2024-07-01");
        emulator.publish(topic, before.attributes(), before.data());
        await("the first file is recorded", () -> ledger.file(before.fileId()).isPresent());
        // Idle for longer than the timeout: a reachable Pub/Sub with nothing to deliver is healthy.
        Thread.sleep(3_000);
        assertThat(get(health).statusCode()).as(get(health).body()).isEqualTo(200);

        emulator.freeze();
        HttpResponse<String> down;
        DataFile during = TestDeployment.dataFile("2024-07-02");
        CompletableFuture<String> published;
        try {
          Instant frozen = Instant.now();
          within(DOWN_WITHIN, "health is DOWN while the emulator is frozen", () -> get(health).statusCode() == 503);
          LOG.info("DOWN {} s after the freeze", Duration.between(frozen, Instant.now()).toSeconds());
          down = get(health);
          published =
              CompletableFuture.supplyAsync(() -> {
                try {
                  return emulator.publish(topic, during.attributes(), during.data());
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
          Thread.sleep(1_000);
          assertThat(ledger.file(during.fileId())).isEmpty();
        } finally {
          emulator.resume();
        }
        String messageId = published.get(60, TimeUnit.SECONDS);
        within(Duration.ofSeconds(30), "health is UP after the emulator resumed", () -> get(health).statusCode() == 200);
        await("the file published during the outage is recorded", () -> ledger.file(during.fileId()).isPresent());

        assertThat(down.body()).contains("\"pull\"").contains("\"DOWN\"").contains("\"reachable\":false")
            .contains("unreachable-timeout = 2 s");
        assertThat(ledger.file(during.fileId()).orElseThrow().eventId()).isEqualTo(messageId);
        assertThat(ledger.tableStatus(TestDeployment.TABLE).filesByState().get(FileState.RECORDED)).isEqualTo(2);
      }
    }
  }

  private static HttpResponse<String> get(URI uri) {
    try {
      return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void within(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("Not within " + timeout.toSeconds() + " s: " + what);
      }
      Thread.sleep(250);
    }
  }
}
