package io.files2iceberg.bench;

import io.files2iceberg.batcher.local.LandingNotifier;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.Home;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * One {@code _SUCCESS} marker whose partition folder holds {@code files} data files none of which
 * was notified: the listener lists the folder and records every file in the one push request.
 * Timed from the POST to the listener's answer, on the real listener (a child process, SQLite
 * ledger), in rounds on a fresh home each. The baseline is the same POST for a marker over an
 * empty folder, which measures the request itself.
 */
record MarkerBench(int files, Path work, Report report) {
  static final String EMPTY_FOLDER = "empty-folder";
  private static final String TABLE = "local.bench.markers";

  void measure(int rounds) throws Exception {
    Path landing = work.resolve("landing");
    Path full = Files.createDirectories(landing.resolve("events/dt=2026-11-30"));
    Path empty = Files.createDirectories(landing.resolve("events/dt=2026-11-29"));
    for (int i = 0; i < files; i++) {
      Files.writeString(full.resolve("part-" + i + ".json"), "{\"id\":" + i + "}\n");
    }
    for (Path folder : new Path[] {full, empty}) {
      Files.writeString(folder.resolve("_SUCCESS"), "");
    }
    Path profiles = Files.createDirectories(work.resolve("profiles"));
    Files.writeString(profiles.resolve("markers.conf"), Bench.dayProfile("file://" + landing.toString() + "/events/dt=*/*.json", "json", "iceberg.table = " + TABLE));
    HttpClient http = HttpClient.newHttpClient();
    String data = "marker over " + files + " files";
    for (int round = 1; round <= rounds; round++) {
      Home home = new Home(work.resolve("home-" + round));
      try (ListenerProcess listener = ListenerProcess.start(
          ListenerProcess.locateTarget(System.getenv(), Path.of("")), profiles, home, Duration.ofSeconds(120))) {
        URI push = listener.pushUri("/pubsub/push");
        for (String side : round % 2 == 1 ? new String[] {MergeBench.JOB, EMPTY_FOLDER}
            : new String[] {EMPTY_FOLDER, MergeBench.JOB}) {
          Path marker = (side.equals(MergeBench.JOB) ? full : empty).resolve("_SUCCESS");
          HttpRequest request = HttpRequest.newBuilder(push).timeout(Duration.ofMinutes(10))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(LandingNotifier.envelopeOf(marker, Instant.now()),
                  StandardCharsets.UTF_8))
              .build();
          double load = MergeBench.loadAverage()[0];
          long start = System.nanoTime();
          HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
          double seconds = (System.nanoTime() - start) / 1e9;
          if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("the listener answered " + response.statusCode() + ": " + response.body());
          }
          report.measured(new Report.Measurement("marker", data, side, round, seconds, load,
              MergeBench.loadAverage()[0], "HTTP " + response.statusCode()));
        }
      }
      try (Ledger ledger = SqliteLedger.open(home.ledgerDb(), Clock.systemUTC())) {
        long recorded = ledger.tableStatus(TABLE).filesByState().getOrDefault(FileState.RECORDED, 0L);
        if (recorded != files) {
          throw new IllegalStateException("the marker recorded " + recorded + " of " + files + " files");
        }
      }
    }
  }
}
