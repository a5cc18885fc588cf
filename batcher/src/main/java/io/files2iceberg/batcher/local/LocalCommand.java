package io.files2iceberg.batcher.local;

import io.files2iceberg.batcher.cli.BatcherOptions;
import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.ConfigProblems;
import io.files2iceberg.batcher.cli.DurationConverter;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.cli.JsonEventsOption;
import io.files2iceberg.batcher.cli.StopSignals;
import io.files2iceberg.batcher.output.Counted;
import io.files2iceberg.batcher.output.EventJson;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code local}: the embedded pipeline on the user's own profiles and landing folder, watching
 * until interrupted (or, with {@code --until-idle}, until it has caught up).
 */
@Command(
    name = "local",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the embedded pipeline on your profiles and landing folder: starts the listener,",
      "posts every new or changed file of the landing folder as a push notification, and runs",
      "the batcher with the local Spark launcher whenever partitions are READY. Watches until",
      "Ctrl-C (exit 0), or with --until-idle until it has caught up.",
      "The profiles' extract.path globs must be file:// paths inside the landing folder."
    })
public final class LocalCommand extends CliCommand {
  static final String PREFIX = "[local]";

  @Mixin BatcherOptions settings = new BatcherOptions(2);

  @Option(
      names = "--landing",
      required = true,
      paramLabel = "DIR",
      description = "The folder that stands in for the bucket.")
  Path landing;

  @Option(
      names = "--until-idle",
      description = "Stop once a scan posts nothing and no partition is READY or CLAIMED.")
  boolean untilIdle;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description = "Longest pause between scans of the landing folder; a new file or folder ends it"
          + " at once (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Mixin HomeOption home;

  @Mixin JsonEventsOption json;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = err();
    PipelineOutput output = PipelineOutput.of(json.json(), out(), err, PREFIX);
    if (!Files.isDirectory(landing)) {
      ErrorOutput.print(err, "--landing " + landing + ": no such folder");
      return ExitCode.INVALID;
    }
    if (!Files.exists(settings.config())) {
      ErrorOutput.print(err, "--config " + settings.config() + ": no such file or folder");
      return ExitCode.INVALID;
    }
    if (settings.concurrency() < 1) {
      ErrorOutput.print(err, "--concurrency must be at least 1, was " + settings.concurrency());
      return ExitCode.INVALID;
    }
    Home resolved = home.resolve();
    // The deployment file the option or the environment names, as every other command reads it; the
    // listener child is then started on the same file (LocalPipeline passes it on).
    Optional<ProfileRegistry> loaded = ConfigProblems.load(settings.config(), resolved, err);
    if (loaded.isEmpty()) {
      return ExitCode.INVALID;
    }
    ProfileRegistry profiles = loaded.get();
    ConfigProblems.warn(profiles, err);
    AtomicBoolean stop = interruptOnStop();
    Instant started = Instant.now();
    Set<String> reported = new HashSet<>();
    Optional<LocalPipeline> opened =
        LocalPipeline.startHere(profiles, settings.config(), resolved, landing, settings.runOptions(), output, err);
    if (opened.isEmpty()) {
      return ExitCode.INVALID;
    }
    try (LocalPipeline pipeline = opened.get()) {
      output.fact("watching " + landing.toAbsolutePath().normalize() + " every " + interval.toMillis() + "ms"
          + (untilIdle ? " until idle" : "; Ctrl-C stops"), () -> EventJson.event("watching")
          .put("landing", landing.toAbsolutePath().normalize().toString()).put("intervalMillis", interval.toMillis())
          .put("untilIdle", untilIdle));
      try {
        while (true) {
          LocalPipeline.Progress progress = pipeline.catchUp(interval, Duration.ofDays(3650));
          for (PartitionRecord partition : progress.failedPartitions()) {
            if (reported.add(partition.table() + "|" + partition.partition())) {
              // The error is printed once: with the batch's failure when this run printed it.
              boolean printed = partition.batchId().filter(pipeline::printedFailure).isPresent();
              output.fact("partition " + partition.partition() + " of " + partition.table() + " FAILED after "
                  + Counted.of(partition.attempts(), "attempt", "attempts")
                  + (printed ? " (batch " + partition.batchId().get() + " above)"
                      : ": " + partition.lastError().orElse("no error recorded"))
                  + " (bin/files2iceberg status shows it; fix the input or profile, then retry)",
                  () -> EventJson.event("partition_failed").put("table", partition.table())
                      .put("partition", partition.partition())
                      .put("error", partition.lastError().orElse("no error recorded")));
            }
          }
          if (untilIdle) {
            pipeline.printSummary(Duration.between(started, Instant.now()));
            return progress.needsAnOperator() ? ExitCode.FAILED : 0;
          }
          pipeline.pause(interval);
        }
      } catch (InterruptedException e) {
        if (!stop.get()) {
          throw e;
        }
        output.fact("stopping: the listener finishes its messages in flight", () -> EventJson.event("stopping"));
        pipeline.printSummary(Duration.between(started, Instant.now()));
        return 0;
      }
    }
  }

  /**
   * The first SIGINT (Ctrl-C) or SIGTERM interrupts the calling thread, so that the command stops
   * the listener and ends in order; a second one ends the JVM at once (exit 130). Either way the
   * ledger and the table stay consistent: an interrupted batch is recovered by the next run.
   *
   * @return whether a stop was requested
   */
  public static AtomicBoolean interruptOnStop() {
    AtomicBoolean requested = new AtomicBoolean();
    Thread waiting = Thread.currentThread();
    StopSignals.onTermination(() -> {
      if (!requested.compareAndSet(false, true)) {
        Runtime.getRuntime().halt(130);
      }
      waiting.interrupt();
    });
    return requested;
  }
}
