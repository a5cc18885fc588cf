package io.files2iceberg.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BatchIdsTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:07.900Z");

  @Test
  void ledgerBatchIdIsTheUtcSecondAndEightHexDigits() {
    assertThat(BatchIds.ledger(NOW)).matches("20261130T120007-[0-9a-f]{8}");
  }

  @Test
  void runOfAKindIsPrefixedWithIt() {
    assertThat(BatchIds.of("backfill", NOW)).matches("backfill-20261130T120007-[0-9a-f]{8}");
  }

  @Test
  void idsOfOneSecondDifferAndSortAfterThoseOfTheSecondBefore() {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      ids.add(BatchIds.ledger(NOW));
    }
    assertThat(ids).hasSize(1000);
    assertThat(BatchIds.ledger(NOW.minusSeconds(1))).isLessThan(BatchIds.ledger(NOW).substring(0, 15) + "-");
  }
}
