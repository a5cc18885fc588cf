package io.files2iceberg.batcher.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.pubsub.v1.PubsubMessage;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangePublisherTest {
  private static final String TABLE = "lake.clicks";
  private static final Path SCHEMA = Path.of("..", "docs", "reference", "json", "change-events.schema.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final BatchMetrics METRICS = new BatchMetrics(1, 100, 5, 0, 4, 1, 0, 0, 10, 10, 10, 10, 2);

  @TempDir Path dir;
  private SqliteLedger ledger;

  @BeforeEach
  void openLedger() {
    ledger = SqliteLedger.open(dir.resolve("ledger.db"), Clock.systemUTC());
  }

  @AfterEach
  void closeLedger() {
    ledger.close();
  }

  @Test
  void eventsOfCommitsReachTheHomesFileOnceEachAndValidateAgainstTheSchema() throws Exception {
    String first = committed("2024-01-01", 11L);
    String second = committed("2024-01-02", 12L);
    Path file = ChangeEventFile.in(dir);

    try (ChangePublisher publisher = new ChangePublisher(ledger, () -> new ChangeEventFile(file))) {
      assertThat(publisher.publishPending()).isEqualTo(2);
      assertThat(publisher.publishPending()).isZero();
    }

    List<JsonNode> lines = lines(file);
    assertThat(lines).extracting(line -> line.get("eventId").asText()).containsExactly(first, second);
    assertThat(lines.get(0).get("snapshotId").asText()).isEqualTo("11");
    assertThat(lines.get(0).get("inserted").asLong()).isEqualTo(4);
    assertThat(lines).allSatisfy(line -> assertThat(errors(line)).isEmpty());
    assertThat(ledger.pendingEvents(10)).isEmpty();
  }

  @Test
  void aSinkThatFailsLeavesTheEventsPendingAndTheNextRunPublishesThemOnce() throws Exception {
    String batch = committed("2024-01-01", 11L);
    AtomicInteger attempts = new AtomicInteger();
    ChangeSink failing = new ChangeSink() {
      @Override
      public List<String> send(List<ChangeEvent> events) throws IOException {
        attempts.incrementAndGet();
        throw new IOException("No space left on device");
      }

      @Override
      public String describe() {
        return "a full disk";
      }

      @Override
      public void close() {}
    };

    try (ChangePublisher broken = new ChangePublisher(ledger, () -> failing)) {
      assertThat(broken.publishPending()).isZero();
    }
    assertThat(attempts).hasValue(1);
    assertThat(ledger.pendingEvents(10)).extracting(ChangeEvent::eventId).containsExactly(batch);

    Path file = ChangeEventFile.in(dir);
    try (ChangePublisher next = new ChangePublisher(ledger, () -> new ChangeEventFile(file))) {
      assertThat(next.publishPending()).isEqualTo(1);
      assertThat(next.publishPending()).isZero();
    }
    assertThat(lines(file)).extracting(line -> line.get("eventId").asText()).containsExactly(batch);
  }

  @Test
  void eventsReachThePubSubTopicWithTheirIdTableAndChangeAsAttributes() throws Exception {
    String first = committed("2024-01-01", 11L);
    String second = committed("2024-01-02", 12L);
    List<ChangeEvent> pending = ledger.pendingEvents(10);

    try (TestTopic topic = TestTopic.start();
        ChangePublisher publisher = new ChangePublisher(ledger, topic::sink)) {
      assertThat(publisher.publishPending()).isEqualTo(2);

      List<PubsubMessage> received = topic.received(2);
      assertThat(received).hasSize(2);
      assertThat(received).extracting(m -> m.getAttributesMap()).containsExactlyInAnyOrder(
          Map.of("eventId", first, "table", TABLE, "change", "commit"),
          Map.of("eventId", second, "table", TABLE, "change", "commit"));
      assertThat(received).extracting(m -> m.getData().toStringUtf8())
          .containsExactlyInAnyOrderElementsOf(pending.stream().map(ChangeEvent::payload).toList());
      assertThat(ledger.pendingEvents(10)).isEmpty();
    }
  }

  @Test
  void aTopicThatRefusesThePublishLeavesTheEventsPendingAndTheNextRunPublishesThemOnce() throws Exception {
    String batch = committed("2024-01-01", 11L);

    try (TestTopic topic = TestTopic.start()) {
      try (ChangePublisher refused = new ChangePublisher(ledger,
          () -> topic.sink("projects/files2iceberg-test/topics/no-such-topic"))) {
        assertThat(refused.publishPending()).isZero();
      }
      assertThat(ledger.pendingEvents(10)).extracting(ChangeEvent::eventId).containsExactly(batch);

      try (ChangePublisher next = new ChangePublisher(ledger, topic::sink)) {
        assertThat(next.publishPending()).isEqualTo(1);
        assertThat(next.publishPending()).isZero();
      }
      assertThat(topic.received(1)).extracting(m -> m.getAttributesMap().get("eventId")).containsExactly(batch);
      assertThat(ledger.pendingEvents(10)).isEmpty();
    }
  }

  /** A batch of one file of the partition, committed; its id. */
  private String committed(String partition, long snapshot) {
    String name = "raw/clicks/dt=" + partition + "/part-0.csv";
    ledger.recordFile(new RecordFile(TABLE, partition, "landing", name, 1, "gs://landing/" + name, 100,
        "evt-" + partition, Instant.now(), Optional.empty(), false));
    ledger.markReady(new MarkReady(TABLE, partition, "raw/clicks/dt=" + partition + "/", "marker-" + partition,
        Instant.now()));
    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 10, Duration.ofMinutes(5), true))
        .orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), snapshot, METRICS));
    return batch.batchId();
  }

  private static List<JsonNode> lines(Path file) throws IOException {
    return Files.readAllLines(file).stream().map(line -> {
      try {
        return JSON.readTree(line);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }).toList();
  }

  private static List<String> errors(JsonNode event) {
    try {
      JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
          .getSchema(Files.readString(SCHEMA));
      return schema.validate(event).stream().map(Object::toString).toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
