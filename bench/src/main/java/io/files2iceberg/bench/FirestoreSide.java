package io.files2iceberg.bench;

import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.WriteBatch;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.ledger.firestore.FirestoreLedger;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Cloud Firestore emulator this suite started (or the one at FIRESTORE_EMULATOR_HOST), and
 * one client on it whose RPCs are counted ({@link FirestoreCounter}). Its own emulator is started
 * afresh before every round and every table count: the emulator's queries take longer the more
 * documents it has held (clearing it does not help; Firestore's indexed queries do not), and a
 * claim on an emulator grown by earlier rounds would outlast the ledger's deadline. A captured
 * document is its path below the namespace and its fields.
 */
final class FirestoreSide implements LedgerSide {
  private static final String PROJECT = "files2iceberg-bench";
  /**
   * The ledger's deadline per call on the emulator: its queries slow down with the documents it
   * holds (a claim among 1,000 tables of 10 partitions takes seconds there), and the machine may
   * be busy; 5 s (the default) would fail calls whose cost is what is measured.
   */
  private static final Duration DEADLINE = Duration.ofSeconds(120);
  /** Firestore's most writes in one batched write. */
  private static final int WRITES_PER_BATCH = 500;

  private final Path work;
  private final boolean ownEmulator;
  private final FirestoreCounter counter = new FirestoreCounter();
  private final String documentsRoot = "projects/" + PROJECT + "/databases/(default)/documents/";
  private FirestoreEmulator emulator;
  private Firestore db;
  private int starts;

  private FirestoreSide(Path work, Optional<String> externalHost) throws Exception {
    this.work = work;
    this.ownEmulator = externalHost.isEmpty();
    if (ownEmulator) {
      startEmulator();
    } else {
      Bench.progress("[ledger] Firestore: the emulator at FIRESTORE_EMULATOR_HOST=" + externalHost.get()
          + " (not restarted between rounds: its data is not ours)");
      db = counter.client(externalHost.get(), PROJECT);
    }
  }

  /** On the emulator at FIRESTORE_EMULATOR_HOST when set, else on one of its own (its logs in {@code work}). */
  static FirestoreSide start(Path work) throws Exception {
    return new FirestoreSide(work, FirestoreEmulator.externalHost());
  }

  private void startEmulator() throws Exception {
    emulator = FirestoreEmulator.start(PROJECT, work.resolve("firestore-emulator-" + (++starts) + ".log"));
    db = counter.client(emulator.host(), PROJECT);
    try {
      warmUp();
    } catch (RuntimeException e) {
      stopEmulator();
      throw e;
    }
  }

  /**
   * A fresh emulator (and its JIT) answers its first few hundred calls several times slower:
   * a few of each call, untimed, under a prefix of their own, before anything is measured.
   */
  private void warmUp() {
    try (Ledger warm = FirestoreLedger.open(db, "warm" + starts + "_", Clock.systemUTC(), DEADLINE)) {
      for (int i = 0; i < 100; i++) {
        warm.recordFile(LedgerOperations.file("bench.warm", "2026-01-01", i, true));
        warm.claimPartitions(LedgerOperations.claim("bench.idle"));
      }
      warm.claimPartitions(LedgerOperations.claim("bench.warm")).ifPresent(batch ->
          warm.commitBatch(new CommitBatch(batch.batchId(), 1L, BatchMetrics.EMPTY)));
    }
  }

  /** Closes the client, then stops the emulator this suite started. */
  private void stopEmulator() throws Exception {
    if (db != null) {
      db.close();
      db = null;
    }
    if (emulator != null) {
      emulator.close();
      emulator = null;
    }
  }

  @Override
  public String name() {
    return "firestore";
  }

  @Override
  public void reset() throws Exception {
    if (ownEmulator) {
      stopEmulator();
      startEmulator();
    }
  }

  @Override
  public Ledger open(String namespace) {
    return FirestoreLedger.open(db, namespace, Clock.systemUTC(), DEADLINE);
  }

  @Override
  public LedgerCounts counts() {
    return counter.counts;
  }

  @Override
  public void capture(boolean on) {
    counter.written.clear();
    counter.capturing = on;
  }

  @Override
  public List<Object> captured(String namespace) throws Exception {
    counter.capturing = false;
    List<Object> documents = new ArrayList<>();
    for (String name : List.copyOf(counter.written)) {
      String path = name.substring(name.indexOf(documentsRoot) + documentsRoot.length());
      DocumentSnapshot doc = db.document(path).get().get();
      if (doc.exists() && path.startsWith(namespace)) {
        documents.add(Map.entry(path.substring(namespace.length()), doc.getData()));
      }
    }
    counter.written.clear();
    return documents;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void writeBare(String namespace, List<Object> documents) throws Exception {
    for (int from = 0; from < documents.size(); from += WRITES_PER_BATCH) {
      WriteBatch batch = db.batch();
      for (Object document : documents.subList(from, Math.min(documents.size(), from + WRITES_PER_BATCH))) {
        Map.Entry<String, Map<String, Object>> doc = (Map.Entry<String, Map<String, Object>>) document;
        batch.set(db.document(namespace + doc.getKey()), doc.getValue());
      }
      batch.commit().get();
    }
  }

  @Override
  public void close() throws Exception {
    if (ownEmulator) {
      stopEmulator();
    } else {
      db.close();
    }
  }
}
