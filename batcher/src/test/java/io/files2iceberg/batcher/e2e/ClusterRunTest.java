package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.local.LandingNotifier.Outcome;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job on a Spark standalone cluster ({@link SparkStandaloneCluster}: a master and two workers,
 * each a JVM of its own), as on Dataproc, where the executors are other machines: the driver is
 * the launcher's child JVM, given only the job's build, the manifest's URI and the deployment's
 * settings ({@code job.master = spark://...}); the executors are the workers' children. Whatever
 * works only when the driver and the executors share a JVM (a setting made only on the driver, a
 * static filled on the driver and read in a task, the job's classes missing on the executors)
 * fails here. Spark's own event log says on which executor each task ran; each executor's log
 * says its process id, which is never the driver's.
 *
 * <p>The batches exercise what runs in tasks: change-data deletes (within a batch and across
 * days), a precombine tie broken by the newer object, a corrupt file quarantined, a column widened
 * from INT to BIGINT and a value that cannot widen kept in the rescued-data column. The first
 * batch runs in a driver JVM of its own ({@code job.mode = per-batch}), the next two in one warm
 * driver on the same cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterRunTest {
  private static final String TABLE = "local.cluster.orders";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path root;
  static SparkStandaloneCluster cluster;
  static EmbeddedDeployment deployment;
  static Path events;
  static Path staged;
  /** Each landed file gets a later modification time than the one before, so a newer generation. */
  static Instant nextWrite = Instant.now().minusSeconds(600);

  @BeforeAll
  static void start() throws Exception {
    // The cluster starts while the listener starts and sql writes the landing files.
    CompletableFuture<SparkStandaloneCluster> starting = SparkStandaloneCluster.sharedStarting();
    deployment = new EmbeddedDeployment(root, Map.of("orders", """
        extract {
          path = "file://LANDING/orders/dt=*/*.parquet"
          format = parquet
          quarantine-bad-files = true
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = "yyyy-MM-dd"
            partition-column = dt
          }
        }
        transform.rescued-data-column = _rescued_data
        load {
          iceberg.table = local.cluster.orders
          primary-key = [id]
          iceberg.precombine-field = ts
          cdc.op-column = op
        }
        """));
    staged = stageFiles();
    cluster = starting.join();
    events = Files.createDirectories(root.resolve("events"));
    // The deployment's job settings, which only the batcher reads: the warm default beside the
    // profiles, and per-batch in a file named apart.
    String job = """
        job {
          master = "%s"
          spark-properties {
            "spark.ui.enabled" = "false"
            "spark.sql.shuffle.partitions" = "2"
            "spark.eventLog.enabled" = "true"
            "spark.eventLog.dir" = "%s"
          }
        }
        """.formatted(cluster.masterUrl(), events.toUri());
    Files.writeString(deployment.profiles.resolve("deployment.conf"), job);
    Files.writeString(root.resolve("per-batch.conf"), job.replace("job {", "job {\n  mode = per-batch"));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  /**
   * The landing files as Parquet with exact column types, written by {@code sql} (a Spark child
   * JVM, local): {@code <staged>/<name>/part-*.parquet}.
   */
  private static Path stageFiles() throws Exception {
    Path folder = Files.createDirectories(root.resolve("staged"));
    Map<String, String> rows = new TreeMap<>(Map.of(
        "d1a", "(1L, 10L, 'I', 5, 'one'), (2L, 10L, 'I', 6, 'two'), (3L, 10L, 'I', 7, 'three')",
        "d1b", "(2L, 20L, 'U', 60, 'two v2'), (3L, 20L, 'D', 7, 'three')",
        "d2a", "(4L, 10L, 'I', 8, 'four'), (5L, 10L, 'I', 9, 'five')",
        "d2b", "(5L, 10L, 'U', 90, 'five, the newer object')",
        "d3a", "(7L, 10L, 'I', 3000000000L, 'seven')",
        "d4a", "(4L, 20L, 'D', 8L, 'four'), (8L, 10L, 'I', 1L, 'eight')",
        "d4b", "(9L, 10L, 'I', 'lots', 'nine')"));
    List<String> statements = new ArrayList<>();
    rows.forEach((name, values) -> statements.add("INSERT OVERWRITE DIRECTORY '" + folder.resolve(name).toUri()
        + "' USING parquet SELECT /*+ COALESCE(1) */ * FROM VALUES " + values + " AS t(id, ts, op, qty, note)"));
    deployment.sql(statements.toArray(String[]::new));
    return folder;
  }

  /** Lands a staged Parquet file as {@code orders/dt=<day>/<name>}, a newer object than any before. */
  private static Path land(String staging, String day, String name) {
    try (Stream<Path> files = Files.list(staged.resolve(staging))) {
      Path part = files.filter(f -> f.getFileName().toString().endsWith(".parquet")).findFirst().orElseThrow();
      return landBytes(day, name, Files.readAllBytes(part));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path landBytes(String day, String name, byte[] content) throws IOException {
    Path file = deployment.landing.resolve("orders/dt=" + day + "/" + name);
    Files.createDirectories(file.getParent());
    Files.write(file, content);
    nextWrite = nextWrite.plusSeconds(1);
    Files.setLastModifiedTime(file, FileTime.from(nextWrite));
    return file;
  }

  private static void markComplete(String day) throws IOException {
    landBytes(day, "_SUCCESS", new byte[0]);
  }

  @Test
  @Order(1)
  void aBatchInADriverOfItsOwnRunsItsTasksOnTheClustersExecutors() throws Exception {
    land("d1a", "2026-12-01", "a.parquet");
    land("d1b", "2026-12-01", "b.parquet");
    land("d2a", "2026-12-02", "a.parquet");
    land("d2b", "2026-12-02", "b.parquet");
    Path corrupt = landBytes("2026-12-02", "bad.parquet",
        "PAR1 this is not a Parquet file PAR1".getBytes(StandardCharsets.US_ASCII));
    markComplete("2026-12-01");
    markComplete("2026-12-02");
    assertThat(deployment.notifyListener().count(Outcome.PARTITION_READY)).isEqualTo(2);
    Set<Path> before = eventLogs();

    ProfileRegistry perBatch = deployment.profile("orders", Optional.of(root.resolve("per-batch.conf")));
    List<BatchEvent> run = EmbeddedDeployment.events();
    deployment.runner(perBatch, run, event -> {}).runOnce();

    BatchCommitted committed = committedOnce(run);
    assertThat(deployment.ledger.filesOfBatch(committed.batchId())).filteredOn(f -> f.uri().endsWith("bad.parquet"))
        .extracting(FileRecord::state).containsExactly(FileState.QUARANTINED);
    // Keys 1, 2, 4 and 5 (3 inserted and deleted in the batch); the rows are read back after the
    // warm driver's batches, below.
    assertThat(committed.report().metrics().rowsInserted()).isEqualTo(4);
    assertThat(committed.report().quarantinedFiles()).hasSize(1);
    assertThat(corrupt).exists();
    long driver = Long.parseLong(Files.readString(pidFile(perBatch, committed.batchId())).strip());
    assertTasksRanOnExecutors(newEventLogs(before), driver, 1);
  }

  @Test
  @Order(2)
  void aWarmDriverTakesTwoBatchesOnTheSameCluster() throws Exception {
    Set<Path> before = eventLogs();
    // A name that is not ASCII and holds a glob's characters: the executors open it as it is.
    Path named = land("d3a", "2026-12-03", "c[1] \u00e9-\u65e5\u672c {x}.parquet");
    markComplete("2026-12-03");
    assertThat(deployment.notifyListener().count(Outcome.PARTITION_READY)).isEqualTo(1);
    List<BatchEvent> first = EmbeddedDeployment.events();
    deployment.runner("orders", first).runOnce();
    assertThat(committedOnce(first).report().metrics().rowsInserted()).as("the rows of %s", named).isEqualTo(1);

    Path rescued = land("d4b", "2026-12-04", "b.parquet");
    land("d4a", "2026-12-04", "a.parquet");
    markComplete("2026-12-04");
    assertThat(deployment.notifyListener().count(Outcome.PARTITION_READY)).isEqualTo(1);
    List<BatchEvent> second = EmbeddedDeployment.events();
    deployment.runner("orders", second).runOnce();
    committedOnce(second);

    assertThat(rows()).containsExactly(
        "1|5|one|2026-12-01|null",
        "2|60|two v2|2026-12-01|null",
        "5|90|five, the newer object|2026-12-02|null",
        "7|3000000000|seven|2026-12-03|null",
        "8|1|eight|2026-12-04|null",
        "9|null|nine|2026-12-04|{\"qty\":\"lots\",\"_file_path\":\"" + rescued.toUri() + "\"}");
    String qtyType = IcebergRows.withTable(deployment.home, TABLE, table -> table.schema().findType("qty").toString());
    assertThat(qtyType).isEqualTo("long");
    long driver = deployment.warmDriverPid().orElseThrow(() -> new AssertionError("no warm driver runs"));
    assertTasksRanOnExecutors(newEventLogs(before), driver, 1);
  }

  /** The table's rows, {@code id|qty|note|dt|_rescued_data} by id, read back through Iceberg's reader. */
  private static List<String> rows() {
    List<String> rows = new ArrayList<>();
    List<Map<String, Object>> read = new ArrayList<>(IcebergRows.rows(deployment.home, TABLE));
    read.sort(Comparator.comparingLong(row -> ((Number) row.get("id")).longValue()));
    for (Map<String, Object> row : read) {
      List<String> values = new ArrayList<>();
      for (String column : List.of("id", "qty", "note", "dt", "_rescued_data")) {
        values.add(String.valueOf(row.get(column)));
      }
      rows.add(String.join("|", values));
    }
    return rows;
  }

  private static BatchCommitted committedOnce(List<BatchEvent> run) {
    List<BatchCommitted> committed = run.stream().filter(BatchCommitted.class::isInstance)
        .map(BatchCommitted.class::cast).toList();
    assertThat(committed).as("the run's events: %s", run).hasSize(1);
    return committed.get(0);
  }

  private static Path pidFile(ProfileRegistry registry, String batchId) {
    Path log = LocalSparkLauncher.logFile(registry.profiles().get(0), deployment.home.root().resolve("logs"),
        batchId, 1);
    return log.resolveSibling(log.getFileName().toString().replace(".log", ".pid"));
  }

  private static Set<Path> eventLogs() throws IOException {
    try (Stream<Path> files = Files.list(events)) {
      return new HashSet<>(files.toList());
    }
  }

  private static List<Path> newEventLogs(Set<Path> before) throws IOException {
    List<Path> added = new ArrayList<>(eventLogs());
    added.removeAll(before);
    return added;
  }

  /**
   * Every task of the applications in these event logs ran on an executor of the cluster (never
   * {@code driver}), in a process that is neither the driver's nor this test's, and tasks ran in
   * both workers' executors.
   */
  private static void assertTasksRanOnExecutors(List<Path> eventLogs, long driverPid, int applications)
      throws IOException {
    assertThat(eventLogs).as("the applications' event logs in %s", events).hasSize(applications);
    Set<Long> pidsWithTasks = new HashSet<>();
    for (Path log : eventLogs) {
      String appId = null;
      List<String> taskExecutors = new ArrayList<>();
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        JsonNode event = JSON.readTree(line);
        switch (event.path("Event").asText()) {
          case "SparkListenerApplicationStart" -> appId = event.path("App ID").asText();
          case "SparkListenerTaskEnd" -> taskExecutors.add(event.path("Task Info").path("Executor ID").asText());
          default -> { }
        }
      }
      assertThat(appId).as("the application id in %s", log).isNotNull();
      assertThat(taskExecutors).as("the tasks of %s", appId).isNotEmpty().doesNotContain("driver");
      Map<String, Long> executors = cluster.executorsOf(appId);
      assertThat(executors.keySet()).as("the executors of %s", appId).containsAll(new HashSet<>(taskExecutors));
      for (String executor : new HashSet<>(taskExecutors)) {
        pidsWithTasks.add(executors.get(executor));
      }
    }
    assertThat(pidsWithTasks).as("the processes that ran tasks").doesNotContain(driverPid,
        ProcessHandle.current().pid()).hasSizeGreaterThanOrEqualTo(SparkStandaloneCluster.WORKERS);
  }
}
