package io.files2iceberg.bench;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.profile.Home;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * End-to-end latency on the embedded default: {@code files2iceberg local} (its own process: the
 * listener child, the notifier, the batcher, the Spark job) over {@link #PARTITIONS}
 * day folders of {@link #FILES_PER_PARTITION} JSON files of {@link #ROWS_PER_FILE} rows each. The
 * data files are notified and recorded first; then every folder's {@code _SUCCESS} is written at
 * once, and each partition's latency is from that moment to the first time the ledger shows it
 * INGESTED, its batch committed (polled every 100 ms). The measurement is the median over the partitions.
 *
 * <p>Every round runs {@code job.mode = warm} (a warm driver, started when {@code local} starts;
 * the markers are written once its Spark context is up) and {@code per-batch} (a child JVM per batch), alternating which goes first. The baseline of
 * each is the work itself: the read, merge and commit time the batches' own metrics report,
 * summed over the batches of the round; in warm mode, the warm job's own runtime.
 */
record LatencyBench(Path work, Report report) {
  static final String JOB_WORK = "job's read+merge+commit";
  static final String WARM_JOB_WORK = "warm job's read+merge+commit";
  static final String WARM = "warm";
  static final String PER_BATCH = "per-batch";
  static final int PARTITIONS = 10;
  static final int FILES_PER_PARTITION = 2;
  static final int ROWS_PER_FILE = 10_000;
  private static final String TABLE = "local.bench.latency";

  void measure(int rounds) throws Exception {
    String data = PARTITIONS + " partitions x " + FILES_PER_PARTITION + " files x " + ROWS_PER_FILE + " rows";
    for (int round = 1; round <= rounds; round++) {
      // Both modes every round, alternating which goes first.
      List<String> modes = round % 2 == 1 ? List.of(WARM, PER_BATCH) : List.of(PER_BATCH, WARM);
      for (String mode : modes) {
        measure(round, mode, data + " (" + mode + ")");
      }
    }
  }

  private void measure(int round, String mode, String data) throws Exception {
    Path profiles = Files.createDirectories(work.resolve("profiles-" + mode));
    Path landing = work.resolve("landing-" + mode + "-" + round);
    Path home = work.resolve("home-" + mode + "-" + round);
    Files.writeString(profiles.resolve("latency.conf"), Bench.dayProfile("file://" + landing.toString() + "/events/dt=*/*.json", "json", "iceberg.table = " + TABLE + "\nprimary-key = [id]\niceberg.precombine-field = version"));
    Files.writeString(profiles.resolve("deployment.conf"), "job.mode = " + mode + "\n");
    List<Path> markers = writeLanding(landing);
    Path out = work.resolve("local-" + mode + "-" + round + ".out");
    Process local = startLocal(profiles, landing, home, out);
    try {
      awaitRecorded(home, local, out);
      if (mode.equals(WARM)) {
        // The figure is the marker's way through a running pipeline: the driver `local` started
        // is up before the markers land, as it is after the first batch of a day.
        awaitWarmDriver(home, local, out);
      }
      Instant written = Instant.now();
      for (Path marker : markers) {
        Files.writeString(marker, "");
        Files.setLastModifiedTime(marker, FileTime.from(Instant.now().minusSeconds(2)));
      }
      double load = MergeBench.loadAverage()[0];
      List<Double> latencies = awaitCommitted(home, local, out, written);
      double median = latencies.get(latencies.size() / 2);
      long workMillis = jobWorkMillis(home);
      double after = MergeBench.loadAverage()[0];
      report.measured(new Report.Measurement("latency", data, MergeBench.JOB, round, median, load, after,
          String.format(Locale.ROOT, "job.mode = %s; marker to INGESTED per partition: p50 %.1f s, max %.1f s",
              mode, median, latencies.get(latencies.size() - 1))));
      report.measured(new Report.Measurement("latency", data, mode.equals(WARM) ? WARM_JOB_WORK : JOB_WORK, round,
          workMillis / 1000.0, load, after, String.format(Locale.ROOT, "summed over the round's batches; their whole"
              + " runs (each attempt result's startedAt to endedAt): %.1f s", jobRunMillis(home) / 1000.0)));
    } finally {
      local.destroy();
      if (!local.waitFor(60, TimeUnit.SECONDS)) {
        local.destroyForcibly();
      }
      stopWarmDriver(home);
    }
  }

  /** The warm driver {@code local} started, which would otherwise idle on beside the next round. */
  private static void stopWarmDriver(Path home) throws Exception {
    Path pid = home.resolve("warm").resolve("driver.pid");
    if (Files.exists(pid)) {
      ProcessHandle.of(Long.parseLong(Files.readAllLines(pid).get(0).strip())).ifPresent(driver -> {
        driver.destroy();
        driver.onExit().join();
      });
    }
  }

  /** The landing: every data file, no marker yet; returns where the markers go. */
  private static List<Path> writeLanding(Path landing) throws Exception {
    List<Path> markers = new ArrayList<>();
    long id = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      Path day = Files.createDirectories(landing.resolve(String.format(Locale.ROOT, "events/dt=2026-11-%02d", p + 1)));
      for (int f = 0; f < FILES_PER_PARTITION; f++) {
        StringBuilder lines = new StringBuilder();
        for (int r = 0; r < ROWS_PER_FILE; r++, id++) {
          lines.append("{\"id\":").append(id).append(",\"version\":1,\"payload\":\"row ").append(id).append("\"}\n");
        }
        Path file = day.resolve("part-" + f + ".json");
        Files.writeString(file, lines, StandardCharsets.UTF_8);
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(5)));
      }
      markers.add(day.resolve("_SUCCESS"));
    }
    return markers;
  }

  /** {@code files2iceberg local} as {@code bin/files2iceberg} runs it, in this JVM's classpath. */
  private static Process startLocal(Path profiles, Path landing, Path home, Path out) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx1g",
        "-Dfiles2iceberg.spark-job.dir=" + System.getProperty("files2iceberg.spark-job.dir"),
        "-cp", System.getProperty("java.class.path"), "io.files2iceberg.batcher.cli.Files2Iceberg", "local",
        "--config", profiles.toString(), "--landing", landing.toString(), "--home", home.toString(),
        "--interval", "1s"));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
  }

  private static void awaitRecorded(Path home, Process local, Path out) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (System.nanoTime() < deadline) {
      alive(local, out);
      if (Files.exists(new Home(home).ledgerDb())) {
        try (Ledger ledger = SqliteLedger.open(new Home(home).ledgerDb(), Clock.systemUTC())) {
          if (!ledger.tables().isEmpty() && ledger.tableStatus(TABLE).filesByState()
              .getOrDefault(FileState.RECORDED, 0L) == PARTITIONS * FILES_PER_PARTITION) {
            return;
          }
        }
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new IllegalStateException("local did not record the data files in 3 minutes; see " + out);
  }

  /** Waits for the warm driver's Spark context, which its log announces. */
  private static void awaitWarmDriver(Path home, Process local, Path out) throws Exception {
    Path log = home.resolve("warm").resolve("driver.log");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (System.nanoTime() < deadline) {
      alive(local, out);
      if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(": Spark context started")) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new IllegalStateException("the warm driver did not start its Spark context in 3 minutes; see " + log);
  }

  /** Each partition's seconds from the markers' write to INGESTED, sorted. */
  private static List<Double> awaitCommitted(Path home, Process local, Path out, Instant written) throws Exception {
    Map<String, Double> committed = new HashMap<>();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
    while (committed.size() < PARTITIONS && System.nanoTime() < deadline) {
      alive(local, out);
      try (Ledger ledger = SqliteLedger.open(new Home(home).ledgerDb(), Clock.systemUTC())) {
        double seconds = java.time.Duration.between(written, Instant.now()).toMillis() / 1000.0;
        for (PartitionRecord partition : ledger.partitions(TABLE)) {
          if (partition.state() == PartitionState.FAILED) {
            throw new IllegalStateException("partition " + partition.partition() + " FAILED: "
                + partition.lastError().orElse("") + "; see " + out);
          }
          if (partition.state() == PartitionState.INGESTED) {
            committed.putIfAbsent(partition.partition(), seconds);
          }
        }
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    if (committed.size() < PARTITIONS) {
      throw new IllegalStateException(committed.size() + " of " + PARTITIONS + " partitions committed in 15 minutes; see "
          + out);
    }
    return committed.values().stream().sorted().toList();
  }

  private static long jobWorkMillis(Path home) {
    try (Ledger ledger = SqliteLedger.open(new Home(home).ledgerDb(), Clock.systemUTC())) {
      Set<String> batches = new LinkedHashSet<>();
      for (PartitionRecord partition : ledger.partitions(TABLE)) {
        partition.batchId().ifPresent(batches::add);
      }
      long millis = 0;
      for (String batchId : batches) {
        BatchRecord batch = ledger.batch(batchId).orElseThrow();
        millis += batch.metrics().map(m -> m.readMillis() + m.mergeMillis() + m.commitMillis()).orElse(0L);
      }
      return millis;
    }
  }

  /**
   * The batches' whole runs, from each attempt result's start to its end: the job's time with
   * everything it does besides the read, merge and commit its metrics time (generation checks,
   * the table's creation, the split of matched rows, the ledger's commit).
   */
  private static long jobRunMillis(Path home) throws IOException {
    long millis = 0;
    try (Stream<Path> files = Files.walk(home.resolve("metadata"))) {
      for (Path result : files.filter(p -> p.getFileName().toString().endsWith(".result.json")).toList()) {
        AttemptResult attempt = AttemptResult.fromJson(Files.readString(result, StandardCharsets.UTF_8), result.toString());
        millis += java.time.Duration.between(attempt.startedAt(), attempt.endedAt()).toMillis();
      }
    }
    return millis;
  }

  private static void alive(Process local, Path out) throws Exception {
    if (!local.isAlive()) {
      throw new IllegalStateException("local exited with " + local.exitValue() + ":\n" + Files.readString(out));
    }
  }
}
