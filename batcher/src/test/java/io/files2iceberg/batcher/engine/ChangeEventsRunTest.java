package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import io.files2iceberg.batcher.events.ChangePublisher;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change events through the batcher and a real job: a commit's event is in the home's events file
 * once the run returns, valid against docs/reference/json/change-events.schema.json, and the
 * ledger's outbox is empty.
 */
class ChangeEventsRunTest {
  private static final String TABLE = "local.test.clicks";
  private static final Path SCHEMA = Path.of("..", "docs", "reference", "json", "change-events.schema.json");

  @TempDir Path dir;

  @Test
  void aCommittedBatchsEventIsAppendedToTheHomesEventsFile() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("clicks", "");
      landing.land("clicks", "p1", 2, 1);
      LocalSparkLauncher launcher = landing.launcher();
      try (ChangePublisher changes = ChangePublisher.of(landing.registry().deployment(), landing.home, landing.ledger)) {
        BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
            .changes(changes)
            .build();

        RunSummary summary = runner.runOnce();

        assertThat(summary.failed()).as(landing::jobLogs).isEmpty();
        BatchCommitted committed = summary.committed().get(0);
        Path file = landing.home.root().resolve("events").resolve("changes.jsonl");
        List<JsonNode> events = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
          events.add(new ObjectMapper().readTree(line));
        }
        assertThat(events).singleElement().satisfies(event -> {
          assertThat(event.get("eventId").asText()).isEqualTo(committed.batchId());
          assertThat(event.get("table").asText()).isEqualTo(TABLE);
          assertThat(event.get("change").asText()).isEqualTo("commit");
          assertThat(event.get("snapshotId").asLong()).isEqualTo(committed.report().snapshotId());
          assertThat(event.get("inserted").asLong()).isEqualTo(committed.report().metrics().rowsInserted());
          assertThat(event.get("partitions").get(0).asText()).isEqualTo("p1");
          assertThat(JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
              .getSchema(Files.readString(SCHEMA)).validate(event)).isEmpty();
        });
        assertThat(landing.ledger.pendingEvents(10)).isEmpty();
      }
    }
  }
}
