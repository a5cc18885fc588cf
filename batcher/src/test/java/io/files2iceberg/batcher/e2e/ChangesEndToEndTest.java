package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.core.manifest.BatchLoadReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code changes} on the embedded default, with real Spark child JVMs: two batches of a keyed
 * table, the first over two partitions, then the feed as a person and a downstream job read it
 * (each JSON line valid against docs/reference/json/changes.schema.json), and an unknown start refused.
 */
class ChangesEndToEndTest {
  private static final String TABLE = "local.e2e.feed";
  private static final Path SCHEMA = Path.of("..", "docs", "reference", "json", "changes.schema.json");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path root;
  static EmbeddedDeployment deployment;
  static Instant before;
  static List<BatchLoadReport> batches;

  @BeforeAll
  static void twoBatches() throws Exception {
    deployment = new EmbeddedDeployment(root, Map.of("feed", """
        extract {
          path = "file://LANDING/feed/dt=*/*.json"
          format = json
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = "yyyy-MM-dd"
          }
        }
        load {
          iceberg.table = local.e2e.feed
          primary-key = [id]
          partition-by = [dt]
        }
        job.spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
        """));
    before = Instant.now().minusSeconds(1);
    deployment.write("feed/dt=2026-12-01/part-0.json", row("a", 1) + row("b", 2));
    deployment.write("feed/dt=2026-12-01/_SUCCESS", "");
    deployment.write("feed/dt=2026-12-02/part-0.json", row("c", 3));
    deployment.write("feed/dt=2026-12-02/_SUCCESS", "");
    deployment.notifyListener();
    List<BatchEvent> events = EmbeddedDeployment.events();
    deployment.runner("feed", events).runOnce();
    // The second batch updates b and inserts d, in one partition.
    deployment.write("feed/dt=2026-12-02/part-1.json", row("b", 20) + row("d", 4));
    deployment.notifyListener();
    deployment.runner("feed", events).runOnce();
    batches = events.stream().filter(BatchCommitted.class::isInstance).map(e -> ((BatchCommitted) e).report())
        .toList();
    assertThat(batches).hasSize(2);
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  private static String row(String id, int amount) {
    return "{\"id\":\"" + id + "\",\"amount\":" + amount + "}\n";
  }

  /** {@code changes} as a user runs it; returns the exit code, stdout and stderr. */
  private static String[] changes(String... options) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    List<String> args = new ArrayList<>(List.of("changes", "--config", deployment.profiles.resolve("feed.conf")
        .toString(), "--home", deployment.home.root().toString(), "--table", TABLE));
    args.addAll(List.of(options));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  /** Every line of stdout, each valid against the published schema. */
  static List<JsonNode> validLines(String stdout) throws Exception {
    JsonSchema schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
        .getSchema(JSON.readTree(Files.readString(SCHEMA)));
    List<JsonNode> lines = new ArrayList<>();
    for (String line : stdout.lines().toList()) {
      JsonNode object = JSON.readTree(line);
      assertThat(schema.validate(object)).as("%s against %s", line, SCHEMA).isEmpty();
      lines.add(object);
    }
    return lines;
  }

  @Test
  void feedAsJsonListsBothBatchesWithTheirPartitionsAndTheCountsOfTheirReports() throws Exception {
    String[] ran = changes("--since", before.toString(), "--json");

    assertThat(ran[0]).as(ran[2]).isEqualTo("0");
    List<JsonNode> lines = validLines(ran[1]);
    assertThat(lines).extracting(l -> l.path("kind").asText()).containsExactly("change", "change", "changes_summary");
    for (int i = 0; i < 2; i++) {
      JsonNode commit = lines.get(i);
      BatchLoadReport report = batches.get(i);
      assertThat(commit.path("change").asText()).isEqualTo("commit");
      assertThat(commit.path("batchId").asText()).isEqualTo(report.batchId());
      assertThat(commit.path("snapshotId").asText()).isEqualTo(Long.toString(report.snapshotId()));
      assertThat(commit.path("inserted").asLong()).isEqualTo(report.metrics().rowsInserted());
      assertThat(commit.path("updated").asLong()).isEqualTo(report.metrics().rowsUpdated());
      assertThat(commit.path("deleted").asLong()).isEqualTo(report.metrics().rowsDeleted());
    }
    assertThat(lines.get(0).path("partitions")).extracting(JsonNode::asText).containsExactly("2026-12-01", "2026-12-02");
    assertThat(lines.get(0).path("inserted").asLong()).isEqualTo(3);
    assertThat(lines.get(1).path("partitions")).extracting(JsonNode::asText).containsExactly("2026-12-02");
    assertThat(lines.get(1).path("updated").asLong()).isEqualTo(1);
    JsonNode summary = lines.get(2);
    assertThat(summary.path("changes").asInt()).isEqualTo(2);
    assertThat(summary.path("currentSnapshotId").asText()).isEqualTo(Long.toString(batches.get(1).snapshotId()));
  }

  @Test
  void feedAfterTheFirstSnapshotIsALineForTheSecondBatch() {
    String[] ran = changes("--since-snapshot", Long.toString(batches.get(0).snapshotId()));

    assertThat(ran[0]).as(ran[2]).isEqualTo("0");
    assertThat(ran[1].lines().toList()).hasSize(2);
    assertThat(ran[1].lines().findFirst().orElseThrow()).matches("\\S+Z  commit  batch " + batches.get(1).batchId()
        + "  snapshot " + batches.get(1).snapshotId() + "  1 partition \\(2026-12-02\\)  \\+1 ~1 -0");
    assertThat(ran[1]).contains(TABLE + ": 1 change(s) after snapshot " + batches.get(0).snapshotId()
        + "; current snapshot " + batches.get(1).snapshotId());
  }

  @Test
  void unknownSnapshotIsRefusedWithExitTwoNamingIt() {
    String[] ran = changes("--since-snapshot", "42");

    assertThat(ran[0]).isEqualTo("2");
    assertThat(ran[1]).isEmpty();
    assertThat(ran[2]).contains("error: table " + TABLE + ": snapshot 42 is unknown or expired");
  }

  @Test
  void bothStartsAreRefusedBeforeAnythingRuns() {
    String[] ran = changes("--since-snapshot", "42", "--since", "1d");

    assertThat(ran[0]).isEqualTo("2");
    assertThat(ran[2]).contains("--since-snapshot", "--since");
  }
}
