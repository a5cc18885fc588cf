package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.ExpectationCounts;
import io.files2iceberg.core.manifest.JobExit;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quality.expectations} through the batcher and real jobs: each action applied to the rows
 * that violate it, every count where a user reads it (the run's report, the file's record in the
 * ledger, the snapshot summary, the rejected table), and an aggregate that fails its batch leaves
 * its partition FAILED with the expectation named, until the profile is mended and it is retried.
 */
class ExpectationsRunTest {
  private static final String TABLE = "local.test.orders";

  @TempDir Path dir;

  private static final String EXPECTATIONS = """
      quality.expectations = [
        { name = amount_positive, check = "amount > 0", on-violation = reject }
        { name = not_a_test, check = "id < 900", on-violation = drop }
        { name = small, check = "amount < 100", on-violation = warn }
        { name = enough_rows, min-rows = 2, on-violation = %s }
      ]
      """;

  @Test
  void eachActionAppliesAndIsCountedAndAFailedAggregateWaitsForTheMendedProfile() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("orders", EXPECTATIONS.formatted("fail"));
      LocalSparkLauncher launcher = landing.launcher();
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher).build();
      String fileId = landing.record(landing.write("orders", "p1", "part-0.csv", "1,10", "2,-5", "3,150", "901,20"));
      landing.markReady("orders", "p1");

      RunSummary first = runner.runOnce();

      assertThat(first.failed()).as(landing::jobLogs).isEmpty();
      BatchCommitted committed = first.committed().get(0);
      // 2 rejected (-5), 901 dropped, 3 loads with its warning: 1 and 3 are in the table.
      assertThat(TableRows.ids(landing, TABLE)).containsExactly(1L, 3L);
      assertThat(committed.report().quality()).containsExactly(
          Map.entry("amount_positive", new ExpectationCounts("reject", 3, 1)),
          Map.entry("not_a_test", new ExpectationCounts("drop", 3, 1)),
          Map.entry("small", new ExpectationCounts("warn", 3, 1)),
          Map.entry("enough_rows", new ExpectationCounts("fail", 1, 0)));
      assertThat(committed.report().metrics().rowsRejected()).isEqualTo(1);
      FileRows counted = landing.ledger.file(fileId).orElseThrow().rows().orElseThrow();
      assertThat(counted.read()).isEqualTo(4);
      assertThat(counted.rejected()).isEqualTo(1);
      assertThat(counted.expectationsFailed())
          .containsExactlyInAnyOrderEntriesOf(Map.of("amount_positive", 1L, "not_a_test", 1L, "small", 1L));
      Snapshot snapshot = IcebergRows.snapshots(landing.registry(), TABLE).get(
          IcebergRows.snapshots(landing.registry(), TABLE).size() - 1);
      assertThat(snapshot.summary()).containsEntry("files2iceberg.quality.amount_positive.failed", "1")
          .containsEntry("files2iceberg.quality.not_a_test.failed", "1")
          .containsEntry("files2iceberg.quality.small.failed", "1")
          .containsEntry("files2iceberg.quality.enough_rows.failed", "0");
      assertThat(IcebergRows.rows(landing.home, TABLE + "__rejected")).singleElement().satisfies(row -> {
        assertThat(row.get("expectation")).isEqualTo("amount_positive");
        assertThat((String) row.get("record")).contains("\"id\":\"2\"").contains("\"amount\":\"-5\"");
      });

      // A partition of one row is fewer than min-rows: the batch fails and commits nothing.
      landing.record(landing.write("orders", "p2", "part-0.csv", "4,10"));
      landing.markReady("orders", "p2");
      int snapshots = TableRows.snapshots(landing, TABLE);
      RunSummary second = runner.runOnce();

      assertThat(second.committed()).isEmpty();
      BatchFailed failed = second.failed().get(0);
      assertThat(failed.exit()).contains(JobExit.REJECTED);
      assertThat(failed.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      assertThat(failed.error()).contains("enough_rows", "p2", "min-rows 2");
      PartitionRecord p2 = landing.ledger.partition(TABLE, "p2").orElseThrow();
      assertThat(p2.state()).isEqualTo(PartitionState.FAILED);
      assertThat(p2.lastError()).hasValueSatisfying(error -> assertThat(error).contains("enough_rows"));
      assertThat(TableRows.snapshots(landing, TABLE)).isEqualTo(snapshots);
      // Not retried by itself: the next run has nothing to do.
      assertThat(runner.runOnce().committed()).isEmpty();

      // The profile mended (a small partition only warns) and the partition retried: it loads.
      landing.profile("orders", EXPECTATIONS.formatted("warn"));
      landing.ledger.retryPartition(TABLE, "p2");
      BatchRunner mended = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher).build();
      RunSummary third = mended.runOnce();

      assertThat(third.failed()).as(landing::jobLogs).isEmpty();
      assertThat(third.committed().get(0).report().quality().get("enough_rows"))
          .isEqualTo(new ExpectationCounts("warn", 0, 1));
      assertThat(TableRows.ids(landing, TABLE)).containsExactly(1L, 3L, 4L);
    }
  }
}
