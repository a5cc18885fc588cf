package io.files2iceberg.batcher.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The summary and {@code --json} of a table the main skipped, from the result line it prints
 * (the line {@code sparkjob.maintain.TableMaintenanceTest} asserts), beside a maintained one.
 */
class MaintainFormatTest {
  private static final String SKIPPED_LINE = "{\"files2iceberg-maintain\":{\"table\":\"local.demo.views\","
      + "\"dryRun\":false,\"skipped\":{\"reason\":\"not created yet\",\"detail\":\"no batch has loaded it\"}}}";
  private static final String MAINTAINED_LINE = "{\"files2iceberg-maintain\":{\"table\":\"local.demo.clicks\","
      + "\"dryRun\":false,\"retentionCutoff\":\"2026-11-23T16:13:22Z\",\"olderThan\":\"2026-11-23T16:13:22Z\","
      + "\"retainLast\":1,\"protected\":[],\"notInTable\":[],\"compaction\":null,\"sort\":null,"
      + "\"positionDeletes\":null,\"manifests\":null,\"expiredSnapshots\":[],\"deletedFiles\":0,"
      + "\"snapshotsBefore\":1,\"snapshotsAfter\":1,\"orphanFiles\":null}}";

  /** Every action's result, as the main prints it (the line TableMaintenanceTest's reports render). */
  private static final String EVERY_ACTION_LINE = "{\"files2iceberg-maintain\":{\"table\":\"local.demo.clicks\","
      + "\"dryRun\":false,\"retentionCutoff\":\"2026-11-23T16:13:22Z\",\"olderThan\":\"2026-11-23T16:13:22Z\","
      + "\"retainLast\":1,\"protected\":[],\"notInTable\":[],\"compaction\":null,"
      + "\"sort\":{\"order\":\"id DESC NULLS LAST\",\"from\":\"maintain.sort-by\",\"rewrittenFiles\":4,"
      + "\"addedFiles\":1,\"rewrittenBytes\":4096,\"snapshotId\":9007199254740997},"
      + "\"positionDeletes\":{\"rewrittenFiles\":3,\"addedFiles\":1,\"rewrittenBytes\":2048,\"snapshotId\":null},"
      + "\"manifests\":{\"rewrittenFiles\":6,\"addedFiles\":1,\"rewrittenBytes\":40000,"
      + "\"snapshotId\":9007199254740999},\"expiredSnapshots\":[],\"deletedFiles\":0,\"snapshotsBefore\":3,"
      + "\"snapshotsAfter\":3,\"orphanFiles\":{\"olderThan\":\"2026-11-20T16:13:22Z\",\"removedFiles\":2,"
      + "\"files\":[\"file:/w/demo/clicks/data/a.parquet\",\"file:/w/demo/clicks/data/b.parquet\"]}}}";

  @Test
  void eachActionIsALineWithItsCounts() {
    assertThat(MaintainFormat.human(parsed(EVERY_ACTION_LINE))).isEqualTo("""
        local.demo.clicks
          protected 0 snapshot(s)
          sorted by id DESC NULLS LAST (maintain.sort-by): 4 file(s) into 1 (4096 bytes), snapshot 9007199254740997
          rewrote 3 position delete file(s) into 1 (2048 bytes)
          rewrote 6 manifest(s) into 1 (40000 bytes), snapshot 9007199254740999
          expired 0 snapshot(s) older than 2026-11-23T16:13:22Z (retention cutoff 2026-11-23T16:13:22Z, retain last 1)
          snapshots: 3 before, 3 after; 0 file(s) deleted
          removed 2 orphan file(s) older than 2026-11-20T16:13:22Z
        """);
  }

  @Test
  void aDryRunSaysWhatEachActionWouldTakeAndListsTheOrphans() {
    String dry = EVERY_ACTION_LINE.replace("\"dryRun\":false", "\"dryRun\":true")
        .replace("\"removedFiles\":2", "\"removedFiles\":3");

    assertThat(MaintainFormat.human(parsed(dry))).contains("""
          would sort 4 file(s) by id DESC NULLS LAST (maintain.sort-by), 4096 bytes
          would rewrite 3 position delete file(s), 2048 bytes
          would rewrite 6 manifest(s), 40000 bytes
        """, """
          would remove 3 orphan file(s) older than 2026-11-20T16:13:22Z
            file:/w/demo/clicks/data/a.parquet
            file:/w/demo/clicks/data/b.parquet
            ... and 1 more
        """);
  }

  @Test
  void aSortWithoutAnOrderIsALineSayingWhatToSet() {
    String skipped = EVERY_ACTION_LINE.replaceAll("\"sort\":\\{[^}]*}", "\"sort\":{\"skipped\":\"table"
        + " local.demo.clicks has no sort order: set maintain.sort-by\"}");

    assertThat(MaintainFormat.human(parsed(skipped)))
        .contains("\n  sort skipped: table local.demo.clicks has no sort order: set maintain.sort-by\n");
  }

  @Test
  void jsonKeepsEachActionsCountsWithItsSnapshotIdsAsStrings() {
    List<JsonNode> lines = JsonLinesOutput.parse(MaintainFormat.json(List.of(parsed(EVERY_ACTION_LINE)), List.of(),
        Map.of(), List.of()));

    JsonNode maintained = JsonLinesOutput.one("maintained", lines);
    assertThat(maintained.path("sort").toString()).isEqualTo("{\"order\":\"id DESC NULLS LAST\","
        + "\"from\":\"maintain.sort-by\",\"rewrittenFiles\":4,\"addedFiles\":1,\"rewrittenBytes\":4096,"
        + "\"snapshotId\":\"9007199254740997\"}");
    assertThat(maintained.path("positionDeletes").path("rewrittenFiles").asLong()).isEqualTo(3);
    assertThat(maintained.at("/manifests/snapshotId").textValue()).isEqualTo("9007199254740999");
    assertThat(maintained.at("/orphanFiles/removedFiles").asLong()).isEqualTo(2);
  }

  private static MaintainResult parsed(String line) {
    return MaintainResult.fromLine(line).orElseThrow();
  }

  @Test
  void aSkippedTableIsOneLineNamingWhy() {
    MaintainResult skipped = parsed(SKIPPED_LINE);

    assertThat(skipped.skipped()).contains(new MaintainResult.Skipped("not created yet", "no batch has loaded it"));
    assertThat(MaintainFormat.human(skipped))
        .isEqualTo("local.demo.views: skipped, not created yet (no batch has loaded it)\n");
    assertThat(parsed(MAINTAINED_LINE).skipped()).isEmpty();
    assertThat(MaintainFormat.human(parsed(MAINTAINED_LINE))).startsWith("local.demo.clicks\n  protected 0 snapshot(s)");
  }

  @Test
  void jsonIsALinePerTableThenTheSummaryWithSnapshotIdsAsStrings() {
    // 2^53 + 1: a double (jq 1.6, JavaScript) would read it as 9007199254740992.
    String expiring = MAINTAINED_LINE.replace("\"expiredSnapshots\":[]", "\"expiredSnapshots\":[9007199254740993]")
        .replace("\"protected\":[]", "\"protected\":[{\"batchId\":\"b1\",\"snapshotId\":9007199254740995,"
            + "\"committedAt\":\"2026-11-23T16:13:22Z\",\"reason\":\"newest batch of the table\"}]");
    Instant cutoff = Instant.parse("2026-11-23T16:13:22Z");
    String json = MaintainFormat.json(List.of(parsed(expiring), parsed(SKIPPED_LINE)), List.of(),
        Map.of("local.demo.orders", "table local.demo.orders: maintenance failed: ..."),
        List.of(new BatchFilePruning.Pruned("local.demo.clicks", false, cutoff, 12, Map.of()),
            new BatchFilePruning.Pruned("local.demo.views", false, cutoff, 0, Map.of()),
            new BatchFilePruning.Pruned("local.demo.orders", false, cutoff, 3,
                Map.of("gs://lake-metadata/orders/batches/20261101T000000-1a2b3c4d.json", "cannot delete: 403"))));

    List<JsonNode> lines = JsonLinesOutput.parse(json);
    assertThat(JsonLinesOutput.kinds(lines)).containsExactly("maintained", "maintain_skipped", "maintain_failed",
        "maintain_batch_files", "maintain_batch_files", "maintain_batch_files", "maintain_summary");
    assertThat(lines.get(0).path("table").asText()).isEqualTo("local.demo.clicks");
    assertThat(lines.get(0).path("expiredSnapshots").toString()).isEqualTo("[\"9007199254740993\"]");
    assertThat(lines.get(0).at("/protected/0/snapshotId").textValue()).isEqualTo("9007199254740995");
    assertThat(lines.get(1).toString()).isEqualTo("{\"kind\":\"maintain_skipped\",\"table\":\"local.demo.views\","
        + "\"reason\":\"not created yet\",\"detail\":\"no batch has loaded it\"}");
    assertThat(lines.get(2).path("table").asText()).isEqualTo("local.demo.orders");
    assertThat(lines.get(3).toString()).isEqualTo("{\"kind\":\"maintain_batch_files\",\"table\":\"local.demo.clicks\","
        + "\"dryRun\":false,\"settledBefore\":\"2026-11-23T16:13:22Z\",\"deleted\":12,\"failed\":[]}");
    assertThat(lines.get(5).path("failed").toString()).isEqualTo("[{\"file\":\"gs://lake-metadata/orders/batches/"
        + "20261101T000000-1a2b3c4d.json\",\"message\":\"cannot delete: 403\"}]");
    assertThat(lines.get(6).toString()).isEqualTo("{\"kind\":\"maintain_summary\",\"maintained\":1,\"skipped\":1,"
        + "\"refused\":0,\"failed\":1,\"batchFilesDeleted\":15,\"batchFilesFailed\":1}");
  }
}
