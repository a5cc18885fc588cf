package io.files2iceberg.core.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.manifest.BatchLoadReport.Checkpoint;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The metrics line: one JSON object on one line, read back as it was written. */
class BatchLoadReportTest {

  private static final BatchLoadReport REPORT = new BatchLoadReport("local.demo.clicks", "20240501T100000-ab12", false,
      4242L, Checkpoint.FAILED, Optional.of("LedgerUnavailableException: busy"),
      new BatchMetrics(2, 2048, 10, 1, 7, 2, 0, 1, 900, 1500, 40, 61_000),
      List.of(new QuarantinedFile("f9", "gs://b/raw/dt=2024-05-01/bad.parquet", "not a Parquet file")),
      Optional.of("local.demo.clicks__rejected"),
      Map.of("f1", new FileRows(6, 1, 2), "f2", new FileRows(4, 0, 0)));

  @Test
  void metricsLineIsOneLineUnderItsKeyAndReadsBackAsWritten() {
    String line = REPORT.toMetricsLine();

    assertThat(line).doesNotContain("\n").startsWith("{\"files2iceberg-metrics\":{\"table\":\"local.demo.clicks\"");
    assertThat(BatchLoadReport.fromMetricsLine(line)).contains(REPORT);
  }

  @Test
  void alreadyCommittedLineSaysSoWithZeroMetrics() {
    BatchLoadReport already = new BatchLoadReport("local.demo.clicks", "b1", true, 7L, Checkpoint.ALREADY_COMMITTED,
        Optional.empty(), BatchMetrics.EMPTY, List.of(), Optional.empty());

    assertThat(already.toMetricsLine()).contains("\"alreadyCommitted\":true,\"snapshotId\":7,\"checkpoint\":\"already-committed\"")
        .contains("\"rowsInserted\":0").contains("\"rejectedTable\":null");
    assertThat(BatchLoadReport.fromMetricsLine(already.toMetricsLine())).contains(already);
  }

  @Test
  void eachFilesCountsAreWrittenUnderItsIdAndAReportWithoutThemReadsBackWithNone() {
    assertThat(REPORT.toMetricsLine())
        .contains("{\"fileId\":\"f1\",\"rowsRead\":6,\"rowsRejected\":1,\"rowsRescued\":2,\"columnsIgnored\":0}");
    String older = REPORT.toMetricsLine().replaceAll(",\"fileRows\":\\[[^\\]]*\\]", "");

    assertThat(older).doesNotContain("fileRows");
    assertThat(BatchLoadReport.fromMetricsLine(older).orElseThrow().fileRows()).isEmpty();
  }

  @Test
  void otherLinesAreNotReports() {
    assertThat(BatchLoadReport.fromMetricsLine("24/05/01 10:00:00 INFO SparkContext: Running Spark")).isEmpty();
    assertThat(BatchLoadReport.fromMetricsLine("{\"something\": 1}")).isEmpty();
    assertThat(BatchLoadReport.fromMetricsLine("{\"files2iceberg-metrics\": ")).isEmpty();
  }
}
