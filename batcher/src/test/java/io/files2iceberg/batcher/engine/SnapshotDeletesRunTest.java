package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.JobExit;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.snapshot-deletes} with mode {@code last}, through the batcher and real jobs: each
 * newest partition is a snapshot MERGEd into the table, deleting the keys it lacks, and a snapshot
 * the guard refuses fails its partition in the ledger and commits nothing.
 */
class SnapshotDeletesRunTest {
  private static final String TABLE = "local.test.customers";

  @TempDir Path dir;

  @Test
  void eachSnapshotDeletesTheKeysItLacksUntilTheGuardRejectsATruncatedOne() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("customers", """
          extract.batch-file.ingestion-type = last
          load.snapshot-deletes = true
          """);
      LocalSparkLauncher launcher = landing.launcher();
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher).build();
      snapshot(landing, "p1", "1,10", "2,20", "3,30", "4,40");
      assertThat(runner.runOnce().failed()).as(landing::jobLogs).isEmpty();

      // Half of the stored rows go: as much as the default guard allows.
      snapshot(landing, "p2", "1,11", "2,21", "5,50");
      RunSummary second = runner.runOnce();

      assertThat(second.failed()).as(landing::jobLogs).isEmpty();
      assertThat(second.committed()).singleElement().satisfies(c -> {
        assertThat(c.report().metrics().rowsDeleted()).isEqualTo(2);
        assertThat(c.report().metrics().rowsInserted()).isEqualTo(1);
        assertThat(c.report().metrics().rowsUpdated()).isEqualTo(2);
      });
      assertThat(TableRows.ids(landing, TABLE)).containsExactly(1L, 2L, 5L);
      int snapshots = TableRows.snapshots(landing, TABLE);

      // Truncated: 2 of the 3 stored rows would go.
      snapshot(landing, "p3", "1,12");
      RunSummary third = runner.runOnce();

      assertThat(third.committed()).isEmpty();
      BatchFailed rejected = third.failed().get(0);
      assertThat(rejected.exit()).contains(JobExit.REJECTED);
      assertThat(rejected.after()).isEqualTo(AfterFailure.PARTITIONS_FAILED);
      assertThat(rejected.error()).contains("rejected: load.snapshot-deletes: table " + TABLE + ": the batch would"
          + " delete 2 of the 3 stored rows of the table (a share of 0.6667), more than"
          + " load.snapshot-deletes-max-fraction = 0.5 allows; nothing is committed");
      PartitionRecord failed = landing.ledger.partition(TABLE, "p3").orElseThrow();
      assertThat(failed.state()).isEqualTo(PartitionState.FAILED);
      assertThat(failed.lastError()).contains(rejected.error());
      assertThat(TableRows.ids(landing, TABLE)).containsExactly(1L, 2L, 5L);
      assertThat(TableRows.snapshots(landing, TABLE)).isEqualTo(snapshots);
    }
  }

  private static void snapshot(Landing landing, String partition, String... rows) {
    landing.record(landing.write("customers", partition, "part-0.csv", rows));
    landing.markReady("customers", partition);
  }
}
