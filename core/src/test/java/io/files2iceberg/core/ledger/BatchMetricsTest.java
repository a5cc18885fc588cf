package io.files2iceberg.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The metrics' one codec, which both ledgers and the job's report use. */
class BatchMetricsTest {
  private static final BatchMetrics METRICS = new BatchMetrics(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);

  @Test
  void everyComponentHasAFieldKeyedByItsNameInTheRecordsOrder() {
    assertThat(Arrays.stream(BatchMetrics.Field.values()).map(BatchMetrics.Field::key))
        .containsExactlyElementsOf(Arrays.stream(BatchMetrics.class.getRecordComponents())
            .map(RecordComponent::getName).toList());
  }

  @Test
  void metricsReadBackFromTheirMapAsTheyWere() {
    Map<String, Long> map = METRICS.toMap();

    assertThat(map).containsEntry("files", 1L).containsEntry("rowsRead", 3L).containsEntry("lagMillis", 12L);
    assertThat(BatchMetrics.fromMap(map)).isEqualTo(METRICS);
  }

  @Test
  void aMissingKeyReadsAsZeroAndIntegersOfAnyWidthAreRead() {
    assertThat(BatchMetrics.fromMap(Map.of("files", 3, "bytes", 40L))).isEqualTo(
        new BatchMetrics(3, 40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    assertThat(BatchMetrics.fromMap(Map.of())).isEqualTo(BatchMetrics.EMPTY);
  }

  @Test
  void aValueThatIsNotANumberIsRefusedNamingItsKey() {
    assertThatThrownBy(() -> BatchMetrics.fromMap(Map.of("rowsRead", "many")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Metric 'rowsRead' is not a number: many");
  }
}
