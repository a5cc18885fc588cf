package io.files2iceberg.core.ledger.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The file's transitions, table by table, without a store. */
class FileRulesTest {
  private static final Instant THEN = Instant.parse("2024-01-01T00:00:00Z");

  static FileRecord stored(FileState state, String batchId) {
    return new FileRecord("f-1", "lake.clicks", "2024-01-01", "landing", "raw/part-0.parquet", 1,
        "gs://landing/raw/part-0.parquet", 10, "e-1", THEN, Optional.empty(), state,
        batchId.equals("-") ? Optional.empty() : Optional.of(batchId),
        state == FileState.QUARANTINED ? Optional.of("corrupt footer") : Optional.empty(), THEN);
  }

  /** Settling a batch b-1: {@code -} is "left as it is". */
  @ParameterizedTest(name = "{0} of {1}: commit {2}, failure {3}")
  @CsvSource({
      "CLAIMED, b-1, INGESTED, RECORDED",
      "CLAIMED, b-2, -, -",
      "QUARANTINED, b-1, -, -",
      "SUPERSEDED, b-1, -, -",
      "IGNORED, b-1, -, -",
      "INGESTED, b-1, -, -",
      "RECORDED, -, -, -"})
  void aBatchSettlesOnlyTheFilesItStillHolds(FileState state, String batchId, String afterCommit, String afterFailure) {
    FileRecord file = stored(state, batchId);

    Optional<FileRecord> committed = FileRules.afterCommit(file, "b-1", 42L, Optional.empty(), THEN);
    Optional<FileRecord> failed = FileRules.afterFailure(file, "b-1");

    assertThat(committed.map(f -> f.state().name()).orElse("-")).isEqualTo(afterCommit);
    assertThat(failed.map(f -> f.state().name()).orElse("-")).isEqualTo(afterFailure);
    committed.ifPresent(f -> assertThat(f.batchId()).contains("b-1"));
    failed.ifPresent(f -> assertThat(f.batchId()).isEmpty());
  }

  /** A batch b-1 writing its transition after the commit that decided it: {@code -} is "not its to move". */
  @ParameterizedTest(name = "{0} of {1} settling to {2}: {3}")
  @CsvSource({
      "RECORDED, -, CLAIMED, CLAIMED", "CLAIMED, b-1, CLAIMED, -", "QUARANTINED, b-1, CLAIMED, -",
      "CLAIMED, b-1, INGESTED, INGESTED", "INGESTED, b-1, INGESTED, -", "RECORDED, -, INGESTED, -",
      "CLAIMED, b-1, RECORDED, RECORDED", "RECORDED, -, RECORDED, -", "IGNORED, b-1, RECORDED, -",
      "CLAIMED, b-2, RECORDED, -"})
  void aSettlingBatchMovesOnlyItsOwnFilesOnce(FileState state, String batchId, FileState target, String expected) {
    Optional<FileRecord> moved = FileRules.settled(stored(state, batchId), target, "b-1", Optional.of(42L), Map.of(), THEN);

    assertThat(moved.map(f -> f.state().name()).orElse("-")).isEqualTo(expected);
  }

  @Test
  void aCommitWritesTheSnapshotAndTheFilesCountsAndAFileWithoutCountsStaysUnknown() {
    FileRecord counted = FileRules.afterCommit(stored(FileState.CLAIMED, "b-1"), "b-1", 42L,
        Optional.of(new FileRows(10, 2, 1)), THEN).orElseThrow();
    FileRecord unknown = FileRules.settled(stored(FileState.CLAIMED, "b-1"), FileState.INGESTED, "b-1",
        Optional.of(42L), Map.of("another-file", new FileRows(1, 0, 0)), THEN).orElseThrow();

    assertThat(counted.snapshotId()).contains(42L);
    assertThat(counted.rows()).contains(new FileRows(10, 2, 1));
    assertThat(unknown.snapshotId()).contains(42L);
    assertThat(unknown.rows()).isEmpty();
  }

  @Test
  void aFileThatForgetsItsBatchForgetsThatLoad() {
    FileRecord loaded = FileRules.afterCommit(stored(FileState.CLAIMED, "b-1"), "b-1", 42L,
        Optional.of(new FileRows(10, 2, 1)), THEN).orElseThrow();

    FileRecord reopened = FileRules.reopened(loaded).orElseThrow();

    assertThat(reopened.snapshotId()).isEmpty();
    assertThat(reopened.rows()).isEmpty();
    assertThat(loaded.ingestedAt()).contains(THEN);
    assertThat(reopened.ingestedAt()).isEmpty();
  }

  /** A reload (a rollback, a replay) of a file by what landing cleanup did to its object: {@code -} is "stays". */
  @ParameterizedTest(name = "{0}, object {1}: {2}")
  @CsvSource({
      "INGESTED, landed, RECORDED",
      "INGESTED, archived, RECORDED",
      "INGESTED, deleted, SUPERSEDED",
      "DROPPED, landed, RECORDED",
      "DROPPED, archived, RECORDED",
      "DROPPED, deleted, SUPERSEDED",
      "RECORDED, landed, -",
      "SUPERSEDED, deleted, -",
      "QUARANTINED, landed, -"})
  void aReloadReadsAnArchivedObjectAndSupersedesADeletedOne(FileState state, String object, String expected) {
    Optional<CleanedObject> cleaned = switch (object) {
      case "archived" -> Optional.of(CleanedObject.archived("gs://archive/raw/part-0.parquet", 7L, THEN)
          .removed(THEN.plusSeconds(1)));
      case "deleted" -> Optional.of(CleanedObject.deleted(THEN).removed(THEN.plusSeconds(1)));
      default -> Optional.empty();
    };
    FileRecord loaded = FileRules.afterCommit(stored(FileState.CLAIMED, "b-1"), "b-1", 42L,
        Optional.of(new FileRows(10, 2, 1)), THEN).orElseThrow();
    FileRecord file = new FileRecord(loaded.fileId(), loaded.table(), loaded.partition(), loaded.bucket(),
        loaded.name(), loaded.generation(), loaded.uri(), loaded.size(), loaded.eventId(), loaded.eventTime(),
        loaded.overwroteGeneration(), state, loaded.batchId(), loaded.quarantineReason(), loaded.recordedAt(),
        loaded.snapshotId(), loaded.rows(), loaded.ingestedAt(), cleaned);

    Optional<FileRecord> reopened = FileRules.reopened(file);

    assertThat(reopened.map(f -> f.state().name()).orElse("-")).isEqualTo(expected);
    reopened.ifPresent(f -> {
      assertThat(f.cleaned()).isEqualTo(cleaned);
      assertThat(f.batchId()).isEmpty();
      assertThat(f.ingestedAt()).isEmpty();
      assertThat(f.snapshotId()).isEmpty();
    });
    if (expected.equals("SUPERSEDED")) {
      assertThat(reopened.orElseThrow().quarantineReason()).contains(
          "its object was deleted from the landing by cleanup at 2024-01-01T00:00:00Z; its rows were not reloaded");
    } else {
      reopened.ifPresent(f -> assertThat(f.quarantineReason()).isEmpty());
    }
  }

  /** Cleanup's decision on a file, by its state, load time and earlier decision: {@code -} is "nothing to write". */
  @ParameterizedTest(name = "{0}, loaded {1}, cleaned before {2}, {3}: {4}")
  @CsvSource({
      "INGESTED, true, none, deleted, cleaned",
      "INGESTED, true, none, archived, cleaned",
      "INGESTED, true, deleted, deleted, -",
      "INGESTED, true, archived, archived, -",
      "INGESTED, true, archived, deleted, 'was archived already (to gs://archive/part-0.parquet)'",
      "INGESTED, true, deleted, archived, 'was deleted already'",
      "INGESTED, false, none, deleted, 'has no load time'",
      "RECORDED, false, none, deleted, 'expected state INGESTED, actual RECORDED'",
      "DROPPED, true, none, deleted, 'expected state INGESTED, actual DROPPED'"})
  void cleanupDecidesOnceOnALoadedFileWithALoadTime(FileState state, boolean loadTime, String before, String now,
      String expected) {
    FileRecord file = stored(state, "b-1");
    file = new FileRecord(file.fileId(), file.table(), file.partition(), file.bucket(), file.name(), file.generation(),
        file.uri(), file.size(), file.eventId(), file.eventTime(), file.overwroteGeneration(), file.state(),
        file.batchId(), file.quarantineReason(), file.recordedAt(), file.snapshotId(), file.rows(),
        loadTime ? Optional.of(THEN) : Optional.empty(), cleanup(before));
    CleanedObject decision = cleanup(now).orElseThrow();
    FileRecord given = file;

    if (expected.equals("cleaned") || expected.equals("-")) {
      Optional<FileRecord> cleaned = FileRules.cleaned(given, decision, "Cannot clean");
      assertThat(cleaned.map(f -> "cleaned").orElse("-")).isEqualTo(expected);
      cleaned.ifPresent(f -> assertThat(f.cleaned()).contains(decision));
      cleaned.ifPresent(f -> assertThat(f.state()).isEqualTo(FileState.INGESTED));
    } else {
      assertThatThrownBy(() -> FileRules.cleaned(given, decision, "Cannot clean"))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessageStartingWith("Cannot clean: file f-1 (gs://landing/raw/part-0.parquet)")
          .hasMessageContaining(expected);
    }
  }

  private static Optional<CleanedObject> cleanup(String action) {
    return switch (action) {
      case "archived" -> Optional.of(CleanedObject.archived("gs://archive/part-0.parquet", 3L, THEN));
      case "deleted" -> Optional.of(CleanedObject.deleted(THEN));
      default -> Optional.empty();
    };
  }

  @ParameterizedTest(name = "revival of {0}: {1}")
  @CsvSource({"RECORDED, CLAIMED", "QUARANTINED, -", "SUPERSEDED, -", "IGNORED, -", "CLAIMED, !", "INGESTED, !"})
  void revivalClaimsTheRecordedFilesAgainAndLeavesTheLeftOutOnesAlone(FileState state, String expected) {
    FileRecord file = stored(state, state == FileState.RECORDED ? "-" : "b-2");

    if (expected.equals("!")) {
      assertThatThrownBy(() -> FileRules.revived(file, "b-1", "Cannot revive batch b-1"))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessage("Cannot revive batch b-1: its file f-1 (gs://landing/raw/part-0.parquet) was claimed or loaded "
              + "since: expected state RECORDED, actual " + state);
      return;
    }
    Optional<FileRecord> written = FileRules.revived(file, "b-1", "Cannot revive batch b-1");
    assertThat(written.map(f -> f.state().name()).orElse("-")).isEqualTo(expected);
    written.ifPresent(f -> assertThat(f.batchId()).contains("b-1"));
  }

  @Test
  void aRevivedBatchClaimsItsRecordedFilesAtTheirPositionsAndNamesAMissingOne() {
    BatchRecord batch = BatchRulesTest.stored(BatchState.FAILED, true);
    BatchRecord ofThree = new BatchRecord(batch.batchId(), batch.table(), batch.state(), batch.partitions(),
        List.of("f-1", "f-2", "f-3"), List.of("e-1", "e-2", "e-3"), batch.attempts(), batch.launches(),
        batch.outcomeUnknown(), batch.leaseUntil(), batch.snapshotId(), batch.metrics(), batch.error(),
        batch.createdAt(), batch.updatedAt());
    List<FileRecord> stored = List.of(withId(stored(FileState.RECORDED, "-"), "f-3"),
        withId(stored(FileState.QUARANTINED, "b-1"), "f-2"), withId(stored(FileState.RECORDED, "-"), "f-1"));

    List<FileRules.Placed> claimed = FileRules.revived(ofThree, stored, "Cannot revive batch b-1");

    assertThat(claimed).extracting(p -> p.file().fileId() + "@" + p.position()).containsExactly("f-1@0", "f-3@2");
    assertThat(claimed).allSatisfy(p -> assertThat(p.file().batchId()).contains("b-1"));
    assertThatThrownBy(() -> FileRules.revived(ofThree, stored.subList(0, 2), "Cannot revive batch b-1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot revive batch b-1: its file f-1 is missing from the ledger");
  }

  private static FileRecord withId(FileRecord f, String fileId) {
    return new FileRecord(fileId, f.table(), f.partition(), f.bucket(), f.name(), f.generation(), f.uri(), f.size(),
        f.eventId(), f.eventTime(), f.overwroteGeneration(), f.state(), f.batchId(), f.quarantineReason(),
        f.recordedAt());
  }

  @ParameterizedTest(name = "{0} to {1}: {2}")
  @CsvSource({
      "RECORDED, SUPERSEDED, SUPERSEDED", "CLAIMED, SUPERSEDED, SUPERSEDED", "INGESTED, SUPERSEDED, SUPERSEDED",
      "SUPERSEDED, SUPERSEDED, -", "QUARANTINED, SUPERSEDED, !",
      "RECORDED, IGNORED, IGNORED", "CLAIMED, IGNORED, IGNORED", "IGNORED, IGNORED, -", "INGESTED, IGNORED, !"})
  void leavingAFileOutIsIdempotentAndKeepsTheFirstReason(FileState state, FileState target, String expected) {
    FileRecord file = stored(state, "b-1");

    if (expected.equals("!")) {
      assertThatThrownBy(() -> FileRules.leftOut(file, target, "gone", "Cannot leave out file "))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessageStartingWith("Cannot leave out file f-1 (gs://landing/raw/part-0.parquet): expected state ")
          .hasMessageEndingWith(", actual " + state);
      return;
    }
    Optional<FileRecord> written = FileRules.leftOut(file, target, "gone", "Cannot leave out file ");
    assertThat(written.map(f -> f.state().name()).orElse("-")).isEqualTo(expected);
    written.ifPresent(f -> assertThat(f.quarantineReason()).contains("gone"));
  }

  @ParameterizedTest(name = "quarantine of {0}: {1}, release: {2}")
  @CsvSource({
      "RECORDED, QUARANTINED, !", "CLAIMED, QUARANTINED, !", "QUARANTINED, !, RECORDED",
      "INGESTED, !, !", "SUPERSEDED, !, !"})
  void quarantineTakesARecordedOrClaimedFileAndReleaseGivesItBack(FileState state, String quarantined, String released) {
    FileRecord file = stored(state, "b-1");

    if (quarantined.equals("!")) {
      assertThatThrownBy(() -> FileRules.quarantined(file, "corrupt"))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessageStartingWith("Cannot quarantine file f-1 (gs://landing/raw/part-0.parquet): expected state ");
    } else {
      FileRecord written = FileRules.quarantined(file, "corrupt");
      assertThat(written.state()).isEqualTo(FileState.QUARANTINED);
      assertThat(written.quarantineReason()).contains("corrupt");
      assertThat(written.batchId()).isEqualTo(file.batchId());
    }
    if (released.equals("!")) {
      assertThatThrownBy(() -> FileRules.released(file))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessage("Cannot release file f-1 (gs://landing/raw/part-0.parquet) from the quarantine: expected state "
              + "QUARANTINED, actual " + state);
    } else {
      FileRecord written = FileRules.released(file);
      assertThat(written.state()).isEqualTo(FileState.RECORDED);
      assertThat(written.quarantineReason()).isEmpty();
      assertThat(written.batchId()).isEmpty();
    }
  }
}
