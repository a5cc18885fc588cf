package io.files2iceberg.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark runner: {@code bench/run SUITE [--rounds N] [--sizes A,B] [--work DIR] [--timeout MIN]}.
 *
 * <ul>
 *   <li>{@code job}: a batch of 300k rows (100k keys of the table in two versions, 100k new keys)
 *       into a table of each size of {@code --sizes} rows (default 1000000,10000000).
 *   <li>{@code small-files}: 200k new rows in each count of {@code --sizes} files (default
 *       100,10000) into a table of 1,000 rows.
 *   <li>{@code marker}: one {@code _SUCCESS} push whose folder holds {@code --sizes} files
 *       (default 10000) none of which was notified, against the same push over an empty folder.
 *   <li>{@code latency}: {@code _SUCCESS} to INGESTED (its batch committed) on {@code files2iceberg local}, against the
 *       job's own read, merge and commit time.
 *   <li>{@code listener}: {@code wrk} posting unique notifications to the listener's push route,
 *       against the same load on a route without a handler.
 *   <li>{@code ledger}: the ledger's cost per operation (time, and documents read and written,
 *       commits and transactions, counted exactly) on SQLite and on the Cloud Firestore emulator
 *       (started by the suite; skipped, saying so, when it is missing): a file record, markers
 *       (listing {@code --sizes} files, default 1000,10000), a claim, a settlement, and a claim
 *       among {@code --tables} tables (default 1,100,1000) of 10 READY partitions each, against
 *       the bare writes of the same documents.
 * </ul>
 *
 * <p>JSON lines go to stdout as measured, then the markdown table; progress goes to stderr.
 */
public final class Bench {
  private Bench() {}

  /**
   * A profile over day folders ({@code .../dt=yyyy-MM-dd/...}): {@code extract.path} the glob, date
   * partitions from the folder, then {@code load} (at least {@code iceberg.table}).
   */
  static String dayProfile(String glob, String format, String load) {
    return """
        extract {
          path = "GLOB"
          format = FORMAT
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = "yyyy-MM-dd"
          }
        }
        load {
        LOAD
        }
        """.replace("GLOB", glob).replace("FORMAT", format).replace("LOAD", load.strip());
  }

  static void progress(String line) {
    System.err.println(line);
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println("usage: bench/run job|small-files|marker|latency|listener|ledger [--rounds N] [--sizes A,B] [--tables A,B] [--work DIR] [--timeout MINUTES]");
      System.exit(2);
    }
    String suite = args[0];
    int rounds = 3;
    List<Long> sizes = new ArrayList<>();
    List<Integer> tables = new ArrayList<>();
    Path work = Path.of("bench", "target", "work");
    Duration timeout = Duration.ofMinutes(30);
    for (int i = 1; i < args.length; i += 2) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--rounds" -> rounds = Integer.parseInt(value);
        case "--sizes" -> {
          for (String size : value.split(",")) {
            sizes.add(Long.parseLong(size.trim()));
          }
        }
        case "--tables" -> {
          for (String count : value.split(",")) {
            tables.add(Integer.parseInt(count.trim()));
          }
        }
        case "--work" -> work = Path.of(value);
        case "--timeout" -> timeout = Duration.ofMinutes(Long.parseLong(value));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Report report = new Report(System.out);
    double[] load = MergeBench.loadAverage();
    progress(String.format(Locale.ROOT, "[bench] %s, %d rounds, %d cores, load average %.2f %.2f %.2f", suite, rounds,
        Runtime.getRuntime().availableProcessors(), load[0], load[1], load[2]));
    switch (suite) {
      case "job" -> {
        for (long rows : sizes.isEmpty() ? List.of(1_000_000L, 10_000_000L) : sizes) {
          run(new MergeBench(suite, rows + " table rows", rows, 100_000, 100_000, 3, fresh(work, suite + "-" + rows),
              timeout, report), rounds);
        }
      }
      case "small-files" -> {
        for (long files : sizes.isEmpty() ? List.of(100L, 10_000L) : sizes) {
          run(new MergeBench(suite, "200000 rows in " + files + " files", 1_000, 0, 200_000, (int) files,
              fresh(work, suite + "-" + files), timeout, report), rounds);
        }
      }
      case "marker" -> {
        for (long files : sizes.isEmpty() ? List.of(10_000L) : sizes) {
          new MarkerBench((int) files, fresh(work, suite + "-" + files), report).measure(rounds);
        }
      }
      case "latency" -> new LatencyBench(fresh(work, suite), report).measure(rounds);
      case "listener" -> new ListenerBench(fresh(work, suite), report).measure(rounds);
      case "ledger" -> new LedgerBench(fresh(work, suite), report,
          sizes.isEmpty() ? List.of(1_000, 10_000) : sizes.stream().map(Math::toIntExact).toList(),
          tables.isEmpty() ? List.of(1, 100, 1_000) : tables).measure(rounds);
      default -> throw new IllegalArgumentException(
          "unknown suite " + suite + ": expected job, small-files, marker, latency, listener or ledger");
    }
    report.printTable();
  }

  private static void run(MergeBench bench, int rounds) throws Exception {
    bench.prepare();
    bench.measure(rounds);
  }

  private static Path fresh(Path work, String name) throws Exception {
    Path dir = work.resolve(name);
    MergeBench.deleteTree(dir);
    return Files.createDirectories(dir).toAbsolutePath();
  }
}
