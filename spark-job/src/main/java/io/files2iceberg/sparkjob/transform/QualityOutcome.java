package io.files2iceberg.sparkjob.transform;

import io.files2iceberg.core.manifest.ExpectationCounts;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
 * @param heldPartitions the partitions of the batch whose rows an aggregate rejected or dropped, in
 *     manifest order
 */
public record QualityOutcome(Map<String, ExpectationCounts> byExpectation, long rejected, long dropped,
    List<String> heldPartitions) {

  public QualityOutcome {
    byExpectation = Collections.unmodifiableMap(new LinkedHashMap<>(byExpectation));
    heldPartitions = List.copyOf(heldPartitions);
  }

  /** Whether an expectation kept rows of the batch out of the table (rejected or dropped). */
  public boolean isAnyRowHeldBack() {
    return rejected + dropped > 0;
  }
}
