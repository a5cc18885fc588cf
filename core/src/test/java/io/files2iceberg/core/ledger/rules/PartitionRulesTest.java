package io.files2iceberg.core.ledger.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.RecordFile;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The partition's transitions, table by table, without a store. */
class PartitionRulesTest {
  private static final Instant THEN = Instant.parse("2024-01-01T00:00:00Z");
  private static final Instant NOW = Instant.parse("2024-01-01T01:00:00Z");
  private static final String PREFIX = "gs://landing/raw/clicks/dt=2024-01-01/";

  static PartitionRecord stored(PartitionState state) {
    return new PartitionRecord("lake.clicks", "2024-01-01", Optional.empty(), state, false, Optional.of("b-1"), 1,
        Optional.of("executor lost"), Optional.of(THEN), THEN);
  }

  private static RecordFile file(boolean readyOnArrival) {
    return new RecordFile("lake.clicks", "2024-01-01", "landing", "raw/part-0.parquet", 1,
        "gs://landing/raw/part-0.parquet", 10, "e-1", THEN, Optional.empty(), readyOnArrival);
  }

  /** {@code -} stands for "no partition yet" (stored) or "unchanged" (expected). */
  @ParameterizedTest(name = "{0}, readyOnArrival {1}: {2}")
  @CsvSource({
      "-, false, OPEN", "-, true, READY",
      "OPEN, false, -", "OPEN, true, READY",
      "READY, false, -", "READY, true, -",
      "CLAIMED, false, -", "CLAIMED, true, -",
      "INGESTED, false, READY", "INGESTED, true, READY",
      "FAILED, true, -", "SUPERSEDED, true, -"})
  void aRecordedFileMovesItsPartition(String state, boolean readyOnArrival, String expected) {
    Optional<PartitionRecord> partition = state.equals("-") ? Optional.empty() : Optional.of(stored(PartitionState.valueOf(state)));

    Optional<PartitionRecord> written = PartitionRules.onFileRecorded(partition, file(readyOnArrival), NOW);

    if (expected.equals("-")) {
      assertThat(written).isEmpty();
    } else {
      assertThat(written.orElseThrow().state()).isEqualTo(PartitionState.valueOf(expected));
      assertThat(written.get().readyAt()).isEqualTo(expected.equals("READY") ? Optional.of(NOW) : Optional.empty());
      assertThat(written.get().updatedAt()).isEqualTo(NOW);
    }
  }

  @ParameterizedTest(name = "{0}, marker seen {1}, same prefix {2}, pending {3}: {4}")
  @CsvSource({
      "-, false, false, false, READY",
      "OPEN, false, false, false, READY",
      "READY, false, false, false, READY", "READY, true, true, false, -", "READY, true, false, false, READY",
      "CLAIMED, true, true, true, -", "CLAIMED, false, true, true, CLAIMED",
      "INGESTED, true, true, false, -", "INGESTED, true, true, true, READY",
      "FAILED, false, false, true, -", "SUPERSEDED, false, false, true, -"})
  void aMarkerMovesItsPartition(String state, boolean markerSeen, boolean samePrefix, boolean pending, String expected) {
    Optional<PartitionRecord> partition = state.equals("-") ? Optional.empty() : Optional.of(stored(PartitionState.valueOf(state)))
        .map(p -> new PartitionRecord(p.table(), p.partition(), Optional.of(samePrefix ? PREFIX : "gs://old/"), p.state(),
            markerSeen, p.batchId(), p.attempts(), p.lastError(), p.readyAt(), p.updatedAt()));

    Optional<PartitionRecord> written = PartitionRules.onMarker(partition,
        new MarkReady("lake.clicks", "2024-01-01", PREFIX, "e-2", NOW), pending, NOW);

    if (expected.equals("-")) {
      assertThat(written).isEmpty();
    } else {
      assertThat(written.orElseThrow().state()).isEqualTo(PartitionState.valueOf(expected));
      assertThat(written.get().markerSeen()).isTrue();
      assertThat(written.get().prefix()).contains(PREFIX);
    }
  }

  @ParameterizedTest(name = "{0} by this batch {1}, pending {2}: {3}")
  @CsvSource({
      "CLAIMED, true, false, INGESTED", "CLAIMED, true, true, READY",
      "CLAIMED, false, false, -", "READY, true, false, -", "FAILED, true, true, -"})
  void aCommitReleasesOnlyThePartitionsTheBatchStillHolds(String state, boolean byThisBatch, boolean pending,
      String expected) {
    PartitionRecord partition = stored(PartitionState.valueOf(state));

    Optional<PartitionRecord> written = PartitionRules.afterCommit(partition, byThisBatch ? "b-1" : "b-2", pending, NOW);

    if (expected.equals("-")) {
      assertThat(written).isEmpty();
    } else {
      assertThat(written.orElseThrow().state()).isEqualTo(PartitionState.valueOf(expected));
      assertThat(written.get().attempts()).isZero();
      assertThat(written.get().lastError()).isEmpty();
      assertThat(written.get().readyAt()).contains(pending ? NOW : THEN);
    }
  }

  @ParameterizedTest(name = "attempts {0} of {1}: {2} with {3}")
  @CsvSource({"0, 3, READY, 1", "1, 3, READY, 2", "2, 3, FAILED, 3", "0, 1, FAILED, 1", "5, 3, FAILED, 6"})
  void aFailureCountsAnAttemptAndFailsThePartitionOnceTheyAreSpent(int attempts, int maxAttempts, PartitionState next,
      int counted) {
    PartitionRecord p = stored(PartitionState.CLAIMED);
    PartitionRecord partition = new PartitionRecord(p.table(), p.partition(), p.prefix(), p.state(), p.markerSeen(),
        p.batchId(), attempts, Optional.empty(), p.readyAt(), p.updatedAt());

    PartitionRecord written = PartitionRules.afterFailure(partition, "b-1", "boom", maxAttempts, NOW).orElseThrow();

    assertThat(written.state()).isEqualTo(next);
    assertThat(written.attempts()).isEqualTo(counted);
    assertThat(written.lastError()).contains("boom");
    assertThat(written.readyAt()).contains(next == PartitionState.READY ? NOW : THEN);
    assertThat(PartitionRules.afterFailure(partition, "b-2", "boom", maxAttempts, NOW)).isEmpty();
  }

  @ParameterizedTest(name = "retry of {0}: {1}")
  @CsvSource({"FAILED, READY", "READY, READY", "OPEN, -", "CLAIMED, -", "INGESTED, -", "SUPERSEDED, -"})
  void retryResetsTheAttemptsOfAFailedOrReadyPartitionOnly(PartitionState state, String expected) {
    PartitionRecord partition = stored(state);

    if (expected.equals("-")) {
      assertThatThrownBy(() -> PartitionRules.retried(partition, "Cannot retry partition lake.clicks/2024-01-01", NOW))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessage("Cannot retry partition lake.clicks/2024-01-01: expected state READY or FAILED, actual " + state);
      return;
    }
    PartitionRecord written = PartitionRules.retried(partition, "Cannot retry", NOW);
    assertThat(written.state()).isEqualTo(PartitionState.READY);
    assertThat(written.attempts()).isZero();
    assertThat(written.lastError()).contains("executor lost");
    assertThat(written.readyAt()).contains(state == PartitionState.FAILED ? NOW : THEN);
  }

  @ParameterizedTest(name = "revival of {0}: {1}")
  @CsvSource({"FAILED, CLAIMED", "READY, CLAIMED", "CLAIMED, -", "INGESTED, -", "OPEN, -"})
  void revivalClaimsAFailedOrReadyPartitionForTheBatchAgain(PartitionState state, String expected) {
    PartitionRecord partition = stored(state);

    if (expected.equals("-")) {
      assertThatThrownBy(() -> PartitionRules.revived(partition, "b-9", "Cannot revive batch b-9", NOW))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessage("Cannot revive batch b-9: its partition lake.clicks/2024-01-01 was claimed or loaded since: "
              + "expected state READY or FAILED, actual " + state);
      return;
    }
    PartitionRecord written = PartitionRules.revived(partition, "b-9", "Cannot revive batch b-9", NOW);
    assertThat(written.state()).isEqualTo(PartitionState.CLAIMED);
    assertThat(written.batchId()).contains("b-9");
    assertThat(written.attempts()).isZero();
  }

  @ParameterizedTest(name = "reopen of {0}: {1}")
  @CsvSource({"INGESTED, READY", "DROPPED, READY", "HELD, READY", "READY, -", "FAILED, !", "CLAIMED, !", "OPEN, !",
      "SUPERSEDED, !"})
  void reopenMakesAnIngestedPartitionReadyAndLeavesAReadyOneAlone(PartitionState state, String expected) {
    PartitionRecord partition = stored(state);

    if (expected.equals("!")) {
      assertThatThrownBy(() -> PartitionRules.reopened(partition, NOW))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessage("Cannot reopen partition lake.clicks/2024-01-01: expected state READY or INGESTED or HELD or DROPPED, actual "
              + state);
    } else if (expected.equals("-")) {
      assertThat(PartitionRules.reopened(partition, NOW)).isEmpty();
    } else {
      assertThat(PartitionRules.reopened(partition, NOW).orElseThrow().state()).isEqualTo(PartitionState.READY);
    }
  }

  @ParameterizedTest(name = "rollback of {0}, hold {1}: {2}")
  @CsvSource({"INGESTED, false, READY", "INGESTED, true, HELD", "READY, false, -", "READY, true, HELD",
      "FAILED, false, READY", "FAILED, true, HELD", "SUPERSEDED, false, READY", "DROPPED, false, READY",
      "DROPPED, true, HELD", "HELD, false, -", "HELD, true, -", "OPEN, false, -", "CLAIMED, true, -"})
  void rollbackMakesAPartitionReadyOrHeldWithItsAttemptsReset(PartitionState state, boolean hold, String expected) {
    PartitionRecord partition = stored(state);

    Optional<PartitionRecord> written = PartitionRules.rolledBack(partition, hold, NOW);

    if (expected.equals("-")) {
      assertThat(written).isEmpty();
    } else {
      assertThat(written.orElseThrow().state()).isEqualTo(PartitionState.valueOf(expected));
      assertThat(written.orElseThrow().attempts()).isZero();
    }
  }

  @ParameterizedTest(name = "drop of {0}: {1}")
  @CsvSource({"INGESTED, DROPPED", "READY, DROPPED", "FAILED, DROPPED", "HELD, DROPPED", "DROPPED, -", "OPEN, !",
      "CLAIMED, !", "SUPERSEDED, !"})
  void dropTakesALoadedPartitionAndRefusesOneInFlightOrNeverComplete(PartitionState state, String expected) {
    PartitionRecord partition = stored(state);

    if (expected.equals("!")) {
      assertThatThrownBy(() -> PartitionRules.dropped(partition, NOW))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessage("Cannot drop partition lake.clicks/2024-01-01: expected state READY or INGESTED or FAILED or HELD,"
              + " actual " + state);
    } else if (expected.equals("-")) {
      assertThat(PartitionRules.dropped(partition, NOW)).isEmpty();
    } else {
      assertThat(PartitionRules.dropped(partition, NOW).orElseThrow().state()).isEqualTo(PartitionState.DROPPED);
    }
  }

  @ParameterizedTest(name = "a late file in {0}: {1}")
  @CsvSource({"INGESTED, READY", "DROPPED, READY", "HELD, -", "FAILED, -"})
  void aLateFileReopensADroppedPartitionAsAnIngestedOneAndWaitsInAHeldOne(PartitionState state, String expected) {
    RecordFile late = new RecordFile("lake.clicks", "2024-01-01", "landing", "raw/late.parquet", 1,
        "gs://landing/raw/late.parquet", 10, "evt-late", NOW, Optional.empty(), false);

    Optional<PartitionRecord> written = PartitionRules.onFileRecorded(Optional.of(stored(state)), late, NOW);

    assertThat(written.map(PartitionRecord::state).map(Enum::name).orElse("-")).isEqualTo(expected);
  }

  @ParameterizedTest(name = "release of a file into {0}: {1}")
  @CsvSource({"INGESTED, READY", "READY, -", "CLAIMED, -", "FAILED, -", "SUPERSEDED, -", "OPEN, -"})
  void aFileReleasedFromTheQuarantineReopensOnlyAnIngestedPartition(PartitionState state, String expected) {
    Optional<PartitionRecord> written = PartitionRules.onFileReleased(stored(state), NOW);

    assertThat(written.map(PartitionRecord::state).map(Enum::name).orElse("-")).isEqualTo(expected);
  }

  @Test
  void onlyAReadyPartitionIsSettledSupersededOrClaimed() {
    assertThat(PartitionRules.settled(stored(PartitionState.READY), NOW).state()).isEqualTo(PartitionState.INGESTED);
    assertThat(PartitionRules.superseded(stored(PartitionState.READY), NOW).state()).isEqualTo(PartitionState.SUPERSEDED);
    PartitionRecord claimed = PartitionRules.claimed(stored(PartitionState.READY), "b-7", NOW);
    assertThat(claimed.state()).isEqualTo(PartitionState.CLAIMED);
    assertThat(claimed.batchId()).contains("b-7");
    assertThatThrownBy(() -> PartitionRules.superseded(stored(PartitionState.CLAIMED), NOW))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot supersede partition lake.clicks/2024-01-01: expected state READY, actual CLAIMED");
  }
}
