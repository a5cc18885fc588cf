package io.files2iceberg.sparkjob.change;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.change.ChangeSummary.RowCounts;
import io.files2iceberg.sparkjob.load.CommitMarker;
import io.files2iceberg.sparkjob.sql.TestSessions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The change feed of real Iceberg tables in the embedded catalog, through {@link ChangesMain}'s
 * command line: batches' commits with their partitions and counts, a rollback naming what it
 * undid, snapshots files2iceberg did not write counted but not listed, an unknown start refused.
 * Each test has a table of its own; one session for the class.
 */
class ChangesMainTest {
  @TempDir static Path root;
  static Home home;
  static SparkSession spark;
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void session() {
    home = new Home(root);
    spark = TestSessions.embedded(home);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.feed");
  }

  /** A table partitioned by {@code dt}, and one batch per entry, each inserting one row per partition it names. */
  static List<Long> tableWithBatches(String table, Map<String, List<String>> batches) throws Exception {
    spark.sql("CREATE TABLE " + table + " (id INT, dt STRING) USING iceberg PARTITIONED BY (dt)");
    List<Long> snapshots = new ArrayList<>();
    int id = 0;
    for (Map.Entry<String, List<String>> batch : batches.entrySet()) {
      List<String> rows = new ArrayList<>();
      for (String partition : batch.getValue()) {
        rows.add("(" + id++ + ", '" + partition + "')");
      }
      Map<String, String> summary = new LinkedHashMap<>();
      summary.put(CommitMarker.BATCH_ID, batch.getKey());
      summary.putAll(ChangeSummary.partitions(batch.getValue()));
      summary.putAll(ChangeSummary.rows(new RowCounts(rows.size(), 0, 0)));
      String sql = "INSERT INTO " + table + " VALUES " + String.join(", ", rows);
      CommitMetadata.withCommitProperties(summary, () -> spark.sql(sql), RuntimeException.class);
      snapshots.add(load(table).currentSnapshot().snapshotId());
      Thread.sleep(5); // distinct commit times, as batches minutes apart have
    }
    return snapshots;
  }

  static Table load(String table) throws Exception {
    Table loaded = Spark3Util.loadIcebergTable(spark, table);
    loaded.refresh();
    return loaded;
  }

  static Map<String, List<String>> threeBatches() {
    Map<String, List<String>> batches = new LinkedHashMap<>();
    batches.put("b-1", List.of("2026-12-01"));
    batches.put("b-2", List.of("2026-12-01", "2026-12-02"));
    batches.put("b-3", List.of("2026-12-03"));
    return batches;
  }

  /** Exit code, the result body ({@code null} when none), stderr. */
  record Ran(int exit, JsonNode result, String stderr) {
    List<JsonNode> changes() {
      List<JsonNode> all = new ArrayList<>();
      result.path("changes").forEach(all::add);
      return all;
    }
  }

  static Ran changes(String table, String... since) throws Exception {
    TableProfile profile = ProfileLoader.parse("extract.path = \"file:///landing/f/*.json\"\nextract.format = json\n"
        + "load.iceberg.table = \"" + table + "\"\n", Path.of("f.conf"), home);
    Path result = Files.createTempFile(root, "changes", ".json");
    List<String> args = new ArrayList<>(List.of("--profile", ProfileJson.toJson(profile), "--result",
        result.toString()));
    args.addAll(List.of(since));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = ChangesMain.run(spark, ChangesRequest.parse(args.toArray(String[]::new)),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String stdout = out.toString(StandardCharsets.UTF_8);
    assertThat(stdout.lines().toList()).as("one line on stdout").hasSize(1);
    assertThat(Files.readString(result).strip()).as("the result file holds stdout's line").isEqualTo(stdout.strip());
    return new Ran(exit, JSON.readTree(stdout).get(ChangesMain.RESULT_KEY), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void changesAfterTheFirstBatchAreTheOtherTwoCommitsWithTheirPartitionsAndCounts() throws Exception {
    List<Long> snapshots = tableWithBatches("local.feed.three", threeBatches());

    Ran ran = changes("local.feed.three", "--since-snapshot", Long.toString(snapshots.get(0)));

    assertThat(ran.exit()).as(ran.stderr()).isZero();
    List<JsonNode> changes = ran.changes();
    assertThat(changes).extracting(c -> c.get("batchId").asText()).containsExactly("b-2", "b-3");
    JsonNode second = changes.get(0);
    assertThat(second.get("kind").asText()).isEqualTo("change");
    assertThat(second.get("change").asText()).isEqualTo("commit");
    assertThat(second.get("snapshotId").asText()).isEqualTo(snapshots.get(1).toString());
    assertThat(second.get("parentSnapshotId").asText()).isEqualTo(snapshots.get(0).toString());
    assertThat(second.get("operation").asText()).isEqualTo("append");
    assertThat(second.get("partitions")).extracting(JsonNode::asText).containsExactly("2026-12-01", "2026-12-02");
    assertThat(second.get("partitionCount").asInt()).isEqualTo(2);
    assertThat(second.get("partitionsTruncated").asBoolean()).isFalse();
    assertThat(second.get("inserted").asLong()).isEqualTo(2);
    assertThat(second.get("updated").asLong()).isZero();
    assertThat(second.get("deleted").asLong()).isZero();
    assertThat(Instant.parse(second.get("committedAt").asText()))
        .isEqualTo(Instant.ofEpochMilli(load("local.feed.three").snapshot(snapshots.get(1)).timestampMillis()));
    assertThat(ran.result().get("other").asInt()).isZero();
    assertThat(ran.result().get("currentSnapshotId").asText()).isEqualTo(snapshots.get(2).toString());
  }

  @Test
  void changesSinceATimeStartAfterIt() throws Exception {
    List<Long> snapshots = tableWithBatches("local.feed.timed", threeBatches());
    Instant first = Instant.ofEpochMilli(load("local.feed.timed").snapshot(snapshots.get(0)).timestampMillis());

    Ran ran = changes("local.feed.timed", "--since", first.toString());

    assertThat(ran.exit()).as(ran.stderr()).isZero();
    assertThat(ran.changes()).extracting(c -> c.get("batchId").asText()).containsExactly("b-2", "b-3");
    assertThat(changes("local.feed.timed", "--since", first.minusSeconds(1).toString()).changes())
        .extracting(c -> c.get("batchId").asText()).containsExactly("b-1", "b-2", "b-3");
  }

  @Test
  void rollbackIsListedNamingTheBatchesItUndid() throws Exception {
    List<Long> snapshots = tableWithBatches("local.feed.rolled", threeBatches());
    load("local.feed.rolled").manageSnapshots().rollbackTo(snapshots.get(0)).commit();

    // A reader that saw batch 3 last.
    Ran ran = changes("local.feed.rolled", "--since-snapshot", Long.toString(snapshots.get(2)));

    assertThat(ran.exit()).as(ran.stderr()).isZero();
    List<JsonNode> changes = ran.changes();
    assertThat(changes).extracting(c -> c.get("change").asText()).containsExactly("rollback");
    JsonNode rollback = changes.get(0);
    assertThat(rollback.get("fromSnapshotId").asText()).isEqualTo(snapshots.get(2).toString());
    assertThat(rollback.get("toSnapshotId").asText()).isEqualTo(snapshots.get(0).toString());
    assertThat(rollback.get("snapshotId").asText()).isEqualTo(snapshots.get(0).toString());
    assertThat(rollback.get("undone")).extracting(u -> u.get("batchId").asText()).containsExactly("b-3", "b-2");
    assertThat(rollback.get("undone").get(1).get("partitions")).extracting(JsonNode::asText)
        .containsExactly("2026-12-01", "2026-12-02");

    // From the start, the rollback comes after the commits it undid.
    Instant start = Instant.ofEpochMilli(load("local.feed.rolled").snapshot(snapshots.get(0)).timestampMillis());
    assertThat(changes("local.feed.rolled", "--since", start.minusSeconds(1).toString()).changes())
        .extracting(c -> c.get("change").asText()).containsExactly("commit", "commit", "commit", "rollback");
    // A reader that saw batch 1 last sees the table as it left it: after its last time at that snapshot, nothing.
    assertThat(changes("local.feed.rolled", "--since-snapshot", Long.toString(snapshots.get(0))).changes()).isEmpty();
  }

  @Test
  void unknownSnapshotIsRefusedNamingIt() throws Exception {
    tableWithBatches("local.feed.unknown", threeBatches());

    Ran ran = changes("local.feed.unknown", "--since-snapshot", "42");

    assertThat(ran.exit()).isEqualTo(2);
    assertThat(ran.stderr().strip()).isEqualTo("files2iceberg: table local.feed.unknown: snapshot 42 is unknown or"
        + " expired: it is neither in the table's snapshot log nor among its snapshots; start from a snapshot the"
        + " feed listed, or with --since TIME");
    assertThat(ran.result().get("refused").asText()).contains("snapshot 42 is unknown or expired");
  }

  @Test
  void snapshotFilesIcebergDidNotWriteIsCountedNotListed() throws Exception {
    List<Long> snapshots = tableWithBatches("local.feed.maintained", threeBatches());
    spark.sql("CALL local.system.rewrite_data_files(table => 'feed.maintained', options => map('rewrite-all', 'true',"
        + " 'min-input-files', '1'))").collectAsList();
    spark.sql("INSERT INTO local.feed.maintained VALUES (99, '2026-12-09')");
    assertThat(load("local.feed.maintained").currentSnapshot().snapshotId()).isNotEqualTo(snapshots.get(2));

    Ran ran = changes("local.feed.maintained", "--since-snapshot", Long.toString(snapshots.get(1)));

    assertThat(ran.exit()).as(ran.stderr()).isZero();
    assertThat(ran.changes()).extracting(c -> c.get("batchId").asText()).containsExactly("b-3");
    assertThat(ran.result().get("other").asInt()).isEqualTo(2);
  }
}
