package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.EventLines;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.core.profile.Home;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, {@code bin/files2iceberg demo}, on a fresh home: every click lands
 * once in its newest version, a late file re-opens its day and lands once, and a second run
 * changes nothing.
 */
class DemoEndToEndTest {
  @TempDir Path root;

  private record Run(int code, String out, String err) {}

  /** The demo with stdout and stderr as one, as a terminal shows them; or, with {@code --json}, apart. */
  private Run demo(Path home, String... more) {
    StringWriter out = new StringWriter();
    StringWriter err = more.length == 0 ? out : new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    List<String> args = new java.util.ArrayList<>(List.of("demo", "--home", home.toString()));
    args.addAll(List.of(more));
    int code = commandLine.execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void demoLandsEveryClickOnceInItsNewestVersionAndASecondRunWithJsonReportsNothingChanged() throws Exception {
    Path home = root.resolve("home");

    Run first = demo(home);

    assertThat(first.code()).as(first.out()).isZero();
    assertThat(first.out())
        .contains("[demo] posted 12 notifications (3 markers): 9 recorded, 3 partition_ready")
        .contains("[demo] a late file lands in dt=2026-11-27 after that day was loaded: part-3.parquet")
        .contains("[demo] posted 1 notification: 1 recorded")
        .contains("4 batches committed")
        .contains("[demo] table local.demo.clicks: 3 partitions ingested (10 files), current snapshot ");
    assertThat(first.out().lines().filter(line -> line.contains(" committed: snapshot "))).hasSize(4);
    String snapshot = currentSnapshot(first.out());

    Run second = demo(home, "--json");

    assertThat(second.code()).as(second.err()).isZero();
    assertThat(second.err()).doesNotContain("error:");
    // JSON lines, each valid against its schema, read back unchanged by jq, the summary last.
    List<JsonNode> events = EventLines.parse(second.out());
    assertThat(JsonLinesOutput.jq(second.out(), "-c", ".")).isEqualTo(second.out());
    assertThat(EventLines.kinds(events)).containsExactly("started", "sample_data_found", "profile_written",
        "listener_started", "posted", "clicks", "clicks", "clicks", "snapshot", "snapshot", "snapshot", "snapshot",
        "table", "summary");
    assertThat(events.get(1).get("landing").asText()).isEqualTo(home.resolve("demo/landing").toString());
    JsonNode posted = EventLines.of("posted", events).get(0);
    assertThat(posted.get("posted").asInt()).isEqualTo(13);
    assertThat(posted.get("markers").asInt()).isEqualTo(3);
    assertThat(posted.get("outcomes").toString()).isEqualTo("{\"duplicate\":13}");
    assertThat(EventLines.of("summary", events).get(0).get("batchesCommitted").asInt()).isZero();
    JsonNode table = EventLines.of("table", events).get(0);
    assertThat(table.get("table").asText()).isEqualTo("local.demo.clicks");
    assertThat(table.get("snapshotId").asText()).isEqualTo(snapshot);
    assertThat(JsonLinesOutput.jq(second.out(), "-r", "select(.event == \"table\") | .snapshotId").strip())
        .isEqualTo(snapshot);
    assertThat(table.at("/partitions/ingested").asInt()).isEqualTo(3);
    assertThat(table.at("/files/ingested").asInt()).isEqualTo(10);
    assertThat(EventLines.of("clicks", events)).extracting(e -> e.get("dt").asText())
        .containsExactly("2026-11-27", "2026-11-28", "2026-11-29");
    List<JsonNode> snapshots = EventLines.of("snapshot", events);
    assertThat(snapshots.get(3).get("snapshotId").asText()).isEqualTo(snapshot);
    assertThat(snapshots).extracting(e -> e.get("batchId").asText()).doesNotHaveDuplicates();

    String landing = "parquet.`" + home.resolve("demo/landing/clicks").toUri() + "`";
    List<JsonNode> result = SqlQueries.sql(new Home(home),
        "SELECT count(*) AS n, count(DISTINCT click_id) AS ids FROM local.demo.clicks",
        // Every click of the landing folder with a user, once.
        "SELECT count(DISTINCT click_id) AS expected FROM " + landing + " WHERE user_id != ''",
        // Each in its newest version: the highest click_time, with its url.
        "SELECT count(*) AS stale FROM local.demo.clicks t JOIN (SELECT click_id, max(click_time) AS newest, "
            + "max_by(url, click_time) AS url FROM " + landing + " GROUP BY click_id) s ON t.click_id = s.click_id "
            + "WHERE t.click_time <> s.newest OR t.url <> s.url",
        "SELECT count(*) AS corrected FROM local.demo.clicks WHERE url LIKE '%src=%'",
        "SELECT count(*) AS snapshots, count(DISTINCT summary['files2iceberg.batch-id']) AS batches, "
            + "max_by(snapshot_id, committed_at) AS current FROM local.demo.clicks.snapshots");

    long rows = result.get(0).get("n").asLong();
    assertThat(result.get(0).get("ids").asLong()).isEqualTo(rows);
    assertThat(result.get(1).get("expected").asLong()).isEqualTo(rows);
    assertThat(result.get(2).get("stale").asLong()).isZero();
    assertThat(result.get(3).get("corrected").asLong()).isGreaterThan(20);
    assertThat(result.get(4).get("snapshots").asLong()).isEqualTo(4);
    assertThat(result.get(4).get("batches").asLong()).isEqualTo(4);
    assertThat(result.get(4).get("current").asText()).isEqualTo(snapshot);
  }

  private static String currentSnapshot(String out) {
    Matcher matcher = Pattern.compile("current snapshot (-?\\d+)").matcher(out);
    assertThat(matcher.find()).as(out).isTrue();
    return matcher.group(1);
  }
}
