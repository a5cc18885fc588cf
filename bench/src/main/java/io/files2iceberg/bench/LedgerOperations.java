package io.files2iceberg.bench;

import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The ledger calls the ledger suite measures ({@link LedgerBench}), and the records they are made
 * of: the same on every store, so that the stores' figures compare.
 */
final class LedgerOperations {
  static final Duration LEASE = Duration.ofMinutes(30);
  private static final SecureRandom RANDOM = new SecureRandom();

  private LedgerOperations() {}

  /** A measured operation: {@code setup} is not timed; {@code operations} is how many calls it makes. */
  record Operation(String name, int operations, LedgerStep setup, LedgerStep run) {}

  @FunctionalInterface
  interface LedgerStep {
    void on(Ledger ledger, Context context) throws Exception;
  }

  /** What one round's operations hand each other (the claimed batch). */
  static final class Context {
    String batchId;
  }

  /**
   * The operations of one namespace, in order: a file record (x100), a marker over those files,
   * a marker listing each of {@code markerSizes} unnotified files, a claim, its settlement, and a
   * claim finding nothing (x10).
   */
  static List<Operation> perCall(List<Integer> markerSizes) {
    List<Operation> ops = new ArrayList<>();
    ops.add(new Operation("file record", 100, (l, c) -> {}, (l, c) -> {
      for (int i = 0; i < 100; i++) {
        l.recordFile(file("bench.ops", "2026-11-01", i, false));
      }
    }));
    ops.add(new Operation("marker over 100 recorded files", 1, (l, c) -> {},
        (l, c) -> l.markReady(marker("bench.ops", "2026-11-01"))));
    for (int n : markerSizes) {
      String partition = String.format(Locale.ROOT, "2026-10-%02d", 1 + markerSizes.indexOf(n));
      ops.add(new Operation("marker listing " + n + " files, to READY", 1, (l, c) -> {}, (l, c) -> {
        List<RecordFile> files = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          files.add(file("bench.markers", partition, i, false));
        }
        l.recordFiles(files);
        l.markReady(marker("bench.markers", partition));
      }));
    }
    ops.add(new Operation("claim of 10 partitions x 10 files", 1, (l, c) -> {
      List<RecordFile> files = new ArrayList<>();
      for (int p = 0; p < 10; p++) {
        for (int i = 0; i < 10; i++) {
          files.add(file("bench.claim", String.format(Locale.ROOT, "2026-09-%02d", p + 1), i, true));
        }
      }
      l.recordFiles(files);
    }, (l, c) -> c.batchId = l.claimPartitions(claim("bench.claim"))
        .map(BatchRecord::batchId).orElseThrow(() -> new IllegalStateException("the claim took nothing"))));
    ops.add(new Operation("settlement (commit) of that batch of 100 files", 1,
        (l, c) -> l.markRunning(c.batchId, LEASE),
        (l, c) -> l.commitBatch(new CommitBatch(c.batchId, 1L, BatchMetrics.EMPTY))));
    ops.add(new Operation("claim finding nothing READY", 10, (l, c) -> {}, (l, c) -> {
      for (int i = 0; i < 10; i++) {
        if (l.claimPartitions(claim("bench.claim")).isPresent()) {
          throw new IllegalStateException("an idle claim took a batch");
        }
      }
    }));
    return ops;
  }

  /** A claim of one table's 10 partitions while {@code tables} tables of 10 READY partitions are in the ledger. */
  static Operation claimAmong(int tables) {
    return new Operation("claim of 10 partitions x 1 file among " + tables + " tables", 1,
        (l, c) -> l.recordFiles(onePerPartition(tables, "2026-08", true)), (l, c) -> {
          if (l.claimPartitions(claim(table(tables / 2))).isEmpty()) {
            throw new IllegalStateException("the claim took nothing");
          }
        });
  }

  /** The batcher's turn: it claims every table of the deployment, here none with anything READY. */
  static Operation idleTurn(int tables) {
    return new Operation("a turn of claims over " + tables + " tables, none READY", tables,
        (l, c) -> l.recordFiles(onePerPartition(tables, "2026-07", false)), (l, c) -> {
          for (int t = 0; t < tables; t++) {
            if (l.claimPartitions(claim(table(t))).isPresent()) {
              throw new IllegalStateException("an idle claim took a batch");
            }
          }
        });
  }

  /** One file in each of 10 day partitions of {@code month} ({@code yyyy-MM}) of each of {@code tables} tables. */
  private static List<RecordFile> onePerPartition(int tables, String month, boolean readyOnArrival) {
    List<RecordFile> files = new ArrayList<>(tables * 10);
    for (int t = 0; t < tables; t++) {
      for (int p = 0; p < 10; p++) {
        files.add(file(table(t), String.format(Locale.ROOT, "%s-%02d", month, p + 1), 0, readyOnArrival));
      }
    }
    return files;
  }

  private static String table(int t) {
    return String.format(Locale.ROOT, "bench.t%04d", t);
  }

  /** A claim of a table's READY partitions, at most 1,000 files, none while the table has a batch in flight. */
  static ClaimPartitions claim(String table) {
    return new ClaimPartitions(table, 1000, LEASE, true);
  }

  static RecordFile file(String table, String partition, int i, boolean readyOnArrival) {
    String name = "landing/" + table + "/dt=" + partition + "/part-" + String.format(Locale.ROOT, "%05d", i)
        + "-c000.snappy.parquet";
    long generation = 1_733_000_000_000_000L + i;
    return new RecordFile(table, partition, "bench-bucket", name, generation, "gs://bench-bucket/" + name,
        1_048_576, Long.toString(13_000_000_000_000_000L + RANDOM.nextInt(1_000_000_000)),
        Instant.parse("2026-11-30T00:00:00Z"), Optional.empty(), readyOnArrival);
  }

  private static MarkReady marker(String table, String partition) {
    return new MarkReady(table, partition, "gs://bench-bucket/landing/" + table + "/dt=" + partition + "/",
        Long.toString(13_000_000_000_000_000L + RANDOM.nextInt(1_000_000_000)), Instant.parse("2026-11-30T00:00:00Z"));
  }
}
