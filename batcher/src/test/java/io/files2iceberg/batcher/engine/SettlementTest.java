package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.Settlement.Action;
import io.files2iceberg.batcher.engine.Settlement.Commit;
import io.files2iceberg.batcher.engine.Settlement.Ended;
import io.files2iceberg.batcher.engine.Settlement.Expired;
import io.files2iceberg.batcher.engine.Settlement.FailAndRelease;
import io.files2iceberg.batcher.engine.Settlement.FailPartitions;
import io.files2iceberg.batcher.engine.Settlement.GiveUp;
import io.files2iceberg.batcher.engine.Settlement.LeaveForRecovery;
import io.files2iceberg.batcher.engine.Settlement.Liveness;
import io.files2iceberg.batcher.engine.Settlement.Relaunch;
import io.files2iceberg.batcher.engine.Settlement.Reported;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.JobExit;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The settlement decision, as a table: what happened, attempts, whether the table may hold the batch. */
class SettlementTest {
  private static final String TABLE = "lake.web.clicks";
  private static final String BATCH = "20261130T120000-1a2b3c4d";
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
  private static final String LOG = "/home/logs/" + BATCH + "-attempt1.log";
  private static final BatchLoadReport REPORT = new BatchLoadReport(TABLE, BATCH, false, 42L,
      BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(), BatchMetrics.EMPTY, List.of(), Optional.empty());

  /**
   * One launch of a ledger batch: how it ended (the job's exit, {@code job} when the job said so
   * itself, {@code crash} when it did not; or the launcher's error, retryable or needing a fix),
   * the batch's attempts against {@code job.max-attempts} 3, whether an earlier launch may have
   * committed it, whether this launch was the one made at once after a failed checkpoint.
   */
  @ParameterizedTest(name = "{0}, attempt {1}/3, may hold {2}, checkpoint relaunch {3} -> {4}")
  @CsvSource(delimiter = '|', textBlock = """
      LOADED                  | 1 | false | false | ConfirmCommitted
      LOADED                  | 3 | true  | false | ConfirmCommitted
      LOADED                  | 2 | true  | true  | ConfirmCommitted
      CHECKPOINT_FAILED       | 1 | false | false | Relaunch may hold
      CHECKPOINT_FAILED       | 3 | true  | false | Relaunch may hold
      CHECKPOINT_FAILED       | 2 | true  | true  | LeaveForRecovery
      CHECKPOINT_FAILED       | 3 | true  | true  | GiveUp
      REJECTED                | 1 | false | false | FailPartitions
      REJECTED                | 3 | false | false | FailPartitions
      REJECTED                | 1 | true  | false | FailPartitions
      REJECTED                | 3 | true  | false | FailPartitions
      FAILED job              | 1 | false | false | FailAndRelease
      FAILED job              | 3 | false | false | FailAndRelease
      FAILED job              | 1 | true  | false | LeaveForRecovery
      FAILED job              | 3 | true  | false | GiveUp
      FAILED crash            | 1 | false | false | LeaveForRecovery
      FAILED crash            | 3 | false | false | GiveUp
      FAILED crash            | 1 | true  | false | LeaveForRecovery
      FAILED crash            | 3 | true  | false | GiveUp
      FAILED crash            | 2 | true  | true  | LeaveForRecovery
      INVALID_MANIFEST        | 1 | false | false | FailAndRelease
      INVALID_MANIFEST        | 3 | false | false | FailAndRelease
      INVALID_MANIFEST        | 1 | true  | false | GiveUp
      INVALID_MANIFEST        | 3 | true  | false | GiveUp
      launch retryable        | 1 | false | false | FailAndRelease
      launch retryable        | 3 | false | false | FailAndRelease
      launch retryable        | 1 | true  | false | LeaveForRecovery
      launch retryable        | 3 | true  | false | GiveUp
      launch retryable        | 2 | true  | true  | LeaveForRecovery
      launch needs-fix        | 1 | false | false | FailPartitions
      launch needs-fix        | 3 | false | false | FailPartitions
      launch needs-fix        | 1 | true  | false | GiveUp
      launch needs-fix        | 3 | true  | false | GiveUp
      """)
  void aLaunchIsSettledByHowItEndedItsAttemptsAndWhetherTheTableMayHoldTheBatch(String ended, int attempts,
      boolean mayHold, boolean checkpointRelaunched, String expected) {
    Action action = Settlement.decide(new Settlement.Attempt(ended(ended), attempts, 3, mayHold, checkpointRelaunched));

    assertThat(name(action)).isEqualTo(expected);
  }

  @Test
  void theTableListsEveryJobExit() throws Exception {
    String table = SettlementTest.class.getDeclaredMethod("aLaunchIsSettledByHowItEndedItsAttemptsAndWhetherTheTable"
        + "MayHoldTheBatch", String.class, int.class, boolean.class, boolean.class, String.class)
        .getAnnotation(CsvSource.class).textBlock();
    Set<String> listed = table.lines().map(line -> line.split("[ |]")[0]).collect(Collectors.toSet());

    assertThat(listed).containsAll(Arrays.stream(JobExit.values()).map(Enum::name).toList()).contains("launch");
  }

  @Test
  void aFailureCarriesTheJobsLineWithItsLogAndItsExit() {
    Action action = Settlement.decide(new Settlement.Attempt(ended("FAILED job"), 1, 3, false, false));

    assertThat(action).isEqualTo(new FailAndRelease("files2iceberg: table " + TABLE + " batch " + BATCH
        + " failed: Connection refused (log: " + LOG + ")", Optional.of(JobExit.FAILED)));
  }

  @Test
  void aLaunchErrorCarriesTheLaunchersMessageAndNoExit() {
    Action action = Settlement.decide(new Settlement.Attempt(ended("launch needs-fix"), 1, 3, false, false));

    assertThat(action).isEqualTo(new FailPartitions("the job could not be started: Dataproc refused: INVALID_ARGUMENT",
        Optional.empty()));
  }

  @Test
  void givingUpCountsTheAttemptsAndKeepsWhy() {
    Action action = Settlement.decide(new Settlement.Attempt(ended("FAILED crash"), 3, 3, false, false));

    assertThat(action).isEqualTo(new GiveUp("the job was killed (log: " + LOG + ")", Optional.of(JobExit.FAILED), 3));
    assertThat(UnknownOutcome.gaveUp(3, ((GiveUp) action).why()))
        .isEqualTo("gave up after 3 attempt(s); the table may hold the batch: the job was killed (log: " + LOG + ")");
  }

  @Test
  void loadedIsCommittedFromTheJobsReportWhenTheLedgerHasTheBatchCommitted() {
    JobResult loaded = new JobResult(JobExit.LOADED, Optional.of(REPORT), "committed snapshot 42", Optional.empty());

    assertThat(Settlement.confirm(loaded, Optional.of(batch(BatchState.COMMITTED, 1, 1, Optional.empty()))))
        .isEqualTo(new Commit(REPORT));
  }

  @Test
  void loadedWithoutAReportIsCommittedFromTheLedgersRecord() {
    JobResult loaded = new JobResult(JobExit.LOADED, Optional.empty(), "the job exited with code 0", Optional.empty());
    BatchRecord committed = new BatchRecord(BATCH, TABLE, BatchState.COMMITTED, List.of("p1"), List.of("f1"),
        List.of("e1"), 1, 1, false, Optional.empty(), Optional.of(42L), Optional.of(BatchMetrics.EMPTY), Optional.empty(),
        NOW, NOW);

    assertThat(Settlement.confirm(loaded, Optional.of(committed))).isEqualTo(new Commit(REPORT));
  }

  @ParameterizedTest(name = "ledger has the batch {0} -> {1}")
  @CsvSource(delimiter = '|', textBlock = """
      RUNNING | FailAndRelease
      PLANNED | FailAndRelease
      FAILED  | Reported
      missing | Reported
      """)
  void loadedButNotCommittedInTheLedgerIsAFailureNamingTheState(String state, String expected) {
    JobResult loaded = new JobResult(JobExit.LOADED, Optional.of(REPORT), "committed snapshot 42", Optional.of(LOG));
    Optional<BatchRecord> stored = state.equals("missing") ? Optional.empty()
        : Optional.of(batch(BatchState.valueOf(state), 1, 1, Optional.empty()));

    Action action = Settlement.confirm(loaded, stored);

    assertThat(name(action)).isEqualTo(expected);
    String error = "the job exited 0 but the ledger has the batch " + state + " (expected COMMITTED): committed"
        + " snapshot 42 (log: " + LOG + ")";
    assertThat(action).isIn(new FailAndRelease(error, Optional.of(JobExit.LOADED)),
        new Reported(error, Optional.of(JobExit.LOADED)));
  }

  /**
   * A batch whose lease expired: what its latest attempt left (its result file, else whether its
   * job still runs), its attempts against 3, whether it gave up before with an unknown outcome
   * (and {@code retry} revived it).
   */
  @ParameterizedTest(name = "latest {0}, job {1}, attempts {2}/3, revived {3} -> {4}")
  @CsvSource(delimiter = '|', textBlock = """
      LOADED in table            | ENDED   | 1 | false | CommitFromResult
      CHECKPOINT_FAILED in table | ENDED   | 3 | false | CommitFromResult
      LOADED unchecked           | ENDED   | 1 | false | Relaunch may hold
      none                       | RUNNING | 1 | false | WaitForLiveJob
      none                       | RUNNING | 3 | false | WaitForLiveJob
      REJECTED                   | ENDED   | 1 | false | FailPartitions
      REJECTED                   | ENDED   | 3 | false | FailPartitions
      FAILED                     | ENDED   | 1 | false | Relaunch may hold
      FAILED                     | ENDED   | 3 | false | GiveUp
      none                       | ENDED   | 1 | false | Relaunch may hold
      none                       | ENDED   | 3 | false | GiveUp
      none                       | UNKNOWN | 1 | false | LeaveAsIs
      none                       | UNKNOWN | 3 | false | GiveUp
      never launched             | ENDED   | 0 | false | Relaunch
      none                       | ENDED   | 0 | true  | Relaunch may hold
      none                       | UNKNOWN | 0 | true  | LeaveAsIs
      """)
  void anExpiredBatchIsRecoveredByWhatItsLatestAttemptLeft(String latest, Liveness liveness, int attempts,
      boolean revived, String expected) {
    Optional<String> error = revived ? Optional.of(UnknownOutcome.gaveUp(3, "the job was killed")) : Optional.empty();
    int launches = latest.equals("never launched") ? 0 : Math.max(1, attempts) + (revived ? 3 : 0);
    BatchRecord batch = batch(BatchState.RUNNING, attempts, launches, error, revived);

    Action action = Settlement.recover(new Expired(batch, result(latest, launches), liveness, 3));

    assertThat(name(action)).isEqualTo(expected);
  }

  @Test
  void anExpiredBatchOutOfAttemptsGivesUpSayingTheLeaseExpiredWithItsLastError() {
    BatchRecord batch = batch(BatchState.RUNNING, 3, 3, Optional.of("an earlier error"));

    Action action = Settlement.recover(new Expired(batch, Optional.empty(), Liveness.ENDED, 3));

    assertThat(action).isEqualTo(new GiveUp("the lease expired without a result; an earlier error", Optional.empty(),
        3));
  }

  private static Ended ended(String token) {
    return switch (token) {
      case "launch retryable" -> new Ended.NotLaunched("the job could not be started: Dataproc: UNAVAILABLE", true);
      case "launch needs-fix" ->
          new Ended.NotLaunched("the job could not be started: Dataproc refused: INVALID_ARGUMENT", false);
      case "FAILED job" -> job(JobExit.FAILED, "files2iceberg: table " + TABLE + " batch " + BATCH
          + " failed: Connection refused", true);
      case "FAILED crash" -> job(JobExit.FAILED, "the job was killed", false);
      default -> job(JobExit.valueOf(token), "files2iceberg: table " + TABLE + " batch " + BATCH + ": " + token, true);
    };
  }

  private static Ended job(JobExit exit, String detail, boolean fromJob) {
    Optional<BatchLoadReport> report = exit == JobExit.LOADED || exit == JobExit.CHECKPOINT_FAILED
        ? Optional.of(REPORT) : Optional.empty();
    return new Ended.JobEnded(new JobResult(exit, report, detail, fromJob, Optional.of(LOG)));
  }

  private static Optional<AttemptResult> result(String latest, int attempt) {
    if (latest.equals("none") || latest.equals("never launched")) {
      return Optional.empty();
    }
    String[] words = latest.split(" ");
    JobExit exit = JobExit.valueOf(words[0]);
    Optional<BatchLoadReport> report = words.length == 1 ? Optional.empty()
        : Optional.of(new BatchLoadReport(TABLE, BATCH, false, 42L, words[1].equals("unchecked")
            ? BatchLoadReport.Checkpoint.SKIPPED : BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(),
            BatchMetrics.EMPTY, List.of(), Optional.empty()));
    Optional<String> error = report.isPresent() ? Optional.empty() : Optional.of("files2iceberg: " + latest);
    return Optional.of(new AttemptResult(TABLE, BATCH, Math.max(1, attempt), exit.code(), exit, report, error, 1L,
        NOW, NOW));
  }

  private static BatchRecord batch(BatchState state, int attempts, int launches, Optional<String> error) {
    return batch(state, attempts, launches, error, false);
  }

  private static BatchRecord batch(BatchState state, int attempts, int launches, Optional<String> error,
      boolean outcomeUnknown) {
    return new BatchRecord(BATCH, TABLE, state, List.of("p1"), List.of("f1"), List.of("e1"), attempts, launches,
        outcomeUnknown, Optional.of(NOW), Optional.empty(), Optional.empty(), error, NOW, NOW);
  }

  private static String name(Action action) {
    String name = action.getClass().getSimpleName();
    return action instanceof Relaunch relaunch && relaunch.mayHold() ? name + " may hold" : name;
  }
}
