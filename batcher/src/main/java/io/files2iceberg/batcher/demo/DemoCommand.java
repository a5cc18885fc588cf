package io.files2iceberg.batcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JsonEventsOption;
import io.files2iceberg.batcher.engine.launch.ClassDataSharing;
import io.files2iceberg.batcher.local.LocalCommand;
import io.files2iceberg.batcher.local.LocalPipeline;
import io.files2iceberg.batcher.local.PipelineOutput;
import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.batcher.output.EventJson;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.engine.RunOptions;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code demo}: the embedded pipeline end to end on sample data, the README's first command.
 *
 * <p>Writes a landing folder of click data (three days of Parquet files with duplicates and late
 * updates, {@code _SUCCESS} markers last) and its profile under {@code <home>/demo/}, starts the
 * listener, posts the landing folder's files as push notifications, runs the batcher with the local
 * Spark launcher until every partition is ingested, lands one late file for the first day and
 * catches up again, then prints a summary and a query of the table. Run again, it finds the same
 * files: every notification is a duplicate and nothing is committed.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the embedded pipeline end to end on sample click data: landing folder, notifier,",
      "listener, batcher, local Spark job, Iceberg table, then a summary and a query.",
      "Everything lives under the home (<home>/demo/ holds the sample data and its profile);",
      "a second run finds nothing new and changes nothing. Exit 0 when every partition is ingested."
    })
public final class DemoCommand extends CliCommand {
  static final String PREFIX = "[demo]";
  static final String COUNT_QUERY = "SELECT dt, count(*) AS clicks, count(DISTINCT user_id) AS users "
      + "FROM local.demo.clicks GROUP BY dt ORDER BY dt";
  static final String SNAPSHOT_QUERY = "SELECT snapshot_id, summary['files2iceberg.batch-id'] AS batch_id, "
      + "operation, CAST(summary['total-records'] AS BIGINT) AS table_rows "
      + "FROM local.demo.clicks.snapshots ORDER BY committed_at";

  @Mixin HomeOption home;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "15m",
      converter = DurationConverter.class,
      description = "The longest the demo waits for the table to catch up (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin JsonEventsOption json;

  @Override
  public Integer call() throws Exception {
    // The first command a newcomer runs does not pay for writing the class-data archives as its
    // JVMs exit (they run as without sharing until another command has written them).
    return ClassDataSharing.readOnlyWhile(this::run);
  }

  private Integer run() throws Exception {
    PrintWriter out = out();
    PrintWriter err = err();
    PipelineOutput output = PipelineOutput.of(json.json(), out, err, PREFIX);
    Instant started = Instant.now();
    Home resolved = home.resolve();
    DemoLanding demo = new DemoLanding(resolved);
    AtomicBoolean stop = LocalCommand.interruptOnStop();
    output.fact("home " + resolved.root(), () -> EventJson.event("started").put("home", resolved.root().toString()));
    SparkMain spark = SparkMain.locate(System.getenv(), resolved.root());
    Path profile = demo.writeProfile();
    if (demo.isWritten()) {
      output.fact("landing folder " + demo.landing() + " holds the sample data already",
          () -> EventJson.event("sample_data_found").put("landing", demo.landing().toString()));
    } else {
      output.say("writing " + DemoLanding.DAYS + " days of sample click data (Parquet, _SUCCESS markers last) into "
          + demo.landing());
      SparkMain.Result written = spark.run(SparkMain.WRITE_DEMO_LANDING, demo.writerArguments(), Duration.ofMinutes(10));
      if (!written.isSuccess()) {
        ErrorOutput.print(err, "writing the sample data failed (exit " + written.exitCode() + "):"
            + System.lineSeparator() + written.stderr().strip());
        return ExitCode.FAILED;
      }
      output.event(() -> EventJson.event("sample_data_written").put("landing", demo.landing().toString())
          .put("days", DemoLanding.DAYS));
    }
    output.fact("profile " + profile + " loads them into " + DemoLanding.TABLE,
        () -> EventJson.event("profile_written").put("profile", profile.toString()).put("table", DemoLanding.TABLE));

    ProfileRegistry profiles;
    try {
      profiles = ProfileRegistry.load(demo.profiles(), resolved);
    } catch (ProfileException e) {
      ErrorOutput.print(err, e.getMessage());
      return ExitCode.INVALID;
    }
    List<PartitionRecord> failed;
    Optional<Long> firstSnapshot = Optional.empty();
    Optional<LocalPipeline> opened = LocalPipeline.startHere(profiles, demo.profiles(), resolved, demo.landing(),
        new RunOptions(1, Duration.ofMinutes(30)), output, err);
    if (opened.isEmpty()) {
      return ExitCode.INVALID;
    }
    try (LocalPipeline pipeline = opened.get()) {
      Duration interval = Duration.ofSeconds(1);
      failed = pipeline.catchUp(interval, timeout).failedPartitions();
      Optional<Path> late = demo.landLateFile(Clock.systemUTC());
      if (late.isPresent() && failed.isEmpty()) {
        String day = late.get().getParent().getFileName().toString();
        String file = late.get().getFileName().toString();
        output.fact("a late file lands in " + day + " after that day was loaded: " + file,
            () -> EventJson.event("late_file_landed").put("folder", day).put("file", file));
        failed = pipeline.catchUp(interval, timeout).failedPartitions();
      }
      if (json.json()) {
        // JSON lines end with the summary: the failures or the query's rows come before it.
        failed.forEach(partition -> output.error(failure(partition)));
        int query = failed.isEmpty() ? queryEvents(spark, resolved, output, err) : 0;
        if (query != 0) {
          ErrorOutput.print(err, "the query of " + DemoLanding.TABLE + " failed (exit " + query + ")");
          return ExitCode.FAILED;
        }
      }
      pipeline.printSummary(Duration.between(started, Instant.now()));
      // For the time-travel hint: this run's first snapshot, else the table's current one.
      firstSnapshot = pipeline.committed().stream().findFirst().map(batch -> batch.report().snapshotId())
          .or(() -> pipeline.statuses().values().stream().findFirst()
              .flatMap(status -> status.lastCommitted()).flatMap(batch -> batch.snapshotId()));
    } catch (InterruptedException e) {
      if (stop.get()) {
        err.println("interrupted: the listener is stopped; run the demo again to finish (an interrupted batch is"
            + " recovered once its lease expires, within a minute)");
        return 130;
      }
      throw e;
    }
    if (!failed.isEmpty()) {
      if (!json.json()) {
        failed.forEach(partition -> output.error(failure(partition)));
      }
      return ExitCode.FAILED;
    }

    int query = json.json() ? 0 : query(spark, resolved, out);
    if (query != 0) {
      ErrorOutput.print(err, "the query of " + DemoLanding.TABLE + " failed (exit " + query + ")");
      return ExitCode.FAILED;
    }
    String homeOption = home.home == null ? "" : " --home " + resolved.root();
    output.text("");
    output.text("Look around:");
    output.text("  bin/files2iceberg sql" + homeOption + " \"SELECT * FROM local.demo.clicks LIMIT 10\"");
    output.text("  bin/files2iceberg sql" + homeOption
        + " \"SELECT count(*) FROM local.demo.clicks VERSION AS OF "
        + firstSnapshot.map(String::valueOf).orElse("<snapshot_id>") + "\"");
    output.text("  bin/files2iceberg status --config " + demo.profiles() + homeOption);
    return 0;
  }

  private static String failure(PartitionRecord partition) {
    return "partition " + partition.partition() + " of " + partition.table() + " FAILED: "
        + partition.lastError().orElse("no error recorded");
  }

  /** The queries' tables, printed by the SQL runner on this process's stdout; its exit code. */
  private static int query(SparkMain spark, Home home, PrintWriter out) throws InterruptedException {
    out.println();
    out.flush();
    return spark.runInheritingOutput(SparkMain.SQL,
        List.of("--home", home.root().toString(), "--echo", COUNT_QUERY, SNAPSHOT_QUERY));
  }

  /**
   * The queries' rows as events: {@code clicks} per day ({@code dt}, {@code clicks}, {@code
   * users}), then {@code snapshot} per snapshot of the table ({@code snapshotId}, {@code batchId},
   * {@code operation}, {@code tableRows}); the SQL runner's exit code.
   */
  private static int queryEvents(SparkMain spark, Home home, PipelineOutput output, PrintWriter err)
      throws InterruptedException {
    SparkMain.Result result = spark.run(SparkMain.SQL,
        List.of("--home", home.root().toString(), "--json", COUNT_QUERY, SNAPSHOT_QUERY), Duration.ofMinutes(10));
    if (!result.isSuccess()) {
      err.println(result.stderr().strip());
      return result.exitCode();
    }
    for (String line : result.stdout().lines().filter(line -> line.startsWith("{")).toList()) {
      JsonNode row = JsonLines.parse(line);
      // The two queries' rows, told apart by their columns.
      ObjectNode event;
      if (row.has("snapshot_id")) {
        event = EventJson.event("snapshot");
        event.set("snapshotId", row.get("snapshot_id"));
        event.set("batchId", row.get("batch_id"));
        event.set("operation", row.get("operation"));
        event.set("tableRows", row.get("table_rows"));
      } else {
        event = EventJson.event("clicks");
        event.set("dt", row.get("dt"));
        event.set("clicks", row.get("clicks"));
        event.set("users", row.get("users"));
      }
      output.event(() -> event);
    }
    return 0;
  }
}
