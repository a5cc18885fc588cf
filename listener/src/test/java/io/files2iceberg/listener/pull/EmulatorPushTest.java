package io.files2iceberg.listener.pull;

import static io.files2iceberg.listener.pull.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The emulator pushes to the running listener, as a push subscription does in production: the
 * envelope the emulator posts is the one the push endpoint reads. The emulator's push carries no
 * OIDC token, so this listener runs without {@code listener.oidc-audience}.
 */
@ExtendWith(PubsubEmulatorExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EmulatorPushTest {
  private PubsubEmulator emulator;
  private TestDeployment deployment;
  private EmbeddedServer server;
  private Ledger ledger;
  private String topic;

  /** Once per class, on the first test: the emulator extension has checked it is installed. */
  @BeforeEach
  void start(PubsubEmulator emulator) throws Exception {
    if (this.emulator != null) {
      return;
    }
    this.emulator = emulator;
    deployment = TestDeployment.create("");
    Map<String, Object> properties = new HashMap<>(deployment.properties());
    properties.put("micronaut.server.port", -1);
    server = ApplicationContext.run(EmbeddedServer.class, properties);
    ledger = server.getApplicationContext().getBean(Ledger.class);

    String project = "files2iceberg-push-" + UUID.randomUUID().toString().substring(0, 8);
    topic = "projects/" + project + "/topics/landing";
    emulator.createTopic(topic);
    emulator.createSubscription(
        "projects/" + project + "/subscriptions/landing-push",
        topic,
        Optional.of("http://127.0.0.1:" + server.getPort() + "/pubsub/push"));
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.getApplicationContext().close();
    }
    if (deployment != null) {
      deployment.close();
    }
  }

  @Test
  void emulatorPushesTheNotificationAndTheFileIsRecorded() throws Exception {
    DataFile file = TestDeployment.dataFile("2024-05-03");

    String messageId = emulator.publish(topic, file.attributes(), file.data());

    await("the pushed file is recorded", () -> ledger.file(file.fileId()).isPresent());
    assertThat(ledger.file(file.fileId()).orElseThrow().eventId()).isEqualTo(messageId);
    assertThat(ledger.file(file.fileId()).orElseThrow().uri()).isEqualTo(file.uri());
  }
}
