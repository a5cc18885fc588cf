package io.files2iceberg.core.ledger.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The batch's transitions, table by table, without a store. */
class BatchRulesTest {
  private static final Instant THEN = Instant.parse("2024-01-01T00:00:00Z");
  private static final Instant NOW = Instant.parse("2024-01-01T01:00:00Z");
  private static final Duration LEASE = Duration.ofMinutes(30);
  private static final BatchMetrics METRICS = new BatchMetrics(1, 2, 3, 0, 3, 0, 0, 0, 4, 5, 6, 7);

  static BatchRecord stored(BatchState state, boolean outcomeUnknown) {
    return new BatchRecord("b-1", "lake.clicks", state, List.of("2024-01-01"), List.of("f-1"), List.of("e-1"), 2, 3,
        outcomeUnknown, state.isInFlight() ? Optional.of(THEN.plus(LEASE)) : Optional.empty(),
        state == BatchState.COMMITTED ? Optional.of(42L) : Optional.empty(), Optional.empty(),
        state == BatchState.FAILED ? Optional.of("lost") : Optional.empty(), THEN, THEN);
  }

  @Test
  void aClaimedBatchIsPlannedWithALeaseAndItsPartitionsSorted() {
    BatchRecord batch = BatchRules.planned("b-1", "lake.clicks", List.of("2024-01-02", "2024-01-01"), List.of("f-1"),
        List.of("e-1"), LEASE, NOW);

    assertThat(batch.state()).isEqualTo(BatchState.PLANNED);
    assertThat(batch.partitions()).containsExactly("2024-01-01", "2024-01-02");
    assertThat(batch.leaseUntil()).contains(NOW.plus(LEASE));
    assertThat(batch.attempts()).isZero();
    assertThat(batch.launches()).isZero();
    assertThat(batch.outcomeUnknown()).isFalse();
  }

  @ParameterizedTest(name = "{0}: running {1}, commit {2}, failure {3}, revival {4}")
  @CsvSource({
      "PLANNED, RUNNING, COMMITTED, FAILED, !",
      "RUNNING, RUNNING, COMMITTED, FAILED, !",
      "COMMITTED, !, -, !, !",
      "FAILED, !, !, !, PLANNED"})
  void eachTransitionStartsOnlyFromItsStates(BatchState state, String running, String committed, String failed,
      String revived) {
    BatchRecord batch = stored(state, true);

    assertThat(outcome(() -> BatchRules.running(batch, LEASE, NOW).state().name())).isEqualTo(running);
    assertThat(outcome(() -> BatchRules.committed(batch, new CommitBatch("b-1", 42L, METRICS), NOW)
        .map(b -> b.state().name()).orElse("-"))).isEqualTo(committed);
    assertThat(outcome(() -> BatchRules.failed(batch, new FailBatch("b-1", "boom", 3, false), NOW).state().name()))
        .isEqualTo(failed);
    assertThat(outcome(() -> BatchRules.revived(batch, "Cannot revive batch b-1", NOW).state().name()))
        .isEqualTo(revived);
  }

  private static String outcome(java.util.function.Supplier<String> transition) {
    try {
      return transition.get();
    } catch (IllegalTransitionException e) {
      return "!";
    }
  }

  @ParameterizedTest(name = "unknown outcome {0}, failed with {1}: failed {2}, revived {3}, committed false")
  @CsvSource({"false, false, false, false", "false, true, true, true", "true, false, false, false", "true, true, true, true"})
  void theUnknownOutcomeIsSetByTheFailureKeptByRevivalAndClearedByTheCommit(boolean before, boolean failedWith,
      boolean failed, boolean revived) {
    BatchRecord batch = stored(BatchState.RUNNING, before);

    BatchRecord afterFailure = BatchRules.failed(batch, new FailBatch("b-1", "gave up", 1, failedWith), NOW);
    BatchRecord afterRevival = BatchRules.revived(afterFailure, "Cannot revive batch b-1", NOW);
    BatchRecord afterCommit = BatchRules.committed(BatchRules.running(afterRevival, LEASE, NOW),
        new CommitBatch("b-1", 7L, METRICS), NOW).orElseThrow();

    assertThat(afterFailure.outcomeUnknown()).isEqualTo(failed);
    assertThat(afterRevival.outcomeUnknown()).isEqualTo(revived);
    assertThat(afterCommit.outcomeUnknown()).isFalse();
  }

  @Test
  void aFailureKeepsTheErrorAndClearsTheLease() {
    BatchRecord failed = BatchRules.failed(stored(BatchState.RUNNING, false), new FailBatch("b-1", "boom", 3, false), NOW);

    assertThat(failed.error()).contains("boom");
    assertThat(failed.leaseUntil()).isEmpty();
    assertThat(failed.updatedAt()).isEqualTo(NOW);
  }

  @Test
  void aLaunchCountsTheAttemptAndTheLaunchAndRevivalResetsOnlyTheAttempts() {
    BatchRecord running = BatchRules.running(stored(BatchState.PLANNED, false), LEASE, NOW);
    assertThat(running.attempts()).isEqualTo(3);
    assertThat(running.launches()).isEqualTo(4);
    assertThat(running.leaseUntil()).contains(NOW.plus(LEASE));

    BatchRecord revived = BatchRules.revived(stored(BatchState.FAILED, true), "Cannot revive batch b-1", NOW);
    assertThat(revived.attempts()).isZero();
    assertThat(revived.launches()).isEqualTo(3);
    assertThat(revived.error()).contains("lost");
    assertThat(revived.leaseUntil().orElseThrow()).isBefore(NOW);
  }

  @Test
  void aCommitIsIdempotentForItsSnapshotOnly() {
    BatchRecord committed = stored(BatchState.COMMITTED, false);

    assertThat(BatchRules.committed(committed, new CommitBatch("b-1", 42L, METRICS), NOW)).isEmpty();
    assertThatThrownBy(() -> BatchRules.committed(committed, new CommitBatch("b-1", 43L, METRICS), NOW))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessage("Cannot commit batch b-1 with snapshot 43: it is already committed with snapshot 42");
    BatchRecord done = BatchRules.committed(stored(BatchState.RUNNING, true), new CommitBatch("b-1", 42L, METRICS), NOW)
        .orElseThrow();
    assertThat(done.snapshotId()).contains(42L);
    assertThat(done.metrics()).contains(METRICS);
    assertThat(done.leaseUntil()).isEmpty();
  }

  @ParameterizedTest(name = "lease until {0} min, take-over only when expired {1}: {2}")
  @CsvSource({"30, false, 90", "30, true, !", "-30, true, 90", "-30, false, 90"})
  void aNewLeaseIsGivenToABatchInFlightAndATakeOverOnlyOnceTheOldOneRanOut(int leaseMinutes, boolean onlyExpired,
      String expected) {
    BatchRecord s = stored(BatchState.RUNNING, false);
    BatchRecord batch = new BatchRecord(s.batchId(), s.table(), s.state(), s.partitions(), s.fileIds(), s.eventIds(),
        s.attempts(), s.launches(), false, Optional.of(NOW.plus(Duration.ofMinutes(leaseMinutes))), s.snapshotId(),
        s.metrics(), s.error(), s.createdAt(), s.updatedAt());

    if (expected.equals("!")) {
      assertThatThrownBy(() -> BatchRules.leased(batch, Duration.ofMinutes(90), true, "Cannot take over batch b-1", NOW))
          .isInstanceOf(IllegalTransitionException.class)
          .hasMessage("Cannot take over batch b-1: its lease runs until " + NOW.plus(Duration.ofMinutes(30))
              + " (another batcher holds it)");
      return;
    }
    BatchRecord leased = BatchRules.leased(batch, Duration.ofMinutes(90), onlyExpired, "Cannot renew", NOW);
    assertThat(leased.leaseUntil()).contains(NOW.plus(Duration.ofMinutes(Integer.parseInt(expected))));
    assertThat(leased.attempts()).isEqualTo(batch.attempts());
  }
}
