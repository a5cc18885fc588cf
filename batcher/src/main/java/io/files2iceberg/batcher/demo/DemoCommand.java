package io.files2iceberg.batcher.demo;

import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.batcher.local.LocalCommand;
import io.files2iceberg.batcher.local.LocalPipeline;
import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.batcher.plan.RunOptions;
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
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
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
public final class DemoCommand implements Callable<Integer> {
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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Instant started = Instant.now();
    Home resolved = home.resolve();
    DemoLanding demo = new DemoLanding(resolved);
    AtomicBoolean stop = LocalCommand.interruptOnStop();
    SparkMain spark = SparkMain.locate(System.getenv(), resolved.root());

    say(out, "home " + resolved.root());
    Path profile = demo.writeProfile();
    if (demo.isWritten()) {
      say(out, "landing folder " + demo.landing() + " holds the sample data already");
    } else {
      say(out, "writing " + DemoLanding.DAYS + " days of sample click data (Parquet, _SUCCESS markers last) into "
          + demo.landing());
      SparkMain.Result written = spark.run(SparkMain.WRITE_DEMO_LANDING, demo.writerArguments(), Duration.ofMinutes(10));
      if (!written.isSuccess()) {
        err.println("error: writing the sample data failed (exit " + written.exitCode() + "):");
        err.println(written.stderr().strip());
        return Files2Iceberg.EXIT_FAILED;
      }
    }
    say(out, "profile " + profile + " loads them into " + DemoLanding.TABLE);

    ProfileRegistry profiles;
    try {
      profiles = ProfileRegistry.load(demo.profiles(), resolved);
    } catch (ProfileException e) {
      err.println("error: " + e.getMessage());
      return Files2Iceberg.EXIT_INVALID;
    }
    List<PartitionRecord> failed;
    Optional<Long> firstSnapshot = Optional.empty();
    LocalPipeline opened;
    try {
      opened = LocalPipeline.start(profiles, demo.profiles(), resolved, demo.landing(),
          LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")),
          ListenerProcess.locateTarget(System.getenv(), Path.of("")),
          new RunOptions(1, Duration.ofMinutes(30)), out, PREFIX);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return Files2Iceberg.EXIT_INVALID;
    }
    try (LocalPipeline pipeline = opened) {
      Duration interval = Duration.ofSeconds(1);
      failed = pipeline.catchUp(interval, timeout).failedPartitions();
      Optional<Path> late = demo.landLateFile(Clock.systemUTC());
      if (late.isPresent() && failed.isEmpty()) {
        pipeline.say("a late file lands in " + late.get().getParent().getFileName() + " after that day was loaded: "
            + late.get().getFileName());
        failed = pipeline.catchUp(interval, timeout).failedPartitions();
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
      for (PartitionRecord partition : failed) {
        err.println("error: partition " + partition.partition() + " of " + partition.table() + " FAILED: "
            + partition.lastError().orElse("no error recorded"));
      }
      return Files2Iceberg.EXIT_FAILED;
    }

    out.println();
    out.flush();
    int query = spark.runInheritingOutput(SparkMain.SQL,
        List.of("--home", resolved.root().toString(), "--echo", COUNT_QUERY, SNAPSHOT_QUERY));
    if (query != 0) {
      err.println("error: the query of " + DemoLanding.TABLE + " failed (exit " + query + ")");
      return Files2Iceberg.EXIT_FAILED;
    }
    out.println();
    String homeOption = home.home == null ? "" : " --home " + resolved.root();
    out.println("Look around:");
    out.println("  bin/files2iceberg sql" + homeOption + " \"SELECT * FROM local.demo.clicks LIMIT 10\"");
    out.println("  bin/files2iceberg sql" + homeOption
        + " \"SELECT count(*) FROM local.demo.clicks VERSION AS OF "
        + firstSnapshot.map(String::valueOf).orElse("<snapshot_id>") + "\"");
    out.println("  bin/files2iceberg status --config " + demo.profiles() + homeOption);
    out.flush();
    return 0;
  }

  private static void say(PrintWriter out, String line) {
    out.println(PREFIX + " " + line);
    out.flush();
  }
}
