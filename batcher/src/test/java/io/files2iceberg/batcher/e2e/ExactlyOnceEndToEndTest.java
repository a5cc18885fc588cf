package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.EventLines;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.local.LandingNotifier.Outcome;
import io.files2iceberg.batcher.local.LandingNotifier.ScanResult;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.engine.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.batcher.engine.BatchRunner;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.BatchManifestCodec;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded default end to end: files in the landing folder, the notifier's real push envelopes
 * to the real listener, the batcher with real Spark child JVMs, rows read back through Iceberg's own reader.
 * Each test has a table of its own; every one checks that each row is in the table exactly once.
 * Batches run in the home's warm driver (the default {@code job.mode}), except those of the test
 * that stops a job of its own between the Iceberg commit and the ledger commit ({@code per-batch}).
 */
class ExactlyOnceEndToEndTest {
  private static final String PARTITIONED = """
        batch-file {
          partition-type = date
          pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
          date-format = "yyyy-MM-dd"
      """;

  private static final String JOB = "job.spark-properties { \"spark.ui.enabled\" = \"false\", "
      + "\"spark.sql.shuffle.partitions\" = \"2\" }\n";

  @TempDir static Path root;
  static EmbeddedDeployment deployment;
  /** The deployment of the batchers that die: a lease of 2 s, so that the tests need not wait long. */
  static Optional<Path> shortLease;
  /** {@link #shortLease} with a Spark child JVM per batch: a job process of its own to stop. */
  static Optional<Path> perBatchShortLease;

  @BeforeAll
  static void start() throws Exception {
    deployment = new EmbeddedDeployment(root, Map.of(
        "deployment", JOB,
        "split", profile("split", "incremental", "max-batch-size = 2"),
        "claimcrash", profile("claimcrash", "incremental", ""),
        "commitcrash", profile("commitcrash", "incremental", ""),
        "last", profile("last", "last", ""),
        "full", profile("full", "full", "")));
    shortLease = Optional.of(Files.writeString(root.resolve("short-lease.conf"), JOB + "job.lease-timeout = 2s\n"));
    perBatchShortLease = Optional.of(Files.writeString(root.resolve("per-batch-short-lease.conf"),
        JOB + "job.lease-timeout = 2s\njob.mode = per-batch\n"));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  /** JSON lines under {@code LANDING/<name>/dt=.../} into {@code local.e2e.<name>}, keyed by id. */
  private static String profile(String name, String mode, String extract) {
    return "extract {\n"
        + "  path = \"file://LANDING/" + name + "/dt=*/*.json\"\n"
        + "  format = json\n"
        + "  " + extract + "\n"
        + PARTITIONED
        + "    ingestion-type = " + mode + "\n"
        + "  }\n"
        + "}\n"
        + "load {\n"
        + "  iceberg.table = local.e2e." + name + "\n"
        + "  primary-key = [id]\n"
        + "  partition-by = [dt]\n"
        + "  iceberg.precombine-field = version\n"
        + "}\n";
  }

  private static String rows(String... rows) {
    return String.join("\n", rows) + "\n";
  }

  private static String row(String id, int version, int amount) {
    return "{\"id\":\"" + id + "\",\"version\":" + version + ",\"amount\":" + amount + "}";
  }

  /** The table's rows in one line: rows, distinct ids, the amount total, and the amounts by id. */
  private static String contents(Home home, String table) {
    return contents(IcebergRows.rows(home, table));
  }

  private static String contents(List<Map<String, Object>> rows) {
    return "{\"n\":" + rows.size() + ",\"ids\":" + IcebergRows.distinct(rows, "id") + ",\"total\":"
        + IcebergRows.sum(rows, "amount") + ",\"amounts\":\"" + amounts(rows) + "\"}";
  }

  private static String amounts(List<Map<String, Object>> rows) {
    return IcebergRows.joined(rows, row -> row.get("id") + "=" + row.get("amount"));
  }

  private static List<BatchCommitted> committed(List<BatchEvent> events) {
    return events.stream().filter(BatchCommitted.class::isInstance).map(BatchCommitted.class::cast).toList();
  }

  @Test
  void partitionWithMoreFilesThanMaxBatchSizeIsSplitAcrossBatchesAndLandsOnce() throws Exception {
    // Its own landing folder and `local --until-idle --json`, as a script runs it.
    deployment.write("split/dt=2026-11-27/part-0.json", rows(row("a1", 1, 1), row("a2", 1, 2)));
    deployment.write("split/dt=2026-11-27/part-1.json", rows(row("a1", 2, 11), row("a3", 1, 3)));
    deployment.write("split/dt=2026-11-27/part-2.json", rows(row("a2", 3, 22), row("a4", 1, 4)));
    deployment.write("split/dt=2026-11-27/part-3.json", rows(row("a4", 0, 99), row("a5", 1, 5)));
    deployment.write("split/dt=2026-11-27/part-4.json", rows(row("a1", 1, 111), row("a6", 1, 6)));
    deployment.write("split/dt=2026-11-27/_SUCCESS", "");
    Path home = root.resolve("home-split");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));

    int code = commandLine.execute("local", "--config", deployment.profiles.resolve("split.conf").toString(),
        "--landing", deployment.landing.resolve("split").toString(), "--home", home.toString(), "--until-idle",
        "--interval", "500ms", "--json");

    assertThat(code).as(out + "\n" + err).isZero();
    List<JsonNode> events = EventLines.parse(out.toString());
    List<String> kinds = EventLines.kinds(events);
    assertThat(kinds.subList(0, 3)).containsExactly("listener_started", "watching", "posted");
    assertThat(kinds.subList(kinds.size() - 2, kinds.size())).containsExactly("table", "summary");
    JsonNode posted = events.get(2);
    assertThat(posted.get("posted").asInt()).isEqualTo(6);
    assertThat(posted.get("markers").asInt()).isEqualTo(1);
    assertThat(posted.get("outcomes").toString()).isEqualTo("{\"recorded\":5,\"partition_ready\":1}");
    // Five files, at most two a batch: three batches, each claimed, launched and committed in turn.
    assertThat(EventLines.of("claimed", events)).extracting(e -> e.get("files").asInt()).containsExactly(2, 2, 1);
    assertThat(EventLines.of("claimed", events)).extracting(e -> e.get("partitions").toString())
        .containsOnly("[\"2026-11-27\"]");
    assertThat(kinds.stream().filter(kind -> kind.equals("claimed") || kind.equals("committed")).toList())
        .containsExactly("claimed", "committed", "claimed", "committed", "claimed", "committed");
    assertThat(EventLines.of("committed", events)).extracting(e -> e.get("batchId").asText())
        .isEqualTo(EventLines.of("claimed", events).stream().map(e -> e.get("batchId").asText()).toList());
    JsonNode summary = EventLines.of("summary", events).get(0);
    assertThat(summary.get("batchesCommitted").asInt()).isEqualTo(3);
    assertThat(summary.get("files").asInt()).isEqualTo(5);
    JsonNode table = EventLines.of("table", events).get(0);
    assertThat(table.get("table").asText()).isEqualTo("local.e2e.split");
    assertThat(table.at("/partitions/ingested").asInt()).isEqualTo(1);
    assertThat(table.at("/files/ingested").asInt()).isEqualTo(5);
    assertThat(table.get("snapshotId").asLong())
        .isEqualTo(EventLines.of("committed", events).get(2).get("snapshotId").asLong());
    // The split table lives in that home: read it there.
    assertThat(contents(new Home(home), "local.e2e.split"))
        .isEqualTo("{\"n\":6,\"ids\":6,\"total\":51,\"amounts\":\"a1=11,a2=22,a3=3,a4=4,a5=5,a6=6\"}");
  }

  @Test
  void batcherKilledBetweenClaimAndLaunchIsRecoveredOnceTheLeaseExpires() throws Exception {
    String table = "local.e2e.claimcrash";
    deployment.write("claimcrash/dt=2026-11-27/part-0.json", rows(row("b1", 1, 1), row("b2", 1, 2), row("b1", 2, 10)));
    deployment.write("claimcrash/dt=2026-11-27/_SUCCESS", "");
    ScanResult scan = deployment.notifyListener();
    assertThat(scan.count(Outcome.PARTITION_READY)).isGreaterThanOrEqualTo(1);
    // A batcher claims the partition and dies before launching anything.
    BatchRecord orphan = deployment.ledger.claimPartitions(new ClaimPartitions(table, 100, Duration.ofSeconds(2), true))
        .orElseThrow();
    Instant leaseEnd = orphan.leaseUntil().orElseThrow();

    List<BatchEvent> early = EmbeddedDeployment.events();
    deployment.runner(deployment.profile("claimcrash", shortLease), early, e -> {}).runOnce();
    assertThat(early).as("the lease still holds: nothing is claimed or recovered").isEmpty();

    TimeUnit.MILLISECONDS.sleep(Math.max(0, Duration.between(Instant.now(), leaseEnd).toMillis()) + 300);
    List<BatchEvent> events = EmbeddedDeployment.events();
    BatchRunner rerun = deployment.runner(deployment.profile("claimcrash", shortLease), events, e -> {});
    RunSummary summary = rerun.runOnce();

    assertThat(summary.isClean()).as(summary.toString()).isTrue();
    assertThat(events).first().isEqualTo(new BatchRecovered(table, orphan.batchId(), 1));
    assertThat(committed(events)).singleElement().extracting(BatchCommitted::batchId).isEqualTo(orphan.batchId());
    assertThat(deployment.ledger.batch(orphan.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
    List<BatchEvent> again = EmbeddedDeployment.events();
    deployment.runner(deployment.profile("claimcrash", shortLease), again, e -> {}).runOnce();
    assertThat(again).isEmpty();
    assertThat(contents(deployment.home, table))
        .isEqualTo("{\"n\":2,\"ids\":2,\"total\":12,\"amounts\":\"b1=10,b2=2\"}");
  }

  @Test
  void batcherKilledBetweenTheIcebergCommitAndTheLedgerCommitIsFinalizedByTheRerun() throws Exception {
    String table = "local.e2e.commitcrash";
    deployment.write("commitcrash/dt=2026-11-27/part-0.json", rows(row("c1", 1, 1), row("c2", 1, 2)));
    deployment.write("commitcrash/dt=2026-11-27/part-1.json", rows(row("c2", 2, 20), row("c3", 1, 3)));
    deployment.write("commitcrash/dt=2026-11-27/_SUCCESS", "");
    deployment.notifyListener();

    // A batcher claims, writes the manifest, marks the batch RUNNING and launches the job, as
    // BatchRunner does, and then dies: nobody settles the batch.
    ProfileRegistry registry = deployment.profile("commitcrash", perBatchShortLease);
    TableProfile profile = registry.profiles().get(0);
    BatchRecord claimed = deployment.ledger.claimPartitions(
        new ClaimPartitions(table, 100, registry.deployment().job().leaseTimeout(), true)).orElseThrow();
    BatchManifest manifest = BatchManifest.of(claimed.batchId(), profile, registry.deployment(), IngestionType.INCREMENTAL, true,
        claimed.createdAt(), deployment.ledger.filesOfBatch(claimed.batchId()));
    Path manifestFile = root.resolve("commitcrash-manifest.json");
    Files.writeString(manifestFile, BatchManifestCodec.toJson(manifest));
    deployment.ledger.markRunning(claimed.batchId(), registry.deployment().job().leaseTimeout());
    LaunchedJob job = deployment.perBatch.launch(manifest, manifestFile.toString(), 1);
    // Another writer holds the ledger's write lock from just after the job opened the ledger: the
    // job's Iceberg commit goes through, its ledger checkpoint cannot.
    Path log = deployment.home.metadata("commitcrash").resolve("logs").resolve(claimed.batchId() + "-attempt1.log");
    Connection lock = lockWhenLogShows(log, "file(s), mode");
    JobResult crashed;
    try {
      crashed = job.await(Duration.ofMinutes(3)).orElseThrow();
    } finally {
      try (Statement statement = lock.createStatement()) {
        statement.execute("ROLLBACK");
      }
      lock.close();
    }
    assertThat(crashed.exit()).as(crashed.describe()).isEqualTo(JobExit.CHECKPOINT_FAILED);
    long snapshotOfTheCrash = crashed.report().orElseThrow().snapshotId();
    assertThat(deployment.ledger.batch(claimed.batchId()).orElseThrow().state()).isEqualTo(BatchState.RUNNING);

    // The re-run, once the dead batcher's lease has expired: the job finds the batch in the table
    // and only finalizes the ledger.
    TimeUnit.MILLISECONDS.sleep(Math.max(0,
        Duration.between(Instant.now(), deployment.ledger.batch(claimed.batchId()).orElseThrow().leaseUntil()
            .orElseThrow()).toMillis()) + 300);
    List<BatchEvent> events = EmbeddedDeployment.events();
    RunSummary rerun = deployment.runner(deployment.profile("commitcrash", perBatchShortLease), events, e -> {})
        .runOnce();

    assertThat(rerun.isClean()).as(rerun.toString()).isTrue();
    assertThat(events).first().isEqualTo(new BatchRecovered(table, claimed.batchId(), 2));
    BatchCommitted done = committed(events).get(0);
    assertThat(done.batchId()).isEqualTo(claimed.batchId());
    assertThat(done.report().alreadyCommitted()).isTrue();
    assertThat(done.report().snapshotId()).isEqualTo(snapshotOfTheCrash);
    BatchRecord finalized = deployment.ledger.batch(claimed.batchId()).orElseThrow();
    assertThat(finalized.state()).isEqualTo(BatchState.COMMITTED);
    assertThat(finalized.snapshotId()).contains(snapshotOfTheCrash);
    assertThat(deployment.ledger.partition(table, "2026-11-27").orElseThrow().state())
        .isEqualTo(PartitionState.INGESTED);
    assertThat(contents(deployment.home, table)).isEqualTo("{\"n\":3,\"ids\":3,\"total\":24,\"amounts\":\"c1=1,c2=20,c3=3\"}");
    List<Snapshot> snapshots = IcebergRows.snapshots(deployment.home, table);
    assertThat(snapshots).hasSize(1);
    assertThat(snapshots).filteredOn(s -> claimed.batchId().equals(s.summary().get("files2iceberg.batch-id"))).hasSize(1);
  }

  @Test
  void modeLastLoadsOnlyTheNewestReadyPartitionAndReplacesTheTable() throws Exception {
    String table = "local.e2e.last";
    deployment.write("last/dt=2026-11-27/part-0.json", rows(row("x1", 1, 1), row("x2", 1, 2)));
    deployment.write("last/dt=2026-11-27/_SUCCESS", "");
    deployment.write("last/dt=2026-11-28/part-0.json", rows(row("x2", 2, 20), row("x3", 1, 3), row("x3", 0, 30)));
    deployment.write("last/dt=2026-11-28/_SUCCESS", "");
    deployment.notifyListener();

    List<BatchEvent> events = EmbeddedDeployment.events();
    deployment.runner("last", events).runOnce();

    assertThat(events).filteredOn(BatchClaimed.class::isInstance).singleElement()
        .satisfies(e -> {
          assertThat(((BatchClaimed) e).mode()).isEqualTo(IngestionType.LAST);
          assertThat(((BatchClaimed) e).partitions()).containsExactly("2026-11-28");
        });
    assertThat(events).filteredOn(PartitionsSuperseded.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((PartitionsSuperseded) e).partitions()).containsExactly("2026-11-27"));
    assertThat(committed(events)).hasSize(1);
    assertThat(deployment.ledger.partition(table, "2026-11-27").orElseThrow().state())
        .isEqualTo(PartitionState.SUPERSEDED);

    deployment.write("last/dt=2026-11-29/part-0.json", rows(row("x4", 1, 4)));
    deployment.write("last/dt=2026-11-29/_SUCCESS", "");
    deployment.notifyListener();
    List<BatchEvent> next = EmbeddedDeployment.events();
    deployment.runner("last", next).runOnce();
    assertThat(committed(next)).hasSize(1);
    List<BatchEvent> idle = EmbeddedDeployment.events();
    deployment.runner("last", idle).runOnce();
    assertThat(idle).isEmpty();

    assertThat(contents(deployment.home, table)).isEqualTo("{\"n\":1,\"ids\":1,\"total\":4,\"amounts\":\"x4=4\"}");
    List<Map<String, Object>> first =
        IcebergRows.rowsAt(deployment.home, table, committed(events).get(0).report().snapshotId());
    assertThat(first).hasSize(2);
    assertThat(amounts(first)).isEqualTo("x2=20,x3=3");
  }

  @Test
  void modeFullReadsEveryFileOfTheGlobAndReplacesTheTableOnEveryRun() throws Exception {
    String table = "local.e2e.full";
    deployment.write("full/dt=2026-11-27/part-0.json", rows(row("y1", 1, 1), row("y2", 1, 2)));
    deployment.write("full/dt=2026-11-27/_SUCCESS", "");
    deployment.write("full/dt=2026-11-28/part-0.json", rows(row("y2", 2, 20), row("y3", 1, 3)));
    deployment.write("full/dt=2026-11-28/_SUCCESS", "");
    // A partition without its marker is not complete: not read.
    deployment.write("full/dt=2026-11-29/part-0.json", rows(row("y9", 1, 900)));

    List<BatchEvent> first = EmbeddedDeployment.events();
    deployment.runner("full", first).runOnce(List.of(table));
    assertThat(first).filteredOn(BatchClaimed.class::isInstance).singleElement()
        .satisfies(e -> {
          BatchClaimed claimed = (BatchClaimed) e;
          assertThat(claimed.mode()).isEqualTo(IngestionType.FULL);
          assertThat(claimed.saveCheckpoint()).isFalse();
          assertThat(claimed.files()).isEqualTo(2);
        });
    assertThat(committed(first)).hasSize(1);

    deployment.write("full/dt=2026-11-28/part-1.json", rows(row("y4", 1, 4), row("y1", 2, 10)));
    List<BatchEvent> second = EmbeddedDeployment.events();
    deployment.runner("full", second).runOnce(List.of(table));
    assertThat(committed(second)).hasSize(1);
    assertThat(second).filteredOn(BatchClaimed.class::isInstance).singleElement()
        .satisfies(e -> assertThat(((BatchClaimed) e).files()).isEqualTo(3));
    assertThat(deployment.ledger.tableStatus(table).lastCommitted()).as("mode full writes no checkpoint").isEmpty();

    assertThat(contents(deployment.home, table))
        .isEqualTo("{\"n\":4,\"ids\":4,\"total\":37,\"amounts\":\"y1=10,y2=20,y3=3,y4=4\"}");
    assertThat(IcebergRows.snapshots(deployment.home, table)).hasSize(2);
  }

  /**
   * Waits until the job's log shows the line, then takes the ledger's write lock ({@code BEGIN
   * IMMEDIATE}) as another process writing for a long time would; returns the connection holding
   * it.
   */
  private static Connection lockWhenLogShows(Path log, String line) {
    Instant deadline = Instant.now().plusSeconds(120);
    try {
      while (Instant.now().isBefore(deadline)) {
        if (Files.exists(log) && Files.readString(log).contains(line)) {
          Connection connection = DriverManager.getConnection("jdbc:sqlite:" + deployment.home.ledgerDb());
          try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA busy_timeout = 30000");
            statement.execute("BEGIN IMMEDIATE");
          }
          return connection;
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
    } catch (Exception e) {
      throw new AssertionError("Cannot take the ledger's lock: " + e, e);
    }
    throw new AssertionError("The job's log " + log + " never showed \"" + line + "\"");
  }
}
