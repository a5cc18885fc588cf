package io.files2iceberg.core.ledger.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.RecordFile;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Recording a list of files, without a store: each command sees what the ones before it did. */
class RecordingWalkTest {
  private static final Instant THEN = Instant.parse("2024-01-01T00:00:00Z");
  private static final Instant NOW = Instant.parse("2024-01-01T01:00:00Z");

  private static RecordFile file(String partition, String name) {
    return new RecordFile("lake.clicks", partition, "landing", "raw/dt=" + partition + "/" + name, 1,
        "gs://landing/raw/dt=" + partition + "/" + name, 10, "e-" + name, THEN, Optional.empty(), false);
  }

  private static PartitionRecord partition(String token, PartitionState state) {
    return new PartitionRecord("lake.clicks", token, Optional.empty(), state, true, Optional.empty(), 0,
        Optional.empty(), Optional.of(THEN), THEN);
  }

  private static String id(String token) {
    return LedgerSchema.partitionId("lake.clicks", token);
  }

  @Test
  void newFilesAreRecordedAndAPartitionIsWrittenOnceAsItEndsUp() {
    List<RecordFile> commands = List.of(file("2024-01-01", "a"), file("2024-01-01", "b"), file("2024-01-02", "c"));

    RecordingWalk.Plan plan = RecordingWalk.plan(commands, Map.of(),
        Map.of(id("2024-01-01"), partition("2024-01-01", PartitionState.INGESTED)), NOW);

    assertThat(plan.created()).extracting(FileRecord::state).containsOnly(FileState.RECORDED);
    assertThat(plan.created()).extracting(FileRecord::fileId)
        .containsExactlyElementsOf(commands.stream().map(RecordFile::fileId).toList());
    // The INGESTED partition re-opens for its first late file; the second finds it READY.
    assertThat(plan.partitions()).extracting(PartitionRecord::partition, PartitionRecord::state)
        .containsExactly(tuple("2024-01-01", PartitionState.READY),
            tuple("2024-01-02", PartitionState.OPEN));
    assertThat(plan.recorded()).extracting(FileRecorded::isNew).containsOnly(true);
    assertThat(plan.recorded()).extracting(r -> r.partition().state())
        .containsExactly(PartitionState.READY, PartitionState.READY, PartitionState.OPEN);
  }

  @Test
  void aStoredFileAndAFileListedTwiceChangeNothing() {
    RecordFile stored = file("2024-01-01", "a");
    RecordFile twice = file("2024-01-01", "b");
    FileRecord storedRecord = FileRules.recorded(stored, THEN);
    PartitionRecord open = partition("2024-01-01", PartitionState.OPEN);

    RecordingWalk.Plan plan = RecordingWalk.plan(List.of(stored, twice, twice),
        Map.of(stored.fileId(), storedRecord), Map.of(id("2024-01-01"), open), NOW);

    assertThat(plan.created()).extracting(FileRecord::fileId).containsExactly(twice.fileId());
    assertThat(plan.partitions()).isEmpty();
    assertThat(plan.recorded()).extracting(FileRecorded::isNew).containsExactly(false, true, false);
    assertThat(plan.recorded().get(0).file()).isEqualTo(storedRecord);
    assertThat(plan.recorded().get(2).file()).isEqualTo(plan.recorded().get(1).file());
    assertThat(plan.recorded()).extracting(FileRecorded::partition).containsOnly(open);
  }

  @Test
  void aStoredFileWhosePartitionIsMissingFailsNamingThePartition() {
    RecordFile stored = file("2024-01-01", "a");

    assertThatThrownBy(() -> RecordingWalk.plan(List.of(stored), Map.of(stored.fileId(), FileRules.recorded(stored, THEN)),
        Map.of(), NOW))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Partition lake.clicks/2024-01-01 is missing from the ledger");
  }
}
