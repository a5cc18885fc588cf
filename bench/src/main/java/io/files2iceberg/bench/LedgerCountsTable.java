package io.files2iceberg.bench;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The ledger suite's own markdown table: the exact counts ({@link LedgerCounts}) of the last round
 * measured, per call for files2iceberg's side and for all the bare writes of the same documents.
 */
final class LedgerCountsTable {
  /** One store's operation: how many calls our side makes, and the last cost of each side. */
  private static final class Row {
    final int operations;
    LedgerCounts.Snapshot ours;
    LedgerCounts.Snapshot bare;

    Row(int operations) {
      this.operations = operations;
    }
  }

  private final Map<String, Row> rows = new LinkedHashMap<>();

  /** What one side cost in a measurement of {@code data}, whose operation makes {@code operations} calls. */
  void counted(String data, int operations, boolean bare, LedgerCounts.Snapshot cost) {
    Row row = rows.computeIfAbsent(data, k -> new Row(operations));
    if (bare) {
      row.bare = cost;
    } else {
      row.ours = cost;
    }
  }

  void print(PrintStream out) {
    out.println();
    out.println("| store: operation | files2iceberg per call | bare writes of the same documents, all calls |");
    out.println("|---|---|---|");
    rows.forEach((data, row) -> {
      String per = row.ours == null ? "-" : row.ours.per(row.operations);
      if (data.startsWith("sqlite")) {
        // SQLite's hooks count no reads, queries or RPCs: those figures would only be zeros.
        per = per.replaceFirst("reads 0 \\(missing 0\\), ", "").replaceFirst(", queries 0, rpcs 0", "");
      }
      out.printf(Locale.ROOT, "| %s | %s | %s |%n", data, per, row.bare == null ? "-"
          : row.bare.written() + " writes, " + row.bare.commits() + " commits, " + row.bare.rpcs() + " RPCs");
    });
    out.flush();
  }
}
