package io.files2iceberg.listener.pull;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Pull mode against the in-process fake of the Subscriber service: runs everywhere. */
class FakePubsubPullModeTest extends PullModeContract {
  private FakePubsub pubsub;

  @BeforeAll
  void start() {
    pubsub = FakePubsub.start();
    startListener(pubsub.host(), "projects/files2iceberg-test/subscriptions/landing-pull");
  }

  @AfterAll
  void stop() {
    stopListener();
    pubsub.close();
  }

  @Override
  String publish(DataFile file) {
    return pubsub.publish(file.attributes(), file.data());
  }

  @Override
  void assertNackedThenAcked(String messageId) {
    assertThat(pubsub.nacked()).filteredOn(messageId::equals).hasSizeGreaterThanOrEqualTo(2);
    // The client sends acks in batches, shortly after the handler's reply.
    Eventually.await("the fake receives the ack", () -> pubsub.acked().contains(messageId));
    assertThat(pubsub.acked()).filteredOn(messageId::equals).hasSize(1);
  }
}
