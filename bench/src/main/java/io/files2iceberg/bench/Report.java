package io.files2iceberg.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a bench run prints: one JSON line per measurement as it is taken, then a markdown table of
 * the medians per suite and data set, with files2iceberg's median as a ratio of the baseline's (the
 * side of another name in the same suite and data set).
 */
final class Report {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Measurement(String suite, String data, String side, int round, double seconds, double loadBefore,
      double loadAfter, String detail) {}

  private final PrintStream out;
  private final List<Measurement> measurements = new ArrayList<>();
  private final Map<String, String> checks = new LinkedHashMap<>();

  Report(PrintStream out) {
    this.out = out;
  }

  void measured(Measurement m) {
    measurements.add(m);
    ObjectNode line = JSON.createObjectNode();
    line.put("suite", m.suite()).put("data", m.data()).put("side", m.side()).put("round", m.round())
        .put("seconds", Math.round(m.seconds() * 1000) / 1000.0).put("load1Before", m.loadBefore())
        .put("load1After", m.loadAfter());
    if (!m.detail().isEmpty()) {
      line.put("detail", m.detail());
    }
    out.println(line);
    out.flush();
  }

  void checked(String suite, String data, String table) {
    checks.put(suite + " " + data, table);
    out.println("{\"suite\":\"" + suite + "\",\"data\":\"" + data + "\",\"sameTable\":true,\"table\":" + table + "}");
    out.flush();
  }

  /** The markdown table: median, min and max seconds per side, and the ratio of the medians. */
  void printTable() {
    out.println();
    out.println("| suite | data | files2iceberg median (min-max) s | baseline | baseline median (min-max) s | ratio | rounds |");
    out.println("|---|---|---|---|---|---|---|");
    Map<String, List<Measurement>> byData = new LinkedHashMap<>();
    for (Measurement m : measurements) {
      byData.computeIfAbsent(m.suite() + "\u0000" + m.data(), k -> new ArrayList<>()).add(m);
    }
    for (List<Measurement> group : byData.values()) {
      List<Double> job = seconds(group, MergeBench.JOB);
      String baselineSide = group.stream().map(Measurement::side).filter(side -> !side.equals(MergeBench.JOB))
          .findFirst().orElse("-");
      List<Double> baseline = seconds(group, baselineSide);
      out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %d |%n", group.get(0).suite(), group.get(0).data(),
          summary(job), baselineSide, summary(baseline),
          job.isEmpty() || baseline.isEmpty() ? "-" : String.format(Locale.ROOT, "%.2fx", median(job) / median(baseline)),
          Math.min(job.size(), baseline.size()));
    }
    out.flush();
  }

  private static List<Double> seconds(List<Measurement> group, String side) {
    return group.stream().filter(m -> m.side().equals(side)).map(Measurement::seconds).sorted().toList();
  }

  private static double median(List<Double> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String summary(List<Double> sorted) {
    if (sorted.isEmpty()) {
      return "-";
    }
    // Below a second (the ledger's calls), milliseconds matter.
    String format = sorted.get(sorted.size() - 1) < 1 ? "%.3f (%.3f-%.3f)" : "%.1f (%.1f-%.1f)";
    return String.format(Locale.ROOT, format, median(sorted), sorted.get(0), sorted.get(sorted.size() - 1));
  }
}
