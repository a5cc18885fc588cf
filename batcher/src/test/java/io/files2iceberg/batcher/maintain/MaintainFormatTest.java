package io.files2iceberg.batcher.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
      + "\"retainLast\":1,\"protected\":[],\"notInTable\":[],\"compaction\":null,\"expiredSnapshots\":[],"
      + "\"deletedFiles\":0,\"snapshotsBefore\":1,\"snapshotsAfter\":1}}";

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
  void jsonListsSkippedTablesApartFromTheMaintainedOnes() throws Exception {
    String json = MaintainFormat.json(List.of(parsed(MAINTAINED_LINE), parsed(SKIPPED_LINE)), List.of(),
        Map.of("local.demo.orders", "table local.demo.orders: maintenance failed: ..."));

    JsonNode root = new ObjectMapper().readTree(json);
    assertThat(root.fieldNames()).toIterable().containsExactly("tables", "skipped", "refused", "failed");
    assertThat(root.path("tables").size()).isEqualTo(1);
    assertThat(root.path("tables").get(0).path("table").asText()).isEqualTo("local.demo.clicks");
    assertThat(root.path("skipped").toString()).isEqualTo("[{\"table\":\"local.demo.views\",\"reason\":\"not created"
        + " yet\",\"detail\":\"no batch has loaded it\"}]");
    assertThat(root.path("failed").get(0).path("table").asText()).isEqualTo("local.demo.orders");
  }
}
