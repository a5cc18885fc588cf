package io.files2iceberg.sparkjob.change;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.sparkjob.change.ChangeSummary.RowCounts;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The summary properties of a commit: the partitions bounded, with a marker when cut; the counts. */
class ChangeSummaryTest {
  @Test
  void moreThanTheLimitListsTheFirstSortedAndSaysItIsCut() {
    Map<String, String> summary = ChangeSummary.partitions(List.of("c", "a", "b"), 2);

    assertThat(summary).containsEntry(ChangeSummary.PARTITIONS_COUNT, "3")
        .containsEntry(ChangeSummary.PARTITIONS_TRUNCATED, "true");
    assertThat(ChangeSummary.listedPartitions(summary)).contains(List.of("a", "b"));
  }

  @Test
  void aHundredAndOnePartitionsAreCutAtAHundred() {
    List<String> days = IntStream.rangeClosed(0, 100).mapToObj(i -> String.format("p%03d", i)).toList();

    Map<String, String> summary = ChangeSummary.partitions(days);

    assertThat(summary).containsEntry(ChangeSummary.PARTITIONS_COUNT, "101")
        .containsEntry(ChangeSummary.PARTITIONS_TRUNCATED, "true");
    assertThat(ChangeSummary.listedPartitions(summary).orElseThrow()).hasSize(100).endsWith("p099");
    assertThat(ChangeSummary.partitions(days.subList(0, 100))).doesNotContainKey(ChangeSummary.PARTITIONS_TRUNCATED);
  }

  @Test
  void summaryWithoutCountsPredatesThem() {
    assertThat(ChangeSummary.rows(Map.of("added-records", "3"))).isEmpty();
  }

  @Test
  void mergeCountsComeFromItsOwnSummary() {
    // Copy-on-write: 2 rows merged into a file of 2 stored rows, one of them an update.
    Map<String, String> copyOnWrite = new java.util.HashMap<>(ChangeSummary.mergeRows(2, 0,
        java.util.Optional.empty(), false));
    copyOnWrite.putAll(Map.of("added-records", "3", "deleted-records", "2"));
    assertThat(ChangeSummary.rows(copyOnWrite)).contains(new RowCounts(1, 1, 0));

    // Merge-on-read: one update is one position delete.
    Map<String, String> mergeOnRead = new java.util.HashMap<>(ChangeSummary.mergeRows(2, 0,
        java.util.Optional.empty(), true));
    mergeOnRead.putAll(Map.of("added-records", "2", "added-position-deletes", "1"));
    assertThat(ChangeSummary.rows(mergeOnRead)).contains(new RowCounts(1, 1, 0));
  }
}
