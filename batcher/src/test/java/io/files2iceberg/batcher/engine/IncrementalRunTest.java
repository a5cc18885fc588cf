package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.engine.launch.WarmLocalLauncher;
import io.files2iceberg.batcher.metrics.BatcherMetrics;
import io.files2iceberg.batcher.metrics.MetricsEndpoint;
import io.files2iceberg.batcher.metrics.PrometheusText;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.status.StatusFormat;
import io.files2iceberg.batcher.status.StatusReport;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.manifest.WarmRequest;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The incremental path with a real Spark child JVM (the warm driver, the local default): two tables
 * in parallel, one of them with a partition larger than {@code max-batch-size}. One run carries
 * every assertion.
 */
class IncrementalRunTest {
  private static final String CLICKS = "local.test.clicks";
  /** In a catalog of its own (another SQLite file), so that its jobs may overlap those of local. */
  private static final String VIEWS = "other.test.views";
  private static final String LIKES = "local.test.likes";

  @TempDir Path dir;

  private record Seen(BatchEvent event, Instant at) {}

  @Test
  void loadsReadyPartitionsInBatchesOneAtATimePerTableAndTablesInParallel() throws Exception {
    try (Landing landing = new Landing(dir)) {
      landing.profile("clicks", "extract { max-batch-size = 2, keep-checkpoints = 1 }\n");
      // A SQLite catalog cannot create its folder; a catalog Spark cannot open reads as no catalog.
      Path otherCatalog = Files.createDirectories(landing.home.root().resolve("other"));
      landing.profile("views", """
          load.iceberg.table = "other.test.views"
          catalog { type = jdbc, uri = "jdbc:sqlite:%s/catalog.db", warehouse = "%s/warehouse" }
          """.formatted(otherCatalog, otherCatalog));
      landing.profile("likes", "");
      // p1 has three files: more than max-batch-size, so it is split across two batches.
      landing.land("clicks", "p1", 3, 1);
      landing.record(landing.write("clicks", "p2", "part-0.csv", "4,40", "1,999"));
      landing.markReady("clicks", "p2");

      List<Seen> seen = new CopyOnWriteArrayList<>();
      Map<String, Optional<BatchRecord>> claimWhileInFlight = new ConcurrentHashMap<>();
      WarmLocalLauncher launcher = landing.warmLauncher(Duration.ofMinutes(2));
      BatchRunner runner = BatchRunner.builder(landing.registry(), landing.ledger, profile -> launcher)
          .options(new RunOptions(3, Duration.ofMinutes(5)))
          .events(event -> {
            seen.add(new Seen(event, Instant.now()));
            if (event instanceof BatchLaunched launched && launched.table().equals(CLICKS)) {
              // p2 (or the rest of p1) is READY, but the table has a batch in flight.
              claimWhileInFlight.putIfAbsent(launched.batchId(), landing.ledger.claimPartitions(
                  new ClaimPartitions(CLICKS, 100, Duration.ofMinutes(5), true)));
            }
          })
          .build();

      // serve's metrics, read from the ledger before the run: four files recorded, p1 READY for
      // five minutes by the metrics' clock.
      BatcherMetrics metrics = new BatcherMetrics(Clock.offset(landing.clock, Duration.ofMinutes(5)));
      metrics.refresh(landing.ledger, List.of(CLICKS));
      PrometheusText before = PrometheusText.parseOf(metrics.scrape());
      assertThat(before.value("files2iceberg_batcher_files", "state", "recorded", "table", CLICKS)).isEqualTo(4);
      assertThat(before.value("files2iceberg_batcher_files", "state", "ingested", "table", CLICKS)).isZero();
      assertThat(before.value("files2iceberg_batcher_oldest_ready_partition_age_seconds", "table", CLICKS))
          .isBetween(300.0, 330.0);

      RunSummary summary = runner.runOnce();

      assertThat(summary.failed()).as(landing::jobLogs).isEmpty();
      assertThat(summary.errors()).isEmpty();
      assertThat(summary.committed()).extracting(BatchCommitted::table).containsExactly(CLICKS, CLICKS);

      // Oldest partition first, at most two files each; the split partition's rest goes with p2.
      List<BatchClaimed> clicksClaims = events(seen, BatchClaimed.class, CLICKS);
      assertThat(clicksClaims).extracting(BatchClaimed::partitions).containsExactly(List.of("p1"), List.of("p1", "p2"));
      assertThat(clicksClaims).extracting(BatchClaimed::files).containsExactly(2, 2);

      // One batch at a time per table: each claim follows the previous batch's commit, and an
      // exclusive claim during a job gets nothing.
      List<String> clicksOrder = seen.stream().map(Seen::event).filter(e -> e.table().equals(CLICKS))
          .map(e -> e.getClass().getSimpleName()).toList();
      assertThat(clicksOrder).containsExactly("BatchClaimed", "BatchLaunched", "BatchCommitted",
          "BatchClaimed", "BatchLaunched", "BatchCommitted");
      assertThat(claimWhileInFlight).hasSize(2).allSatisfy((batch, claim) -> assertThat(claim).isEmpty());

      // The metrics lines, parsed: the second batch inserted 3 and 4 and updated 1.
      List<BatchCommitted> clicksCommits = events(seen, BatchCommitted.class, CLICKS);
      assertThat(clicksCommits.get(0).report().metrics().rowsInserted()).isEqualTo(2);
      assertThat(clicksCommits.get(1).report().metrics().rowsInserted()).isEqualTo(2);
      assertThat(clicksCommits.get(1).report().metrics().rowsUpdated()).isEqualTo(1);
      assertThat(summary.rowsWritten()).isEqualTo(5);

      // The ledger: everything ingested, the last batch committed with its snapshot; with
      // keep-checkpoints = 1 the first committed batch is pruned.
      String first = clicksCommits.get(0).batchId();
      String second = clicksCommits.get(1).batchId();
      TableStatus clicks = landing.ledger.tableStatus(CLICKS);
      assertThat(clicks.partitionsByState()).isEqualTo(Map.of(PartitionState.INGESTED, 2L));
      assertThat(clicks.filesByState()).isEqualTo(Map.of(FileState.INGESTED, 4L));
      assertThat(clicks.inFlight()).isEmpty();
      assertThat(clicks.lastCommitted()).get().satisfies(batch -> {
        assertThat(batch.batchId()).isEqualTo(second);
        assertThat(batch.state()).isEqualTo(BatchState.COMMITTED);
        assertThat(batch.snapshotId()).contains(clicksCommits.get(1).report().snapshotId());
      });
      assertThat(landing.ledger.batch(first)).isEmpty();

      // The same, scraped from /prometheus over HTTP after the run: the counters follow the
      // settled batches, the gauges what the ledger now says.
      metrics.record(summary);
      metrics.refresh(landing.ledger, List.of(CLICKS));
      PrometheusText scraped;
      try (MetricsEndpoint endpoint = MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), metrics::scrape, () -> true)) {
        scraped = PrometheusText.scrape(endpoint.uri());
      }
      assertThat(scraped.status()).isEqualTo(200);
      assertThat(scraped.contentType()).startsWith("text/plain");
      assertThat(scraped.value("files2iceberg_batcher_files", "state", "ingested", "table", CLICKS)).isEqualTo(4);
      assertThat(scraped.value("files2iceberg_batcher_files", "state", "recorded", "table", CLICKS)).isZero();
      assertThat(scraped.value("files2iceberg_batcher_oldest_ready_partition_age_seconds", "table", CLICKS)).isZero();
      assertThat(scraped.value("files2iceberg_batcher_batches_total", "outcome", "committed", "table", CLICKS))
          .isEqualTo(2);
      assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "inserted", "table", CLICKS))
          .isEqualTo(4);
      assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "updated", "table", CLICKS)).isEqualTo(1);
      assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "deleted", "table", CLICKS)).isZero();
      assertThat(scraped.value("files2iceberg_batcher_rows_total", "change", "rejected", "table", CLICKS)).isZero();
      long lagged = clicksCommits.stream().filter(c -> c.report().metrics().lagMillis() > 0).count();
      assertThat(scraped.value("files2iceberg_batcher_lag_seconds_count", "table", CLICKS)).isEqualTo(lagged);
      assertThat(scraped.value("files2iceberg_batcher_lag_seconds_bucket", "table", CLICKS, "le", "+Inf"))
          .isEqualTo(lagged);
      assertThat(scraped.samples()).containsKey("files2iceberg_batcher_lag_seconds_bucket{table=\"" + CLICKS
          + "\",le=\"300.0\"}");

      // The manifest of each batch is under the profile's metadata path; what its job logged, the
      // metrics line included, is in the warm driver's log.
      Path metadata = landing.home.metadata("clicks");
      assertThat(metadata.resolve("batches").resolve(second + ".json")).isRegularFile();
      Path log = launcher.driverFolder().resolve(WarmRequest.DRIVER_LOG);
      assertThat(log).isRegularFile();
      assertThat(Files.readString(log)).contains(clicksCommits.get(1).report().toMetricsLine());

      // Nothing READY: the next run claims nothing.
      RunSummary idle = runner.runOnce();
      assertThat(idle.committed()).isEmpty();
      assertThat(idle.failed()).isEmpty();

      // Tables run in parallel, except that two tables of one SQLite catalog take turns: views
      // (its own catalog) overlaps the local tables' jobs, clicks and likes (both in local) do not.
      seen.clear();
      landing.land("views", "p1", 1, 100);
      landing.land("clicks", "p3", 1, 5);
      landing.land("likes", "p1", 1, 200);
      RunSummary parallel = runner.runOnce();
      assertThat(parallel.failed()).as(landing::jobLogs).isEmpty();
      assertThat(parallel.committed()).extracting(BatchCommitted::table)
          .containsExactlyInAnyOrder(CLICKS, VIEWS, LIKES);
      Instant viewsLaunched = at(seen, BatchLaunched.class, VIEWS, 0);
      Instant viewsCommitted = at(seen, BatchCommitted.class, VIEWS, 0);
      Instant firstLocalLaunched = min(at(seen, BatchLaunched.class, CLICKS, 0), at(seen, BatchLaunched.class, LIKES, 0));
      Instant firstLocalCommitted = min(at(seen, BatchCommitted.class, CLICKS, 0), at(seen, BatchCommitted.class, LIKES, 0));
      assertThat(viewsLaunched).isBefore(firstLocalCommitted);
      assertThat(firstLocalLaunched).isBefore(viewsCommitted);
      Instant secondLocalLaunched = max(at(seen, BatchLaunched.class, CLICKS, 0), at(seen, BatchLaunched.class, LIKES, 0));
      assertThat(secondLocalLaunched).isAfter(firstLocalCommitted);
      String third = events(seen, BatchCommitted.class, CLICKS).get(0).batchId();
      long thirdSnapshot = events(seen, BatchCommitted.class, CLICKS).get(0).report().snapshotId();
      assertThat(landing.ledger.batch(second)).isEmpty();

      // status, human and JSON.
      StatusReport report = StatusReport.read(landing.ledger, Optional.of(landing.registry()), Optional.empty(),
          Clock.systemUTC());
      String human = StatusFormat.human(report);
      assertThat(human.lines().findFirst().orElseThrow()).startsWith("TABLE").contains("PARTITIONS", "FILES",
          "IN FLIGHT", "LAST COMMIT", "LAG");
      assertThat(human).contains(CLICKS + "  ingested 3", "ingested 5", third + " snapshot " + thirdSnapshot);
      assertThat(human).doesNotContain("FAILED");
      JsonNode clicksJson = JsonLinesOutput.of("table_status", JsonLinesOutput.parse(StatusFormat.json(report))).get(0);
      assertThat(clicksJson.get("table").asText()).isEqualTo(CLICKS);
      assertThat(clicksJson.get("profile").asText()).isEqualTo("clicks");
      assertThat(clicksJson.get("mode").asText()).isEqualTo("incremental");
      assertThat(clicksJson.at("/partitions/ingested").asLong()).isEqualTo(3);
      assertThat(clicksJson.at("/files/ingested").asLong()).isEqualTo(5);
      assertThat(clicksJson.get("inFlight")).isEmpty();
      assertThat(clicksJson.at("/lastCommit/batchId").asText()).isEqualTo(third);
      assertThat(clicksJson.at("/lastCommit/snapshotId").asText()).isEqualTo(Long.toString(thirdSnapshot));
      assertThat(clicksJson.get("lagSeconds").isNull()).isTrue();
      assertThat(clicksJson.get("failedPartitions")).isEmpty();

      // The rows, read back from the table: every id once, id 1 updated by p2's file.
      assertThat(IcebergRows.joined(TableRows.rows(landing, CLICKS),
          row -> row.get("id") + "=" + row.get("amount") + "@" + row.get("partition")))
          .isEqualTo("1=999@p2,2=20@p1,3=30@p1,4=40@p2,5=50@p3");
      assertThat(TableRows.rows(landing, VIEWS)).hasSize(1);
    }
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  static <E extends BatchEvent> List<E> events(List<Seen> seen, Class<E> type, String table) {
    return seen.stream().map(Seen::event).filter(type::isInstance).map(type::cast)
        .filter(e -> e.table().equals(table)).toList();
  }

  private static Instant at(List<Seen> seen, Class<? extends BatchEvent> type, String table, int index) {
    return seen.stream().filter(s -> type.isInstance(s.event()) && s.event().table().equals(table))
        .map(Seen::at).toList().get(index);
  }
}
