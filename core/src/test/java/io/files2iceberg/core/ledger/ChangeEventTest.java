package io.files2iceberg.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ChangeEventTest {
  private static final Path SCHEMA = Path.of("../docs/reference/json/change-events.schema.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant AT = Instant.parse("2024-05-01T10:00:00Z");

  @Test
  void aCommitOfMoreThanAHundredPartitionsListsTheFirstHundredSortedAndSaysItIsTruncated() throws Exception {
    List<String> partitions = IntStream.range(0, 150).mapToObj(i -> String.format("p-%03d", 149 - i)).toList();
    BatchRecord batch = new BatchRecord("20240501T100000-0a1b2c3d", "lake.clicks", BatchState.COMMITTED, partitions,
        List.of("f1"), List.of("e1"), 1, 1, false, Optional.empty(), Optional.of(-5L),
        Optional.of(new BatchMetrics(1, 10, 3, 0, 2, 1, 0, 0, 1, 1, 1, 1, 4)), Optional.empty(), AT, AT);

    JsonNode event = JSON.readTree(ChangeEvent.committed(batch).payload());

    assertThat(errors(event)).isEmpty();
    assertThat(event.get("partitions")).hasSize(100);
    assertThat(event.get("partitions").get(0).asText()).isEqualTo("p-000");
    assertThat(event.get("partitionCount").asInt()).isEqualTo(150);
    assertThat(event.get("partitionsTruncated").asBoolean()).isTrue();
    assertThat(event.get("snapshotId").asText()).isEqualTo("-5");
    assertThat(event.get("deleted").asLong()).isEqualTo(4);
  }

  @Test
  void aCommitWithoutMetricsHasUnknownRowCountsAndStillValidates() throws Exception {
    BatchRecord batch = new BatchRecord("b-1", "lake.clicks", BatchState.COMMITTED, List.of("2024-01-01"), List.of(),
        List.of(), 1, 1, false, Optional.empty(), Optional.of(7L), Optional.empty(), Optional.empty(), AT, AT);

    JsonNode event = JSON.readTree(ChangeEvent.committed(batch).payload());

    assertThat(errors(event)).isEmpty();
    assertThat(event.get("inserted").isNull()).isTrue();
  }

  @Test
  void rollbackAndDropEventsValidateAgainstTheSchema() throws Exception {
    TableChange drop = new TableChange("drop-1", "lake.clicks", TableChange.ChangeKind.DROP_PARTITION,
        TableChange.ChangeState.APPLIED, Optional.of(3L), Optional.empty(), List.of(), List.of(), List.of("2024-01-01"),
        false, "ops", Optional.empty(), Optional.of("1 file(s) dropped"), AT, AT);
    TableChange rollback = new TableChange("rollback-1", "lake.clicks", TableChange.ChangeKind.ROLLBACK,
        TableChange.ChangeState.APPLIED, Optional.of(3L), Optional.of(1L), List.of("b-2", "b-pruned"),
        List.of("drop-1"), List.of("2024-01-02"), false, "ops", Optional.empty(), Optional.empty(), AT, AT);
    BatchRecord undone = new BatchRecord("b-2", "lake.clicks", BatchState.ROLLED_BACK, List.of("2024-01-02"),
        List.of(), List.of(), 1, 1, false, Optional.empty(), Optional.of(2L), Optional.empty(), Optional.empty(), AT, AT);

    JsonNode dropEvent = JSON.readTree(ChangeEvent.applied(drop, List.of(), List.of()).payload());
    JsonNode rollbackEvent = JSON.readTree(ChangeEvent.applied(rollback, List.of(undone), List.of(drop)).payload());

    assertThat(errors(dropEvent)).isEmpty();
    assertThat(errors(rollbackEvent)).isEmpty();
    assertThat(rollbackEvent.get("eventId").asText()).isEqualTo("rollback-1");
    assertThat(rollbackEvent.get("undone")).hasSize(3);
    assertThat(rollbackEvent.get("undone").get(1).get("snapshotId").isNull()).as("a pruned batch").isTrue();
  }

  static List<String> errors(JsonNode event) throws Exception {
    JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
        .getSchema(Files.readString(SCHEMA));
    return schema.validate(event).stream().map(Object::toString).toList();
  }
}
