package io.files2iceberg.core.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.manifest.BatchLoadReport.Checkpoint;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The result file of one attempt: where it is, and read back as it was written. */
class AttemptResultTest {

  private static final BatchLoadReport REPORT = new BatchLoadReport("local.demo.clicks", "20240501T100000-ab12", false,
      4242L, Checkpoint.COMMITTED, Optional.empty(), new BatchMetrics(2, 2048, 10, 1, 7, 2, 0, 1, 900, 1500, 40, 61_000),
      List.of(), Optional.empty());
  private static final Instant STARTED = Instant.parse("2024-05-01T10:00:01Z");
  private static final Instant ENDED = Instant.parse("2024-05-01T10:00:31Z");

  @Test
  void resultIsBesideTheManifestLocallyAndOnCloudStorage() {
    assertThat(AttemptResult.locationBeside("/home/me/.files2iceberg/metadata/clicks/batches/b-1.json", 3))
        .isEqualTo("/home/me/.files2iceberg/metadata/clicks/batches/b-1-attempt3.result.json");
    assertThat(AttemptResult.locationBeside("gs://lake-metadata/clicks/batches/b-1.json", 1))
        .isEqualTo("gs://lake-metadata/clicks/batches/b-1-attempt1.result.json");
    assertThat(AttemptResult.batchIdOf("gs://lake-metadata/clicks/batches/b-1.json")).isEqualTo("b-1");
  }

  @Test
  void oneStemNamesAnAttemptsResultWarmRequestAndJobGroup() {
    WarmRequest request = new WarmRequest("local.demo.clicks", "b-1", "/m/batches/b-1.json", 3, "0123456789abcdef");

    assertThat(AttemptResult.stem("b-1", 3)).isEqualTo("b-1-attempt3");
    assertThat(AttemptResult.locationBeside("/m/batches/b-1.json", 3)).isEqualTo("/m/batches/b-1-attempt3.result.json");
    assertThat(request.name()).isEqualTo("b-1-attempt3.request");
    assertThat(request.jobGroup()).isEqualTo("b-1-attempt3");
    assertThatThrownBy(() -> AttemptResult.stem("b-1", 0)).hasMessage("attempt must be at least 1, is 0");
  }

  @Test
  void loadedResultReadsBackWithItsReportAndSaysWhatItCommitted() {
    AttemptResult loaded = new AttemptResult("local.demo.clicks", "20240501T100000-ab12", 1, 0, JobExit.LOADED,
        Optional.of(REPORT), Optional.empty(), 4711, STARTED, ENDED);

    String json = loaded.toJson();

    assertThat(json).contains("\"format\" : \"files2iceberg-attempt-result\"", "\"exit\" : \"loaded\"");
    assertThat(AttemptResult.fromJson(json, "r.json")).isEqualTo(loaded);
    assertThat(loaded.isInTable()).isTrue();
    assertThat(loaded.detail()).isEqualTo("committed snapshot 4242, checkpoint committed");
  }

  @Test
  void failedResultReadsBackWithTheJobsErrorLine() {
    String error = "files2iceberg: table local.demo.clicks batch b-1 rejected: column amount: cannot cast";
    AttemptResult rejected = new AttemptResult("local.demo.clicks", "b-1", 2, 4, JobExit.REJECTED, Optional.empty(),
        Optional.of(error), 4711, STARTED, ENDED);

    AttemptResult read = AttemptResult.fromJson(rejected.toJson(), "r.json");

    assertThat(read).isEqualTo(rejected);
    assertThat(read.isInTable()).isFalse();
    assertThat(read.detail()).isEqualTo(error);
  }

  @Test
  void malformedResultIsRefusedNamingTheFileAndTheField() {
    assertThatThrownBy(() -> AttemptResult.fromJson("{\"format\":\"files2iceberg-attempt-result\",\"version\":1,"
        + "\"exit\":\"exploded\"}", "gs://m/b-1-attempt1.result.json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid attempt result gs://m/b-1-attempt1.result.json: exit: unknown exit \"exploded\"");
    assertThatThrownBy(() -> AttemptResult.fromJson("{\"format\":", "r.json"))
        .hasMessageStartingWith("Invalid attempt result r.json: not JSON: ");
  }
}
