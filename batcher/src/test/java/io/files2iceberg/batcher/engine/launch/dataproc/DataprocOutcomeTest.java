package io.files2iceberg.batcher.engine.launch.dataproc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.dataproc.v1.Batch;
import io.files2iceberg.core.manifest.JobExit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** How a Dataproc batch state and state message map to the job's exits. */
class DataprocOutcomeTest {

  @ParameterizedTest
  @EnumSource(value = Batch.State.class, names = {"PENDING", "RUNNING", "CANCELLING", "STATE_UNSPECIFIED"})
  void aBatchThatHasNotEndedHasNoResult(Batch.State state) {
    assertThat(DataprocOutcome.of(Batch.newBuilder().setState(state).build(), "f2i-x-a1", "log")).isEmpty();
  }

  @Test
  void aStateThisClientDoesNotKnowHasNoResult() {
    assertThat(DataprocOutcome.of(Batch.newBuilder().setStateValue(99).build(), "f2i-x-a1", "log")).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', textBlock = """
      Job failed with message [files2iceberg: table a.b.c batch 1 rejected: file gs://b/x.parquet is not parquet] | REJECTED
      Driver exited with exit code 4                                                                              | REJECTED
      Job failed with message [ExitCodeException exitCode=4: ]                                                   | REJECTED
      files2iceberg: table a.b.c batch 1 is committed to Iceberg as snapshot 42 but its ledger checkpoint failed: x | CHECKPOINT_FAILED
      Driver exited with exit code 3                                                                              | CHECKPOINT_FAILED
      Job exited with exit status: 2                                                                              | INVALID_MANIFEST
      Job failed with message [java.lang.OutOfMemoryError: Java heap space]                                      | FAILED
      Driver received SIGTERM/SIGKILL signal and exited with 143 code                                            | FAILED
      Driver exited with exit code 137                                                                            | FAILED
      Driver exited with exit code 0                                                                              | FAILED
      Request rejected: quota exceeded                                                                            | FAILED
      files2iceberg: table a.b.c batch 1 failed: Lost executor 3: Container exited with exit code 4               | FAILED
      ''                                                                                                          | FAILED
      """)
  void aFailedBatchIsClassifiedByWhatItsMessageSays(String message, JobExit expected) {
    assertThat(DataprocOutcome.classifyFailure(message)).isEqualTo(expected);
  }

  @Test
  void theDetailOfAFailureIsTheJobsOwnLineWhenTheMessageCarriesIt() {
    String message = "Job failed with message [files2iceberg: table a.b.c batch 1 failed: Connection refused]."
        + " Additional details can be found at:\nhttps://console.cloud.google.com/dataproc/batches/r/f2i-1-a1?project=p";

    assertThat(DataprocOutcome.failureDetail("f2i-1-a1", message))
        .isEqualTo("files2iceberg: table a.b.c batch 1 failed: Connection refused");
  }

  @ParameterizedTest(name = "{0} -> fromJob {1}")
  @CsvSource(delimiter = '|', textBlock = """
      Job failed with message [files2iceberg: table a.b.c batch 1 failed: Connection refused] | true
      Job failed with message [files2iceberg: table a.b.c batch 1 rejected: bad file]         | true
      Driver exited with exit code 4                                                           | true
      Driver exited with exit code 1                                                           | false
      Job failed with message [java.lang.OutOfMemoryError: Java heap space]                   | false
      ''                                                                                       | false
      """)
  void onlyAFailureTheJobReportedIsTheJobsOwn(String message, boolean fromJob) {
    assertThat(DataprocOutcome.failed("f2i-1-a1", message, "log").fromJob()).isEqualTo(fromJob);
  }

  @Test
  void aCancelledBatchIsNotTheJobsOwnOutcome() {
    assertThat(DataprocOutcome.of(Batch.newBuilder().setState(Batch.State.CANCELLED).build(), "f2i-1-a1", "log"))
        .hasValueSatisfying(result -> {
          assertThat(result.exit()).isEqualTo(JobExit.FAILED);
          assertThat(result.fromJob()).isFalse();
        });
  }

  @Test
  void aFailureWithoutAMessageSaysSo() {
    assertThat(DataprocOutcome.failureDetail("f2i-1-a1", "")).isEqualTo("Dataproc batch f2i-1-a1 failed without a state message");
  }
}
