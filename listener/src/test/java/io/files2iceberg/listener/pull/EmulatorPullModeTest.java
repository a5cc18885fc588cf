package io.files2iceberg.listener.pull;

import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pull mode against the Pub/Sub emulator (skipped, saying why, where it is not installed): a
 * real streaming pull with the emulator's own ack and redelivery.
 */
@ExtendWith(PubsubEmulatorExtension.class)
class EmulatorPullModeTest extends PullModeContract {
  private PubsubEmulator emulator;
  private String topic;

  /** Once per class, on the first test: the emulator extension has checked it is installed. */
  @BeforeEach
  void start(PubsubEmulator emulator) throws Exception {
    if (this.emulator != null) {
      return;
    }
    this.emulator = emulator;
    String project = "files2iceberg-pull-" + UUID.randomUUID().toString().substring(0, 8);
    topic = "projects/" + project + "/topics/landing";
    String subscription = "projects/" + project + "/subscriptions/landing-pull";
    emulator.createTopic(topic);
    emulator.createSubscription(subscription, topic, Optional.empty());
    startListener(emulator.host(), subscription);
  }

  @AfterAll
  void stop() {
    stopListener();
  }

  @Override
  String publish(DataFile file) throws Exception {
    return emulator.publish(topic, file.attributes(), file.data());
  }
}
