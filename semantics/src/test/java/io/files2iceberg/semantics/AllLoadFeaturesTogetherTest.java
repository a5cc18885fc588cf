package io.files2iceberg.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.semantics.ParquetFiles.Column;
import io.files2iceberg.semantics.ParquetFiles.Kind;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every feature of issue 15 at once, on the embedded default: change-data deletes ({@code
 * load.cdc}, an op column of I/U/D, with tombstones), rescued data, the four lineage columns, and
 * batches packed and split by {@code max-batch-size} and {@code max-batch-bytes}, over files of
 * several days that insert, update and delete the same keys across files and batches, with a value
 * that fails its cast (rescued), a row without a key (rejected) and a late, older insert of a
 * deleted key. The profile passes {@code validate}; the table read back through Iceberg's generic
 * reader equals the table computed by plain Spark SQL over the fixture files (the newest change per
 * key, deletes dropped); {@code history --json} gives each file's batch, snapshot and row counts,
 * which equal those counted by SQL over the same files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AllLoadFeaturesTogetherTest {
  private static final String TABLE = Deployment.NAMESPACE + "combined";
  private static final List<Column> COLUMNS = List.of(new Column("id", Kind.INT), new Column("op", Kind.STRING),
      new Column("seq", Kind.INT), new Column("name", Kind.STRING), new Column("amount", Kind.STRING));
  private static final ObjectMapper JSON = new ObjectMapper();

  private Path dir;
  private Deployment deployment;
  private Instant started;
  private long maxBatchBytes;
  private int validateExit;
  private String validateOutput;
  private final List<RunSummary> runs = new ArrayList<>();
  /** The fixture's data files, by their path. */
  private final List<Path> fixture = new ArrayList<>();

  @BeforeAll
  void runScenario() throws Exception {
    started = Instant.now().minusSeconds(1);
    dir = Files.createTempDirectory("semantics-combined");
    Path landing = dir.resolve("landing");
    // Day 1 and day 2 are small partitions of one file each; day 3 is three files.
    ParquetFiles early = new ParquetFiles(dir.resolve("staging-early"));
    Path a = land(early, landing, "2024-01-01", "a.parquet",
        row(1, "I", 1, "alice", "10"), row(2, "I", 1, "bob", "20"), row(3, "I", 1, "carol", "30"));
    Path b = land(early, landing, "2024-01-02", "b.parquet",
        row(1, "U", 2, "alice2", "ten"), row(null, "I", 1, "nokey", "5"), row(4, "I", 1, "dave", "40"));
    Path c1 = land(early, landing, "2024-01-03", "c1.parquet", row(2, "D", 3, null, null));
    land(early, landing, "2024-01-03", "c2.parquet", row(3, "U", 2, "carol2", "33"), row(5, "I", 1, "erin", "50"));
    land(early, landing, "2024-01-03", "c3.parquet",
        row(5, "D", 2, null, null), row(4, "U", 2, "dave2", "forty-four"));
    // A batch holds days 1 and 2 whole, and not day 3's first file: day 3 is split.
    maxBatchBytes = Files.size(a) + Files.size(b) + Files.size(c1) / 2;

    validateProfiles(landing);
    deployment = new Deployment(dir, Map.of("combined", profile()));
    for (String day : List.of("2024-01-01", "2024-01-02", "2024-01-03")) {
      deployment.marker("combined", "dt=" + day);
    }
    run();

    // Later: an insert of the deleted key 2, older than its delete, lands late in day 1 (loaded
    // INGESTED, so it reopens); day 4 updates key 1 again and inserts key 6.
    fixture.add(deployment.write("combined", "dt=2024-01-01", "late.parquet", COLUMNS,
        List.<Object[]>of(row(2, "I", 2, "bob-late", "21"))));
    fixture.add(deployment.write("combined", "dt=2024-01-04", "d.parquet", COLUMNS,
        List.of(row(1, "U", 3, "alice3", "13"), row(6, "I", 1, "frank", "60"))));
    deployment.marker("combined", "dt=2024-01-04");
    run();
  }

  private Path land(ParquetFiles files, Path landing, String day, String name, Object[]... rows) {
    Path path = files.write(landing.resolve("combined").resolve("dt=" + day).resolve(name), COLUMNS, List.of(rows));
    fixture.add(path);
    return path;
  }

  private String profile() {
    return """
        extract {
          path = "file://LANDING/combined/dt=*/*.parquet"
          format = parquet
          max-batch-size = 3
          max-batch-bytes = %d
          lineage-columns = [_source_file, _source_generation, _batch_id, _ingested_at]
          batch-file {
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        transform {
          cast.columns { amount = INT }
          rescued-data-column = _rescued_data
          on-bad-record = reject
        }
        load {
          iceberg.table = "%s"
          primary-key = [id]
          iceberg.precombine-field = seq
          cdc { op-column = op, delete-values = ["D"] }
        }
        job {
          master = "local[2]"
          spark-properties {
            "spark.ui.enabled" = "false"
            "spark.sql.shuffle.partitions" = "2"
          }
        }
        """.formatted(maxBatchBytes, TABLE);
  }

  /** {@code validate} of the profile, as a user runs it before the first load. */
  private void validateProfiles(Path landing) throws IOException {
    Path profiles = Files.createDirectories(dir.resolve("validate"));
    Files.writeString(profiles.resolve("combined.conf"), profile().replace("LANDING", landing.toString()));
    StringWriter out = new StringWriter();
    picocli.CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(out, true));
    validateExit = commandLine.execute("validate", "--config", profiles.toString(), "--home",
        dir.resolve("validate-home").toString());
    validateOutput = out.toString();
  }

  private void run() throws InterruptedException {
    deployment.scan();
    runs.add(deployment.runOnce());
  }

  @AfterAll
  void close() throws IOException {
    Deployment.closeAndDelete(deployment, dir);
  }

  @Test
  void theProfileWithEveryFeaturePassesValidate() {
    assertThat(validateExit).as(validateOutput).isZero();
  }

  @Test
  void everyRunCommitsWithoutFailure() {
    assertThat(runs).allSatisfy(run -> assertThat(run.isClean()).as(run.describe()).isTrue());
    assertThat(deployment.jobs.ran()).hasSizeGreaterThanOrEqualTo(3);
  }

  @Test
  void theTableReadThroughIcebergEqualsTheNewestChangePerKeyComputedBySqlOverTheFiles() throws Exception {
    // Expected, independently: plain Spark SQL over the fixture files.
    fixtureView("combined_fixture");
    List<Row> expectedRows = deployment.spark.sql("""
        SELECT id, seq, name, try_cast(amount AS INT) AS amount,
               CASE WHEN amount IS NOT NULL AND try_cast(amount AS INT) IS NULL THEN amount END AS rescued_amount,
               f, regexp_extract(f, 'dt=([0-9-]+)/', 1) AS dt
        FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY seq DESC) AS rn
              FROM combined_fixture WHERE id IS NOT NULL)
        WHERE rn = 1 AND op <> 'D'
        ORDER BY id""").collectAsList();
    List<String> expected = new ArrayList<>();
    for (Row r : expectedRows) {
      Path file = Path.of(URI.create(r.getString(5)));
      expected.add(line(r.getInt(0), r.getInt(1), r.getString(2), r.isNullAt(3) ? null : r.getInt(3),
          r.isNullAt(4) ? null : r.getString(4), file, LocalDate.parse(r.getString(6)),
          Files.getLastModifiedTime(file).to(TimeUnit.MICROSECONDS)));
    }
    // The same fixture by hand: keys 2 and 5 deleted (2's late insert is older than its delete),
    // key 4's amount rescued.
    assertThat(expectedRows).extracting(r -> r.getInt(0)).containsExactly(1, 3, 4, 6);

    List<Map<String, Object>> stored = deployment.rows("combined");
    List<String> actual = new ArrayList<>();
    for (Map<String, Object> row : stored) {
      Object rescued = row.get("_rescued_data");
      String rescuedAmount = null;
      if (rescued != null) {
        JsonNode json = JSON.readTree(rescued.toString());
        rescuedAmount = json.get("amount").asText();
        assertThat(Path.of(URI.create(json.get("_file_path").asText())))
            .isEqualTo(Path.of(URI.create(row.get("_source_file").toString())));
      }
      actual.add(line((Integer) row.get("id"), (Integer) row.get("seq"), (String) row.get("name"),
          (Integer) row.get("amount"), rescuedAmount, Path.of(URI.create(row.get("_source_file").toString())),
          (LocalDate) row.get("dt"), (Long) row.get("_source_generation")));
    }
    actual.sort(Comparator.naturalOrder());
    expected.sort(Comparator.naturalOrder());
    assertThat(actual).containsExactlyElementsOf(expected);
    assertThat(stored.get(0).keySet()).containsExactlyInAnyOrder("id", "seq", "name", "amount", "_rescued_data", "dt",
        "_source_file", "_source_generation", "_batch_id", "_ingested_at");
  }

  @Test
  void eachRowsBatchIsTheSnapshotBatchThatLoadedItsFileAndTheKeylessRowIsRejected() throws Exception {
    Map<String, JsonNode> history = historyByPath();
    Table table = Spark3Util.loadIcebergTable(deployment.spark, TABLE);
    Map<String, Long> snapshotOfBatch = new HashMap<>();
    for (Snapshot snapshot : table.snapshots()) {
      String batch = snapshot.summary().get("files2iceberg.batch-id");
      if (batch != null) {
        snapshotOfBatch.put(batch, snapshot.snapshotId());
      }
    }
    for (Map<String, Object> row : deployment.rows("combined")) {
      JsonNode load = history.get(Path.of(URI.create(row.get("_source_file").toString())).toString());
      assertThat(row.get("_batch_id")).as("row %s", row).isEqualTo(load.get("batchId").asText());
      assertThat(snapshotOfBatch).containsKey(row.get("_batch_id").toString());
      assertThat(row.get("_ingested_at")).isNotNull();
    }

    List<Map<String, Object>> rejected = deployment.rows("combined__rejected");
    assertThat(rejected).hasSize(1);
    assertThat(Path.of(URI.create(rejected.get(0).get("source_file").toString())))
        .isEqualTo(fixture.get(1));
  }

  @Test
  void historyGivesEachFilesBatchSnapshotAndTheRowsReadRejectedAndRescuedThatSqlCounts() throws Exception {
    fixtureView("combined_counts");
    Map<String, String> expected = new TreeMap<>();
    for (Row r : deployment.spark.sql("""
        SELECT f, count(*),
               sum(CASE WHEN id IS NULL THEN 1 ELSE 0 END),
               sum(CASE WHEN id IS NOT NULL AND amount IS NOT NULL AND try_cast(amount AS INT) IS NULL
                   THEN 1 ELSE 0 END)
        FROM combined_counts GROUP BY f""").collectAsList()) {
      expected.put(Path.of(URI.create(r.getString(0))).toString(),
          "ingested read " + r.getLong(1) + " rejected " + r.getLong(2) + " rescued " + r.getLong(3));
    }

    Map<String, JsonNode> history = historyByPath();
    Map<String, String> actual = new TreeMap<>();
    history.forEach((path, load) -> actual.put(path, load.get("state").asText() + " read " + load.get("rowsRead")
        + " rejected " + load.get("rowsRejected") + " rescued " + load.get("rowsRescued")));
    assertThat(actual).isEqualTo(expected);
    // b.parquet has a rejected row, a.parquet none.
    assertThat(actual.get(fixture.get(1).toString())).isEqualTo("ingested read 3 rejected 1 rescued 1");
    assertThat(actual.get(fixture.get(0).toString())).isEqualTo("ingested read 3 rejected 0 rescued 0");

    // Each file's snapshot is the one whose summary names its batch (Iceberg's API).
    Table table = Spark3Util.loadIcebergTable(deployment.spark, TABLE);
    table.refresh();
    for (JsonNode load : history.values()) {
      Snapshot snapshot = table.snapshot(load.get("snapshotId").asLong());
      assertThat(snapshot).as("snapshot of %s", load).isNotNull();
      assertThat(snapshot.summary().get("files2iceberg.batch-id")).isEqualTo(load.get("batchId").asText());
    }
  }

  @Test
  void batchesPackSmallPartitionsAndSplitTheLargeOneWithinBothCaps() throws Exception {
    Map<String, List<JsonNode>> byBatch = new TreeMap<>();
    for (JsonNode load : historyByPath().values()) {
      byBatch.computeIfAbsent(load.get("batchId").asText(), k -> new ArrayList<>()).add(load);
    }
    Set<String> day3Batches = new HashSet<>();
    boolean packed = false;
    for (List<JsonNode> files : byBatch.values()) {
      long bytes = 0;
      Set<String> partitions = new HashSet<>();
      for (JsonNode file : files) {
        bytes += Files.size(Path.of(URI.create(file.get("uri").asText())));
        partitions.add(file.get("partition").asText());
        if (file.get("partition").asText().equals("2024-01-03")) {
          day3Batches.add(file.get("batchId").asText());
        }
      }
      assertThat(files).hasSizeLessThanOrEqualTo(3);
      if (files.size() > 1) {
        assertThat(bytes).as("batch of %s", files).isLessThanOrEqualTo(maxBatchBytes);
      }
      packed |= partitions.size() > 1;
    }
    assertThat(packed).as("a batch of several partitions: %s", byBatch).isTrue();
    assertThat(day3Batches).as("day 3 split: %s", byBatch).hasSizeGreaterThan(1);
  }

  /**
   * The fixture's Parquet files as a view, read by Spark alone (no partition inference from the
   * {@code dt=} folders), with each row's file URI in {@code f}.
   */
  private void fixtureView(String name) {
    deployment.spark.read().option("recursiveFileLookup", "true").option("pathGlobFilter", "*.parquet")
        .parquet(deployment.landing.resolve("combined").toString())
        .withColumn("f", functions.input_file_name())
        .createOrReplaceTempView(name);
  }

  /** {@code history --json} since the scenario began, each file's load by its local path. */
  private Map<String, JsonNode> historyByPath() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    picocli.CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exit = commandLine.execute("history", "--table", TABLE, "--since", started.toString(), "--json", "--home",
        deployment.home.root().toString());
    assertThat(exit).as(err.toString()).isZero();
    Map<String, JsonNode> byPath = new TreeMap<>();
    // JSON lines: a file_load per load, then the history_summary.
    for (String line : out.toString().lines().toList()) {
      JsonNode load = JSON.readTree(line);
      if (!load.get("kind").asText().equals("file_load")) {
        continue;
      }
      JsonNode earlier = byPath.put(Path.of(URI.create(load.get("uri").asText())).toString(), load);
      assertThat(earlier).as("one load per file: %s", load).isNull();
    }
    assertThat(byPath.keySet()).containsExactlyInAnyOrderElementsOf(fixture.stream().map(Path::toString).toList());
    return byPath;
  }

  private static String line(Integer id, Integer seq, String name, Integer amount, String rescuedAmount, Path file,
      LocalDate dt, Long generation) {
    return id + "|" + seq + "|" + name + "|" + amount + "|" + rescuedAmount + "|" + file + "|" + dt + "|" + generation;
  }

  private static Object[] row(Integer id, String op, int seq, String name, String amount) {
    return new Object[] {id, op, seq, name, amount};
  }
}
