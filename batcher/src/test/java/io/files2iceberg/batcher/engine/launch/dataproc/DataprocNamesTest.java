package io.files2iceberg.batcher.engine.launch.dataproc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DataprocNamesTest {

  @Test
  void batchIdIsOurBatchIdLowerCasedWithPrefixAndAttempt() {
    assertThat(DataprocNames.batchId("20261130T120000-1a2b3c4d", 1)).isEqualTo("f2i-20261130t120000-1a2b3c4d-a1");
    assertThat(DataprocNames.batchId("20261130T120000-1a2b3c4d", 12)).isEqualTo("f2i-20261130t120000-1a2b3c4d-a12");
  }

  @Test
  void charactersDataprocRejectsBecomeSingleHyphens() {
    assertThat(DataprocNames.batchId("__Backfill.2026/11_30__", 3)).isEqualTo("f2i-backfill-2026-11-30-a3");
  }

  @Test
  void longBatchIdsAreCutToSixtyThreeCharactersAndStayDistinct() {
    String longId = "backfill-" + "x".repeat(80);
    String other = "backfill-" + "x".repeat(79) + "y";

    String id = DataprocNames.batchId(longId, 100);

    assertThat(id).hasSize(63).startsWith("f2i-backfill-xxx").endsWith("-a100").matches(DataprocNames.VALID_BATCH_ID);
    assertThat(DataprocNames.batchId(other, 100)).hasSize(63).isNotEqualTo(id);
  }

  @Test
  void aBatchIdWithNoLetterOrDigitStillGivesAValidId() {
    assertThat(DataprocNames.batchId("___", 1)).matches("f2i-[0-9a-f]{8}-a1").matches(DataprocNames.VALID_BATCH_ID);
  }

  @Test
  void everyDerivedIdIsValidForDataproc() {
    for (String batchId : new String[] {"20261130T120000-1a2b3c4d", "a", "-x-", "Z".repeat(200), "é€"}) {
      for (int attempt : new int[] {1, 9, 10_000}) {
        assertThat(DataprocNames.batchId(batchId, attempt)).as(batchId + " attempt " + attempt)
            .matches(DataprocNames.VALID_BATCH_ID);
      }
    }
  }

  @Test
  void attemptsStartAtOne() {
    assertThatThrownBy(() -> DataprocNames.batchId("20261130T120000-1a2b3c4d", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("attempt must be at least 1, is 0");
  }

  @Test
  void labelValuesAreLowerCaseWithUnderscoresForOtherCharacters() {
    assertThat(DataprocNames.labelValue("lake.web.clicks")).isEqualTo("lake_web_clicks");
    assertThat(DataprocNames.labelValue("20261130T120000-1a2b3c4d")).isEqualTo("20261130t120000-1a2b3c4d");
  }

  @Test
  void longLabelValuesAreCutToSixtyThreeCharactersWithAHash() {
    String table = "catalog.namespace." + "t".repeat(80);

    assertThat(DataprocNames.labelValue(table)).hasSize(63).matches("catalog_namespace_t+-[0-9a-f]{8}");
    assertThat(DataprocNames.labelValue(table + "2")).isNotEqualTo(DataprocNames.labelValue(table));
  }

  @Test
  void requestIdIsStablePerBatchIdAndFitsDataprocsLimit() {
    String requestId = DataprocNames.requestId("f2i-20261130t120000-1a2b3c4d-a1");

    assertThat(requestId).matches("[a-zA-Z0-9_-]{1,40}")
        .isEqualTo(DataprocNames.requestId("f2i-20261130t120000-1a2b3c4d-a1"))
        .isNotEqualTo(DataprocNames.requestId("f2i-20261130t120000-1a2b3c4d-a2"));
  }
}
