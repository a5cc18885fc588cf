package io.files2iceberg.listener.pull;

import static io.files2iceberg.listener.pull.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.listener.handle.ListenerMeterNames;
import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What pull mode must do, whatever serves the subscription: a running listener (real HTTP server,
 * real SQLite ledger) pulls a published GCS notification and records its file, acking only after
 * the ledger write; while the ledger is unavailable it nacks, and the redelivered message is
 * recorded once the ledger is back. Subclasses start the Pub/Sub side and the listener.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PullModeContract {
  /** How long a ledger write waits for a held lock before the message is nacked. */
  static final String BUSY_TIMEOUT = "300ms";

  private TestDeployment deployment;
  private EmbeddedServer server;
  private Ledger ledger;
  private MeterRegistry meters;

  /** Publishes the file's OBJECT_FINALIZE notification; returns the message id. */
  abstract String publish(DataFile file) throws Exception;

  /** Checks, where the Pub/Sub side can tell, that it saw the message nacked and then acked. */
  void assertNackedThenAcked(String messageId) {}

  /** Starts the listener in pull mode on the subscription, at the emulator (or fake) host. */
  void startListener(String emulatorHost, String subscription) {
    deployment = TestDeployment.create("");
    Map<String, Object> properties = new HashMap<>(deployment.properties());
    properties.put("micronaut.server.port", -1);
    properties.put(PullConfiguration.PREFIX + ".subscription", subscription);
    properties.put(PullConfiguration.PREFIX + ".emulator-host", emulatorHost);
    properties.put(PullConfiguration.PREFIX + ".max-outstanding-messages", 10);
    properties.put(PullConfiguration.PREFIX + ".shutdown-timeout", "5s");
    properties.put(ShortBusyTimeoutLedger.PROPERTY, BUSY_TIMEOUT);
    server = ApplicationContext.run(EmbeddedServer.class, properties);
    ledger = server.getApplicationContext().getBean(Ledger.class);
    meters = server.getApplicationContext().getBean(MeterRegistry.class);
  }

  void stopListener() {
    if (server != null) {
      server.getApplicationContext().close();
    }
    if (deployment != null) {
      deployment.close();
    }
  }

  @Test
  void publishedNotificationIsRecordedThenAcked() throws Exception {
    DataFile file = TestDeployment.dataFile("2024-05-01");
    double acks = replies("ack");

    String messageId = publish(file);

    await("the file is recorded", () -> ledger.file(file.fileId()).isPresent());
    FileRecord recorded = ledger.file(file.fileId()).orElseThrow();
    assertThat(recorded.eventId()).isEqualTo(messageId);
    assertThat(recorded.uri()).isEqualTo(file.uri());
    assertThat(recorded.partition()).isEqualTo("2024-05-01");
    assertThat(recorded.size()).isEqualTo(file.size());
    await("the message is acked", () -> replies("ack") >= acks + 1);
  }

  @Test
  void messageNackedWhileTheLedgerIsLockedIsRedeliveredAndRecordedOnce() throws Exception {
    DataFile file = TestDeployment.dataFile("2024-05-02");
    long recordedBefore = recordedFiles();
    double nacks = replies("nack");
    double acks = replies("ack");

    String messageId;
    LedgerLock lock = LedgerLock.hold(deployment.ledgerFile());
    try {
      messageId = publish(file);
      // Two nacks: the message was delivered, nacked, redelivered and nacked again.
      await("the message is nacked twice while the ledger is locked", () -> replies("nack") >= nacks + 2);
      assertThat(ledger.file(file.fileId())).isEmpty();
    } finally {
      lock.close();
    }

    await("the redelivered message is recorded", () -> ledger.file(file.fileId()).isPresent());
    await("the redelivered message is acked", () -> replies("ack") >= acks + 1);
    assertThat(ledger.file(file.fileId()).orElseThrow().eventId()).isEqualTo(messageId);
    assertThat(recordedFiles()).isEqualTo(recordedBefore + 1);
    assertThat(ledger.quarantinedMessages()).isEmpty();
    assertNackedThenAcked(messageId);
    assertThat(ListenerMeterNames.registered(meters))
        .as("every meter of the listener's own is in the metrics reference (ListenerMeter)")
        .isSubsetOf(ListenerMeterNames.documentedMicrometerNames());
  }

  private long recordedFiles() {
    return ledger.tables().contains(TestDeployment.TABLE)
        ? ledger.tableStatus(TestDeployment.TABLE).filesByState().getOrDefault(FileState.RECORDED, 0L)
        : 0;
  }

  private double replies(String reply) {
    Counter counter = meters.find(PullSubscriber.REPLIES_METER).tag("reply", reply).counter();
    return Optional.ofNullable(counter).map(Counter::count).orElse(0.0);
  }
}
