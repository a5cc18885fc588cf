package io.files2iceberg.bench;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a ledger call cost its store, counted exactly: documents (rows) read and written, commits,
 * transactions begun and rolled back, queries and RPCs. Firestore's figures come from the gRPC
 * messages themselves ({@link FirestoreCounter}); SQLite's from the writer connection's update and
 * commit hooks (rows read are not counted there: SQLite bills nothing per row).
 */
final class LedgerCounts {
  final LongAdder documentsRead = new LongAdder();
  final LongAdder documentsMissing = new LongAdder();
  final LongAdder documentsWritten = new LongAdder();
  final LongAdder commits = new LongAdder();
  final LongAdder transactions = new LongAdder();
  final LongAdder rollbacks = new LongAdder();
  final LongAdder queries = new LongAdder();
  final LongAdder rpcs = new LongAdder();

  record Snapshot(long read, long missing, long written, long commits, long transactions, long rollbacks,
      long queries, long rpcs) {
    Snapshot minus(Snapshot before) {
      return new Snapshot(read - before.read, missing - before.missing, written - before.written,
          commits - before.commits, transactions - before.transactions, rollbacks - before.rollbacks,
          queries - before.queries, rpcs - before.rpcs);
    }

    /** Per operation, when a measurement ran {@code operations} of them. */
    String per(int operations) {
      return String.format(Locale.ROOT,
          "reads %s (missing %s), writes %s, commits %s, transactions %s, rollbacks %s, queries %s, rpcs %s",
          f(read, operations), f(missing, operations), f(written, operations), f(commits, operations),
          f(transactions, operations), f(rollbacks, operations), f(queries, operations), f(rpcs, operations));
    }

    private static String f(long total, int operations) {
      double value = (double) total / operations;
      return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.2f", value);
    }
  }

  Snapshot snapshot() {
    return new Snapshot(documentsRead.sum(), documentsMissing.sum(), documentsWritten.sum(), commits.sum(),
        transactions.sum(), rollbacks.sum(), queries.sum(), rpcs.sum());
  }
}
