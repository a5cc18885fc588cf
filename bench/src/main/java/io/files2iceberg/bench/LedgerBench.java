package io.files2iceberg.bench;

import io.files2iceberg.bench.LedgerOperations.Context;
import io.files2iceberg.bench.LedgerOperations.Operation;
import io.files2iceberg.core.ledger.Ledger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ledger's cost per operation, on SQLite ({@link SqliteSide}) and on the Cloud Firestore
 * emulator ({@link FirestoreSide}): a file record, a marker over files already recorded, a marker
 * listing N unnotified files (the listener's marker path: {@code recordFiles} then {@code
 * markReady}), a claim of 10 partitions of 10 files, the settlement (commit) of that batch, a
 * claim that finds nothing, and a claim with 1, 100 and 1,000 tables of 10 READY partitions each
 * in the ledger ({@link LedgerOperations}). Each is timed and counted exactly ({@link
 * LedgerCounts}). The baseline writes the same documents (rows) bare, in as few commits as the
 * store allows (Firestore: batched writes of 500; SQLite: one transaction), without reads,
 * transactions or rules; the documents are the ones the operation wrote in an unreported first
 * round. Sides alternate per operation and round; every round works in a fresh namespace (a
 * collection prefix, a database file). The emulator enforces no quota or hotspot: its times say
 * nothing about Firestore's limits, only about our own work and round trips.
 */
final class LedgerBench {
  static final String BARE = "bare writes";
  private static final String SUITE = "ledger";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path work;
  private final Report report;
  private final List<Integer> markerSizes;
  private final List<Integer> tableCounts;
  private final LedgerCountsTable counted = new LedgerCountsTable();

  LedgerBench(Path work, Report report, List<Integer> markerSizes, List<Integer> tableCounts) {
    this.work = work;
    this.report = report;
    this.markerSizes = markerSizes;
    this.tableCounts = tableCounts;
  }

  void measure(int rounds) throws Exception {
    try (LedgerSide sqlite = new SqliteSide(Files.createDirectories(work.resolve("sqlite")))) {
      measure(sqlite, rounds);
    }
    Optional<String> missing = FirestoreEmulator.missingBecause();
    if (missing.isPresent()) {
      Bench.progress("[ledger] Firestore part SKIPPED: " + missing.get());
      System.out.println("{\"suite\":\"ledger\",\"store\":\"firestore\",\"skipped\":\"" + missing.get() + "\"}");
    } else {
      try (LedgerSide firestore = FirestoreSide.start(work)) {
        measure(firestore, rounds);
      }
    }
    counted.print(System.out);
  }

  private void measure(LedgerSide store, int rounds) throws Exception {
    Bench.progress("[ledger] " + store.name() + ": capturing the documents each operation writes (round 0)");
    Map<String, List<Object>> documents = new LinkedHashMap<>();
    List<Operation> ops = LedgerOperations.perCall(markerSizes);
    String warm = namespace();
    try (Ledger ledger = store.open(warm)) {
      Context context = new Context();
      for (Operation op : ops) {
        run(store, ledger, context, op, warm, documents);
      }
    }
    // A claim among any number of tables writes the same documents: captured among one.
    Operation claimAmongOne = LedgerOperations.claimAmong(1);
    String warmClaim = namespace();
    try (Ledger ledger = store.open(warmClaim)) {
      run(store, ledger, new Context(), claimAmongOne, warmClaim, documents);
    }
    for (int round = 1; round <= rounds; round++) {
      store.reset();
      try (Ledger ledger = store.open(namespace())) {
        Context context = new Context();
        for (Operation op : ops) {
          measureOne(store, ledger, context, op, documents.get(op.name()), round);
        }
      }
      for (int tables : tableCounts) {
        store.reset();
        Bench.progress("[ledger] " + store.name() + ": round " + round + ", " + tables + " tables of 10 READY partitions");
        try (Ledger ledger = store.open(namespace())) {
          measureOne(store, ledger, new Context(), LedgerOperations.claimAmong(tables),
              documents.get(claimAmongOne.name()), round);
        }
        store.reset();
        try (Ledger ledger = store.open(namespace())) {
          measureOne(store, ledger, new Context(), LedgerOperations.idleTurn(tables), List.of(), round);
        }
      }
    }
  }

  /** The unreported round: runs the operation while capturing what it writes. */
  private static void run(LedgerSide store, Ledger ledger, Context context, Operation op, String ns,
      Map<String, List<Object>> documents) throws Exception {
    op.setup().on(ledger, context);
    store.capture(true);
    op.run().on(ledger, context);
    documents.put(op.name(), store.captured(ns));
  }

  private void measureOne(LedgerSide store, Ledger ledger, Context context, Operation op, List<Object> documents,
      int round) throws Exception {
    op.setup().on(ledger, context);
    String data = store.name() + ": " + op.name();
    // Nothing written (a claim that finds nothing): no baseline to write.
    String[] sides = documents.isEmpty() ? new String[] {MergeBench.JOB}
        : round % 2 == 1 ? new String[] {MergeBench.JOB, BARE} : new String[] {BARE, MergeBench.JOB};
    for (String side : sides) {
      boolean bare = side.equals(BARE);
      String bareNamespace = namespace();
      if (bare) {
        store.prepareBare(bareNamespace);
      }
      double load = MergeBench.loadAverage()[0];
      LedgerCounts.Snapshot before = store.counts().snapshot();
      long start = System.nanoTime();
      if (bare) {
        store.writeBare(bareNamespace, documents);
      } else {
        op.run().on(ledger, context);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      LedgerCounts.Snapshot cost = store.counts().snapshot().minus(before);
      int operations = bare ? 1 : op.operations();
      counted.counted(data, op.operations(), bare, cost);
      report.measured(new Report.Measurement(SUITE, data, side, round, seconds, load, MergeBench.loadAverage()[0],
          (bare ? "all calls: " : "per call (of " + operations + "): ") + cost.per(operations)));
    }
  }

  /** A fresh namespace: a collection prefix (Firestore), a database file's name (SQLite). */
  private static String namespace() {
    byte[] random = new byte[5];
    RANDOM.nextBytes(random);
    return "b" + HexFormat.of().formatHex(random) + "_";
  }
}
