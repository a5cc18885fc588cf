package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.launch.WarmLocalLauncher;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Modes {@code last} and {@code full}, and backfills ({@code save-checkpoint = false}), with real
 * jobs, in one run.
 */
class ModesRunTest {
  private static final String SNAPSHOT = "local.test.snapshot";
  private static final String HISTORY = "hist.test.history";
  private static final String LATEST = "local.test.latest";

  @TempDir Path dir;

  @Test
  void tablesThatListStorageRunOnlyWhenNamedNeverBecauseAnotherTablesFilesArrived() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("snapshot", "extract.batch-file.ingestion-type = full\n");
      landing.profile("history", "extract.save-checkpoint = false\n");
      landing.write("snapshot", "p1", "part-0.csv", "1,10");
      landing.markReady("snapshot", "p1");
      landing.write("history", "p1", "part-0.csv", "2,20");
      landing.markReady("history", "p1");

      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      LocalSparkLauncher launcher = landing.launcher();
      RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .events(events::add)
          .build()
          .runOnce();

      assertThat(summary.isClean()).isTrue();
      assertThat(summary.committed()).isEmpty();
      assertThat(events).isEmpty();
    }
  }

  @Test
  void listedModesLoadFromStorageAndLeaveTheLedgerAlone() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("snapshot", "extract.batch-file.ingestion-type = full\n");
      Path hist = Files.createDirectories(landing.home.root().resolve("hist"));
      landing.profile("history", """
          extract { save-checkpoint = false, max-batch-size = 2 }
          load.iceberg.table = "hist.test.history"
          catalog { type = jdbc, uri = "jdbc:sqlite:%s/catalog.db", warehouse = "%s/warehouse" }
          """.formatted(hist, hist));
      landing.profile("latest", """
          extract { batch-file.ingestion-type = last, max-batch-size = 2 }
          """);
      landing.land("latest", "p1", 1, 1);
      landing.land("latest", "p2", 1, 2);
      landing.land("latest", "p3", 3, 30);
      // Files land without notifications: these modes list them.
      landing.write("snapshot", "p1", "part-0.csv", "1,10");
      landing.write("snapshot", "p1", "part-1.csv", "2,20");
      landing.markReady("snapshot", "p1");
      landing.write("snapshot", "p2", "part-0.csv", "3,30"); // no marker: not complete, not loaded
      for (int i = 0; i < 3; i++) {
        landing.write("history", "p1", "part-" + i + ".csv", (100 + i) + "," + i);
      }
      landing.markReady("history", "p1");
      List<String> ledgerTablesBefore = landing.ledger.tables();

      List<BatchEvent> events = new CopyOnWriteArrayList<>();
      WarmLocalLauncher launcher = landing.warmLauncher(Duration.ofMinutes(2));
      RunSummary summary = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .options(new RunOptions(3, Duration.ofMinutes(5)))
          .events(events::add)
          .build()
          // The listing tables run only when named.
          .runOnce(List.of(SNAPSHOT, HISTORY, LATEST));

      assertThat(summary.failed()).as(landing::jobLogs).isEmpty();

      // last: the newest READY partition, whole (max-batch-size does not apply); the older READY
      // ones superseded, never loaded.
      BatchClaimed last = claims(events, LATEST).get(0);
      assertThat(last.mode()).isEqualTo(IngestionType.LAST);
      assertThat(last.saveCheckpoint()).isTrue();
      assertThat(last.partitions()).containsExactly("p3");
      assertThat(last.files()).isEqualTo(3);
      assertThat(events).filteredOn(e -> e instanceof PartitionsSuperseded && e.table().equals(LATEST))
          .singleElement().satisfies(e -> {
            assertThat(((PartitionsSuperseded) e).partitions()).containsExactly("p1", "p2");
            assertThat(e.batchId()).isEqualTo(last.batchId());
          });
      assertThat(committed(summary, LATEST)).singleElement()
          .satisfies(c -> assertThat(c.report().checkpoint()).isEqualTo(BatchLoadReport.Checkpoint.COMMITTED));
      assertThat(landing.ledger.tableStatus(LATEST).partitionsByState())
          .isEqualTo(Map.of(PartitionState.SUPERSEDED, 2L, PartitionState.INGESTED, 1L));

      // full: one batch of every complete partition's files, overwriting, no checkpoint.
      BatchClaimed full = claims(events, SNAPSHOT).get(0);
      assertThat(full.batchId()).matches("full-\\d{8}T\\d{6}-[0-9a-f]{8}");
      assertThat(full.mode()).isEqualTo(IngestionType.FULL);
      assertThat(full.saveCheckpoint()).isFalse();
      assertThat(full.partitions()).containsExactly("p1");
      assertThat(full.files()).isEqualTo(2);
      BatchLoadReport fullReport = committed(summary, SNAPSHOT).get(0).report();
      assertThat(fullReport.checkpoint()).isEqualTo(BatchLoadReport.Checkpoint.SKIPPED);
      assertThat(fullReport.metrics().rowsInserted()).isEqualTo(2);

      // backfill: the listing in batches of max-batch-size, merged, no checkpoint.
      assertThat(claims(events, HISTORY)).extracting(BatchClaimed::files).containsExactly(2, 1);
      assertThat(claims(events, HISTORY)).allSatisfy(claim -> {
        assertThat(claim.batchId()).startsWith("backfill-");
        assertThat(claim.mode()).isEqualTo(IngestionType.INCREMENTAL);
        assertThat(claim.saveCheckpoint()).isFalse();
      });
      assertThat(committed(summary, HISTORY)).extracting(c -> c.report().checkpoint())
          .containsOnly(BatchLoadReport.Checkpoint.SKIPPED);

      // The ledger saw none of it (the markers above were recorded by the test, not the runner).
      assertThat(landing.ledger.tables()).isEqualTo(ledgerTablesBefore);
      assertThat(landing.ledger.tableStatus(SNAPSHOT).partitionsByState()).isEqualTo(Map.of(PartitionState.READY, 1L));
      for (String table : List.of(SNAPSHOT, HISTORY)) {
        assertThat(landing.ledger.tableStatus(table).lastCommitted()).isEmpty();
        assertThat(landing.ledger.tableStatus(table).inFlight()).isEmpty();
      }

      assertThat(TableRows.ids(landing, SNAPSHOT)).containsExactly(1L, 2L);
      assertThat(TableRows.ids(landing, HISTORY)).containsExactly(100L, 101L, 102L);
      assertThat(TableRows.ids(landing, LATEST)).containsExactly(30L, 31L, 32L);
    }
  }

  private static List<BatchClaimed> claims(List<BatchEvent> events, String table) {
    return events.stream().filter(e -> e instanceof BatchClaimed && e.table().equals(table))
        .map(BatchClaimed.class::cast).toList();
  }

  private static List<BatchCommitted> committed(RunSummary summary, String table) {
    return summary.committed().stream().filter(c -> c.table().equals(table)).toList();
  }
}
