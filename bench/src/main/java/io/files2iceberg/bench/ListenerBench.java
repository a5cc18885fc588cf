package io.files2iceberg.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.files2iceberg.batcher.local.LandingNotifier;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.Home;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The listener's throughput under load: {@code wrk} (the Debian package) posts a unique {@code
 * OBJECT_FINALIZE} push envelope per request ({@code unique-notifications.lua}) to the real listener
 * (a child process, SQLite ledger) for {@link #SECONDS} seconds with {@link #CONNECTIONS}
 * connections. Two baselines, each its own data set: the same load on a route of the same server
 * that has no handler (Micronaut answers 404 without touching the ledger: what the listener's HTTP
 * stack alone can serve), and on a no-op JDK {@code HttpServer} in the bench's JVM (what the machine
 * serves with no work at all; the issue's target is at least 20% of it).
 *
 * <p>A measurement's {@code seconds} is the wall time per 1,000 requests (so the ratio is how many
 * times slower than the bare server a notification is); requests/s, p50 and p99 go in its detail.
 */
record ListenerBench(Path work, Report report) {
  static final String NO_HANDLER = "no-handler route";
  /** The issue's baseline: the JDK's own HTTP server answering 204 to every post, in the bench's JVM. */
  static final String NO_OP_JDK = "no-op JDK HttpServer";
  private static final String VERSUS_JDK = " (against a no-op JDK HttpServer)";
  static final int CONNECTIONS = 16;
  static final int THREADS = 2;
  static final int SECONDS = 20;
  private static final String TABLE = "local.bench.notifications";
  private static final String SCRIPT = "unique-notifications.lua";
  private static final ObjectMapper JSON = new ObjectMapper();

  void measure(int rounds) throws Exception {
    String wrk = wrkCommand();
    Path landing = work.resolve("landing");
    Path day = Files.createDirectories(landing.resolve("events/dt=2026-11-30"));
    Path sample = day.resolve("part-TEMPLATE.json");
    Files.writeString(sample, "{\"id\":1}\n");
    Path script = work.resolve(SCRIPT);
    try (InputStream in = ListenerBench.class.getResourceAsStream("/" + SCRIPT)) {
      Files.copy(in, script);
    }
    Path[] templates = writeTemplates(sample);
    Path profiles = Files.createDirectories(work.resolve("profiles"));
    Files.writeString(profiles.resolve("notifications.conf"), Bench.dayProfile("file://" + landing.toString() + "/events/dt=*/*.json", "json", "iceberg.table = " + TABLE));
    String data = "unique notifications, " + CONNECTIONS + " connections, " + SECONDS + " s";
    for (int round = 1; round <= rounds; round++) {
      Home home = new Home(work.resolve("home-" + round));
      long recorded = 0;
      try (ListenerProcess listener = ListenerProcess.start(
          ListenerProcess.locateTarget(System.getenv(), Path.of("")), profiles, home, Duration.ofSeconds(120))) {
        for (String side : round % 2 == 1 ? new String[] {MergeBench.JOB, NO_HANDLER, NO_OP_JDK}
            : new String[] {NO_OP_JDK, NO_HANDLER, MergeBench.JOB}) {
          double load = MergeBench.loadAverage()[0];
          JsonNode result;
          if (side.equals(NO_OP_JDK)) {
            HttpServer noOp = noOpServer();
            try {
              result = runWrk(wrk, script, templates,
                  URI.create("http://127.0.0.1:" + noOp.getAddress().getPort() + "/pubsub/push"));
            } finally {
              noOp.stop(0);
              ((ExecutorService) noOp.getExecutor()).shutdownNow();
            }
          } else {
            result = runWrk(wrk, script, templates,
                listener.pushUri(side.equals(MergeBench.JOB) ? "/pubsub/push" : "/bench/no-handler"));
          }
          long requests = result.get("requests").asLong();
          double seconds = result.get("durationMicros").asLong() / 1e6;
          long non2xx = result.get("non2xx").asLong();
          if (side.equals(MergeBench.JOB)) {
            if (non2xx > 0 || result.get("socketErrors").asLong() > 0) {
              throw new IllegalStateException("the listener answered " + non2xx + " of " + requests
                  + " notifications with an error status (" + result + "); see " + home.root().resolve("logs"));
            }
            recorded += requests;
          }
          Report.Measurement measured = new Report.Measurement("listener",
              side.equals(NO_OP_JDK) ? data + VERSUS_JDK : data, side, round, seconds / requests * 1000, load,
              MergeBench.loadAverage()[0], String.format(Locale.ROOT, "%.0f requests/s, p50 %.1f ms, p99 %.1f ms",
                  requests / seconds, result.get("p50Micros").asLong() / 1e3, result.get("p99Micros").asLong() / 1e3));
          report.measured(measured);
          if (side.equals(MergeBench.JOB)) {
            // The same figure against the other baseline: the report pairs sides by data set.
            report.measured(new Report.Measurement(measured.suite(), data + VERSUS_JDK, measured.side(),
                measured.round(), measured.seconds(), measured.loadBefore(), measured.loadAfter(), measured.detail()));
          }
        }
      }
      try (Ledger ledger = SqliteLedger.open(home.ledgerDb(), Clock.systemUTC())) {
        long inLedger = ledger.tableStatus(TABLE).filesByState().getOrDefault(FileState.RECORDED, 0L);
        // wrk counts the requests it completed; one cut off at the deadline may still have been recorded
        if (inLedger < recorded || inLedger > recorded + CONNECTIONS) {
          throw new IllegalStateException("the listener answered " + recorded + " notifications but recorded "
              + inLedger + " files");
        }
      }
    }
  }

  /** A JDK HttpServer that reads each request's body and answers 204: what this machine serves with no work. */
  private static HttpServer noOpServer() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
    server.createContext("/", exchange -> {
      try (exchange) {
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(204, -1);
      }
    });
    server.setExecutor(Executors.newFixedThreadPool(CONNECTIONS));
    server.start();
    return server;
  }

  /**
   * The envelope of the sample file as the local notifier writes it, cut into the templates the Lua
   * script fills: the decoded resource with {@code @NAME@} for the file name, the envelope with
   * {@code @DATA@}, {@code @ID@} and {@code @NAME@}.
   */
  private Path[] writeTemplates(Path sample) throws IOException {
    String fileName = sample.getFileName().toString();
    ObjectNode envelope = (ObjectNode) JSON.readTree(LandingNotifier.envelopeOf(sample, Instant.now()));
    ObjectNode message = (ObjectNode) envelope.get("message");
    String resource = new String(Base64.getDecoder().decode(message.get("data").asText()), StandardCharsets.UTF_8);
    message.put("data", "@DATA@");
    message.put("messageId", "bench-@ID@");
    Path resourceFile = work.resolve("resource.template.json");
    Path envelopeFile = work.resolve("envelope.template.json");
    Files.writeString(resourceFile, resource.replace(fileName, "@NAME@"));
    Files.writeString(envelopeFile, envelope.toString().replace(fileName, "@NAME@"));
    return new Path[] {resourceFile, envelopeFile};
  }

  private JsonNode runWrk(String wrk, Path script, Path[] templates, URI uri) throws Exception {
    List<String> command = new ArrayList<>(List.of(wrk, "-t", Integer.toString(THREADS), "-c",
        Integer.toString(CONNECTIONS), "-d", SECONDS + "s", "--timeout", "30s", "-s", script.toString(),
        uri.toString(), "--", templates[0].toString(), templates[1].toString()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(SECONDS + 60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("wrk failed: " + output);
    }
    String last = output.strip().lines().reduce((a, b) -> b).orElse("");
    if (!last.startsWith("{")) {
      throw new IllegalStateException("wrk printed no summary: " + output);
    }
    return JSON.readTree(last);
  }

  private static String wrkCommand() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, "wrk"))) {
        return Path.of(dir, "wrk").toString();
      }
    }
    throw new IllegalStateException("the listener suite needs wrk: apt-get install wrk");
  }
}
