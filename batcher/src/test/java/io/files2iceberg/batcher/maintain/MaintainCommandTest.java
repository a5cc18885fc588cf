package io.files2iceberg.batcher.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code maintain}'s usage errors, which are reported before any ledger or Spark work, and the
 * failure of a run (the runs that maintain or skip a table are in {@code e2e.MaintainEndToEndTest}).
 */
class MaintainCommandTest {
  @TempDir Path home;
  @TempDir Path config;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  private Path profile() throws Exception {
    return Files.writeString(config.resolve("clicks.conf"), """
        extract.path = "file:///landing/clicks/dt=*/*.json"
        extract.format = json
        load.iceberg.table = local.demo.clicks
        """);
  }

  @Test
  void helpListsEveryOption() {
    assertThat(run("maintain", "--help")).isZero();
    assertThat(out.toString()).contains("--config", "--table", "--retention", "--retain-last", "--[no-]compact",
        "--target-file-size", "--min-input-files", "--timeout", "--batch-files-retention", "--dry-run", "--json",
        "--home", "--sort", "--rewrite-position-deletes", "--rewrite-manifests", "--remove-orphan-files",
        "--orphan-older-than", "--skip-table");
  }

  @Test
  void withoutConfigItIsAUsageError() {
    assertThat(run("maintain", "--home", home.toString())).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("error: missing required option: '--config=FILE|DIR'");
  }

  @Test
  void aRetentionThatIsNoDurationIsAUsageErrorNamingTheOption() throws Exception {
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--retention", "week");

    assertThat(code).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("--retention: expected a duration with a unit, such as 90s, 30m or 2h, got"
        + " 'week'");
  }

  @Test
  void aBatchFilesRetentionOfZeroIsAUsageErrorNamingTheOption() throws Exception {
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--batch-files-retention",
        "0s");

    assertThat(code).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("error: invalid value for option '--batch-files-retention': must be longer"
        + " than zero, got '0s'");
  }

  @Test
  void anOrphanAgeBelowADayIsAUsageErrorSayingWhy() throws Exception {
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--remove-orphan-files",
        "--orphan-older-than", "2h");

    assertThat(code).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("--orphan-older-than: must be at least 1d, got 2h: a batch's job writes its"
        + " data files before it commits them, and a job in flight or relaunched by recovery may still commit files"
        + " that old");
  }

  @Test
  void theMainIsAskedForEveryActionWithTheOrphanCutoffFromNow() {
    Instant now = Instant.parse("2026-12-06T03:00:00Z");
    MaintainRun.Options options = new MaintainRun.Options(Duration.ofDays(7), 1, false, true,
        new MaintainRun.Compaction(1 << 20, 2), true, true, java.util.Optional.of(Duration.ofDays(3)), false,
        Duration.ofHours(2));

    List<String> args = MaintainRun.arguments(profileOf(), io.files2iceberg.core.profile.DeploymentLoader.defaults(
        new io.files2iceberg.core.profile.Home(home)), new MaintenanceGuard.Allowed(java.util.Map.of(), 2), options,
        now, "file:///r.json");

    assertThat(args).doesNotContain("--compact").containsSubsequence("--sort", "--target-file-size", "1048576",
        "--min-input-files", "2", "--rewrite-position-deletes", "--rewrite-manifests", "--remove-orphans-older-than",
        "2026-12-03T03:00:00Z");
  }

  private io.files2iceberg.core.profile.TableProfile profileOf() {
    try {
      return io.files2iceberg.core.profile.ProfileLoader.load(profile(), new io.files2iceberg.core.profile.Home(home));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void retainLastBelowOneIsAUsageError() throws Exception {
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--retain-last", "0");

    assertThat(code).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("--retain-last: must be at least 1 (the current snapshot), got 0");
  }

  @Test
  void aTableNoProfileLoadsIsAUsageErrorNamingIt() throws Exception {
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--table",
        "local.demo.views");

    assertThat(code).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("error: no profile of " + config.resolve("clicks.conf") + " loads table"
        + " local.demo.views");
  }

  @Test
  void aSkippedTableNoProfileLoadsIsAUsageErrorNamingIt() throws Exception {
    // A typo in a schedule's --skip-table would otherwise maintain the very table it meant to spare.
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--skip-table",
        "local.demo.clickz");

    assertThat(code).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("error: --skip-table local.demo.clickz: no profile of "
        + config.resolve("clicks.conf") + " loads that table");
  }

  @Test
  void theSameTableToMaintainAndToSkipIsAUsageErrorSayingSo() throws Exception {
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--table",
        "local.demo.clicks", "--skip-table", "local.demo.clicks");

    assertThat(code).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains("error: --table local.demo.clicks is also given to --skip-table: nothing"
        + " to maintain");
  }

  @Test
  void skippingEveryTableDoesNothingAndSaysSo() throws Exception {
    // Every table on a schedule of its own: the default schedule's run has nothing to do, and is no failure.
    int code = run("maintain", "--config", profile().toString(), "--home", home.toString(), "--skip-table",
        "local.demo.clicks");

    assertThat(code).isZero();
    assertThat(err.toString()).contains("nothing to maintain: --skip-table leaves out every table of "
        + config.resolve("clicks.conf"));
  }

  @Test
  void aCatalogThatCannotBeReachedFailsNamingTheTableTheJobsErrorAndItsLog() throws Exception {
    // A real child JVM: the maintenance main cannot open the catalog's database (its folder does
    // not exist); that is a failure, not a table not created yet.
    Path unreachable = home.resolve("no-such-folder").resolve("catalog.db");
    Path profile = Files.writeString(config.resolve("events.conf"), """
        extract.path = "file:///landing/events/*.json"
        extract.format = json
        load.iceberg.table = broken.demo.events
        catalog.uri = "jdbc:sqlite:%s"
        """.formatted(unreachable));

    // Beside the table's manifests: the files of a batch the ledger does not hold, old and recent, and another file.
    Path batches = Files.createDirectories(home.resolve("metadata").resolve("events").resolve("batches"));
    Path old = Files.writeString(batches.resolve("20261101T120000-1a2b3c4d.json"), "{}");
    Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofDays(8))));
    Path recent = Files.writeString(batches.resolve("20261101T130000-5e6f7a8b-attempt1.result.json"), "{}");
    Files.setLastModifiedTime(recent, FileTime.from(Instant.now().minus(Duration.ofDays(6))));
    Path other = Files.writeString(batches.resolve("notes.txt"), "");
    Files.setLastModifiedTime(other, FileTime.from(Instant.now().minus(Duration.ofDays(8))));

    int code = run("maintain", "--config", profile.toString(), "--home", home.toString(), "--no-compact", "--json");

    assertThat(code).as(err.toString()).isEqualTo(ExitCode.FAILED);
    String failure = "table broken.demo.events: maintenance failed: files2iceberg: table broken.demo.events"
        + " maintenance failed: Cannot reach catalog broken: Failed to connect: jdbc:sqlite:" + unreachable;
    assertThat(err.toString()).contains("maintain broken.demo.events: started pid ", "error: " + failure,
        "(log: " + home.resolve("logs").resolve("maintain-"));
    List<JsonNode> lines = JsonLinesOutput.parse(out.toString());
    assertThat(JsonLinesOutput.kinds(lines)).containsExactly("maintain_failed", "maintain_batch_files",
        "maintain_summary");
    assertThat(lines.get(0).path("table").asText()).isEqualTo("broken.demo.events");
    assertThat(lines.get(0).path("message").asText()).startsWith(failure);
    // The failed maintenance does not keep the batch files of the table from being pruned.
    assertThat(lines.get(1).path("deleted").asInt()).isEqualTo(1);
    assertThat(old).doesNotExist();
    assertThat(recent).exists();
    assertThat(other).exists();
    assertThat(lines.get(2).toString()).isEqualTo("{\"kind\":\"maintain_summary\",\"maintained\":0,\"skipped\":0,"
        + "\"refused\":0,\"failed\":1,\"batchFilesDeleted\":1,\"batchFilesFailed\":0}");
  }

  @Test
  void targetFileSizesTakeBinaryUnits() {
    assertThat(MaintainCommand.bytes("512MB")).isEqualTo(512L << 20);
    assertThat(MaintainCommand.bytes("128m")).isEqualTo(128L << 20);
    assertThat(MaintainCommand.bytes("1GiB")).isEqualTo(1L << 30);
    assertThat(MaintainCommand.bytes("4096")).isEqualTo(4096);
    assertThatThrownBy(() -> MaintainCommand.bytes("big"))
        .hasMessage("--target-file-size: expected a size such as 512MB, 128m or 1g, got 'big'");
  }
}
