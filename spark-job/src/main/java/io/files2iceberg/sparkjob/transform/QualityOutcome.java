package io.files2iceberg.sparkjob.transform;

import io.files2iceberg.core.manifest.ExpectationCounts;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fact: what the batch's {@code quality.expectations} found and did.
 *
 * @param byExpectation by name, in the profile's order, every expectation: a check counts the rows
 *     it checked, an aggregate the batch's partitions
 * @param rejected the rows an expectation sent to {@code <table>__rejected} (a check's, or a
 *     partition's whose aggregate rejected it)
 * @param dropped the rows an expectation kept from the table (likewise); never in {@code
 *     rowsFiltered}, which is {@code transform.filter}'s alone
 */
public record QualityOutcome(Map<String, ExpectationCounts> byExpectation, long rejected, long dropped) {
  /** No expectations. */
  public static final QualityOutcome NONE = new QualityOutcome(Map.of(), 0, 0);

  public QualityOutcome {
    byExpectation = Collections.unmodifiableMap(new LinkedHashMap<>(byExpectation));
  }

  /** Whether an expectation kept rows of the batch out of the table (rejected or dropped). */
  public boolean isAnyRowHeldBack() {
    return rejected + dropped > 0;
  }
}
