package io.files2iceberg.bench;

import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.WriteBatch;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.ledger.firestore.FirestoreLedger;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;

/**
 * The ledger's cost per operation, on SQLite and on the Cloud Firestore emulator: a file record, a
 * marker over files already recorded, a marker listing N unnotified files (the listener's marker
 * path: {@code recordFiles} then {@code markReady}), a claim of 10 partitions of 10 files, the
 * settlement (commit) of that batch, a claim that finds nothing, and a claim with 1, 100 and 1,000
 * tables of 10 READY partitions each in the ledger. Each is timed and counted exactly ({@link
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
  private static final Path EMULATOR_JAR =
      Path.of("/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar");
  private static final String PROJECT = "files2iceberg-bench";
  private static final Duration LEASE = Duration.ofMinutes(30);
  /**
   * The ledger's deadline per call on the emulator: its queries slow down with the documents it
   * holds (a claim among 1,000 tables of 10 partitions takes seconds there), and the machine may
   * be busy; 5 s (the default) would fail calls whose cost is what is measured.
   */
  private static final Duration DEADLINE = Duration.ofSeconds(120);

  private final Path work;
  private final Report report;
  private final List<Integer> markerSizes;
  private final List<Integer> tableCounts;
  private final Map<String, LedgerCounts.Snapshot[]> counted = new LinkedHashMap<>();

  LedgerBench(Path work, Report report, List<Integer> markerSizes, List<Integer> tableCounts) {
    this.work = work;
    this.report = report;
    this.markerSizes = markerSizes;
    this.tableCounts = tableCounts;
  }

  /** One store: opens ledgers in fresh namespaces, counts, and writes captured documents bare. */
  private interface Store extends AutoCloseable {
    String name();

    Ledger open(String namespace) throws Exception;

    LedgerCounts counts();

    void capture(boolean on);

    /** The documents written while capturing, read back as stored; capturing is reset. */
    List<Object> captured(String namespace) throws Exception;

    /** A fresh store before a round, so no measurement reads past another's data. */
    default void reset() throws Exception {}

    /** Makes the namespace ready for {@link #writeBare} (SQLite: the file and its schema); not timed. */
    default void prepareBare(String namespace) throws Exception {}

    /** Writes the documents bare into the namespace, in as few commits as the store allows. */
    void writeBare(String namespace, List<Object> documents) throws Exception;

    @Override
    void close() throws Exception;
  }

  /** A measured operation: {@code setup} is not timed; {@code operations} is how many calls it makes. */
  private record Operation(String name, int operations, LedgerStep setup, LedgerStep run) {}

  @FunctionalInterface
  private interface LedgerStep {
    void on(Ledger ledger, Context context) throws Exception;
  }

  /** What one round's operations hand each other (the claimed batch). */
  private static final class Context {
    String batchId;
  }

  void measure(int rounds) throws Exception {
    try (Store sqlite = new SqliteSide(Files.createDirectories(work.resolve("sqlite")))) {
      measure(sqlite, rounds);
    }
    Optional<String> missing = emulatorMissingBecause();
    if (missing.isPresent()) {
      Bench.progress("[ledger] Firestore part SKIPPED: " + missing.get());
      System.out.println("{\"suite\":\"ledger\",\"store\":\"firestore\",\"skipped\":\"" + missing.get() + "\"}");
    } else {
      try (Store firestore = FirestoreSide.start(work)) {
        measure(firestore, rounds);
      }
    }
    printCounts();
  }

  private List<Operation> operations() {
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
    }, (l, c) -> c.batchId = l.claimPartitions(new ClaimPartitions("bench.claim", 1000, LEASE, true))
        .map(BatchRecord::batchId).orElseThrow(() -> new IllegalStateException("the claim took nothing"))));
    ops.add(new Operation("settlement (commit) of that batch of 100 files", 1,
        (l, c) -> l.markRunning(c.batchId, LEASE),
        (l, c) -> l.commitBatch(new CommitBatch(c.batchId, 1L, BatchMetrics.EMPTY))));
    ops.add(new Operation("claim finding nothing READY", 10, (l, c) -> {}, (l, c) -> {
      for (int i = 0; i < 10; i++) {
        if (l.claimPartitions(new ClaimPartitions("bench.claim", 1000, LEASE, true)).isPresent()) {
          throw new IllegalStateException("an idle claim took a batch");
        }
      }
    }));
    return ops;
  }

  private Operation claimAmong(int tables) {
    return new Operation("claim of 10 partitions x 1 file among " + tables + " tables", 1, (l, c) -> {
      List<RecordFile> files = new ArrayList<>(tables * 10);
      for (int t = 0; t < tables; t++) {
        for (int p = 0; p < 10; p++) {
          files.add(file(table(t), String.format(Locale.ROOT, "2026-08-%02d", p + 1), 0, true));
        }
      }
      l.recordFiles(files);
    }, (l, c) -> {
      if (l.claimPartitions(new ClaimPartitions(table(tables / 2), 1000, LEASE, true)).isEmpty()) {
        throw new IllegalStateException("the claim took nothing");
      }
    });
  }

  /** The batcher's turn: it claims every table of the deployment, here none with anything READY. */
  private Operation idleTurn(int tables) {
    return new Operation("a turn of claims over " + tables + " tables, none READY", tables, (l, c) -> {
      List<RecordFile> files = new ArrayList<>(tables * 10);
      for (int t = 0; t < tables; t++) {
        for (int p = 0; p < 10; p++) {
          files.add(file(table(t), String.format(Locale.ROOT, "2026-07-%02d", p + 1), 0, false));
        }
      }
      l.recordFiles(files);
    }, (l, c) -> {
      for (int t = 0; t < tables; t++) {
        if (l.claimPartitions(new ClaimPartitions(table(t), 1000, LEASE, true)).isPresent()) {
          throw new IllegalStateException("an idle claim took a batch");
        }
      }
    });
  }

  private static String table(int t) {
    return String.format(Locale.ROOT, "bench.t%04d", t);
  }

  private void measure(Store store, int rounds) throws Exception {
    Bench.progress("[ledger] " + store.name() + ": capturing the documents each operation writes (round 0)");
    Map<String, List<Object>> documents = new LinkedHashMap<>();
    List<Operation> ops = operations();
    String warm = namespace();
    try (Ledger ledger = store.open(warm)) {
      Context context = new Context();
      for (Operation op : ops) {
        run(store, ledger, context, op, warm, documents);
      }
    }
    String claimKey = claimAmong(1).name();
    String warmClaim = namespace();
    try (Ledger ledger = store.open(warmClaim)) {
      run(store, ledger, new Context(), claimAmong(1), warmClaim, documents);
    }
    for (int round = 1; round <= rounds; round++) {
      store.reset();
      String ns = namespace();
      try (Ledger ledger = store.open(ns)) {
        Context context = new Context();
        for (Operation op : ops) {
          measureOne(store, ledger, context, op, documents.get(op.name()), round);
        }
      }
      for (int tables : tableCounts) {
        store.reset();
        String tablesNs = namespace();
        Bench.progress("[ledger] " + store.name() + ": round " + round + ", " + tables + " tables of 10 READY partitions");
        try (Ledger ledger = store.open(tablesNs)) {
          measureOne(store, ledger, new Context(), claimAmong(tables), documents.get(claimKey), round);
        }
        store.reset();
        try (Ledger ledger = store.open(namespace())) {
          measureOne(store, ledger, new Context(), idleTurn(tables), List.of(), round);
        }
      }
    }
  }

  /** The unreported round: runs the operation while capturing what it writes. */
  private void run(Store store, Ledger ledger, Context context, Operation op, String ns,
      Map<String, List<Object>> documents) throws Exception {
    op.setup().on(ledger, context);
    store.capture(true);
    op.run().on(ledger, context);
    documents.put(op.name(), store.captured(ns));
  }

  private void measureOne(Store store, Ledger ledger, Context context, Operation op, List<Object> documents,
      int round) throws Exception {
    op.setup().on(ledger, context);
    String data = store.name() + ": " + op.name();
    // Nothing written (a claim that finds nothing): no baseline to write.
    String[] sides = documents.isEmpty() ? new String[] {MergeBench.JOB}
        : round % 2 == 1 ? new String[] {MergeBench.JOB, BARE} : new String[] {BARE, MergeBench.JOB};
    for (String side : sides) {
      String bareNamespace = namespace();
      if (side.equals(BARE)) {
        store.prepareBare(bareNamespace);
      }
      double load = MergeBench.loadAverage()[0];
      LedgerCounts.Snapshot before = store.counts().snapshot();
      long start = System.nanoTime();
      if (side.equals(BARE)) {
        store.writeBare(bareNamespace, documents);
      } else {
        op.run().on(ledger, context);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      LedgerCounts.Snapshot cost = store.counts().snapshot().minus(before);
      int operations = side.equals(BARE) ? 1 : op.operations();
      counted.computeIfAbsent(data, k -> new LedgerCounts.Snapshot[2])[side.equals(BARE) ? 1 : 0] = cost;
      report.measured(new Report.Measurement(SUITE, data, side, round, seconds, load, MergeBench.loadAverage()[0],
          (side.equals(BARE) ? "all calls: " : "per call (of " + operations + "): ") + cost.per(operations)));
    }
  }

  /** The exact counts of the last round, per call for our side and for the bare writes of the same documents. */
  private void printCounts() {
    System.out.println();
    System.out.println("| store: operation | files2iceberg per call | bare writes of the same documents, all calls |");
    System.out.println("|---|---|---|");
    counted.forEach((data, costs) -> {
      int operations = operationsOf(data);
      LedgerCounts.Snapshot ours = costs[0];
      LedgerCounts.Snapshot bare = costs[1];
      String per = ours == null ? "-" : ours.per(operations);
      if (data.startsWith("sqlite")) {
        per = per.replaceFirst("reads 0 \\(missing 0\\), ", "").replaceFirst(", queries 0, rpcs 0", "");
      }
      System.out.printf(Locale.ROOT, "| %s | %s | %s |%n", data, per,
          bare == null ? "-" : bare.written() + " writes, " + bare.commits() + " commits, " + bare.rpcs() + " RPCs");
    });
    System.out.flush();
  }

  private int operationsOf(String data) {
    if (data.contains("file record")) {
      return 100;
    } else if (data.contains("finding nothing")) {
      return 10;
    }
    for (int tables : tableCounts) {
      if (data.endsWith("over " + tables + " tables, none READY")) {
        return tables;
      }
    }
    return 1;
  }

  private static RecordFile file(String table, String partition, int i, boolean readyOnArrival) {
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

  private static String namespace() {
    byte[] random = new byte[5];
    RANDOM.nextBytes(random);
    return "b" + HexFormat.of().formatHex(random) + "_";
  }

  static Optional<String> emulatorMissingBecause() {
    String external = System.getenv("FIRESTORE_EMULATOR_HOST");
    if (external != null && !external.isBlank()) {
      return Optional.empty();
    }
    return Files.isRegularFile(EMULATOR_JAR) ? Optional.empty()
        : Optional.of("the Cloud Firestore emulator is missing (" + EMULATOR_JAR
            + "; gcloud components install cloud-firestore-emulator, or set FIRESTORE_EMULATOR_HOST)");
  }

  // --- SQLite ------------------------------------------------------------------------------------

  /**
   * SQLite: one database file per namespace. Rows written and commits are counted by the update and
   * commit hooks of the ledger's writer connection (found by reflection: the ledger does not expose
   * it), and of the bare side's own connection.
   */
  private static final class SqliteSide implements Store {
    private final Path dir;
    private final LedgerCounts counts = new LedgerCounts();
    private final List<String> written = new ArrayList<>();
    private volatile boolean capturing;

    SqliteSide(Path dir) {
      this.dir = dir;
    }

    @Override
    public String name() {
      return "sqlite";
    }

    @Override
    public Ledger open(String namespace) throws Exception {
      SqliteLedger ledger = SqliteLedger.open(dir.resolve(namespace + ".db"), Clock.systemUTC());
      hook((SQLiteConnection) field(field(ledger, "store"), "writeConnection"));
      return ledger;
    }

    private void hook(SQLiteConnection connection) {
      connection.addUpdateListener((type, database, table, rowId) -> {
        counts.documentsWritten.increment();
        if (capturing) {
          synchronized (written) {
            written.add(table + "\u0000" + rowId);
          }
        }
      });
      connection.addCommitListener(new org.sqlite.SQLiteCommitListener() {
        @Override
        public void onCommit() {
          counts.commits.increment();
          counts.transactions.increment();
        }

        @Override
        public void onRollback() {
          counts.rollbacks.increment();
        }
      });
    }

    private static Object field(Object owner, String name) throws ReflectiveOperationException {
      Field field = owner.getClass().getDeclaredField(name);
      field.setAccessible(true);
      return field.get(owner);
    }

    @Override
    public LedgerCounts counts() {
      return counts;
    }

    @Override
    public void capture(boolean on) {
      capturing = on;
    }

    @Override
    public List<Object> captured(String namespace) throws Exception {
      capturing = false;
      List<Object> rows = new ArrayList<>();
      try (Connection connection = new SQLiteConfig().createConnection("jdbc:sqlite:" + dir.resolve(namespace + ".db"))) {
        List<String> keys;
        synchronized (written) {
          keys = List.copyOf(new java.util.LinkedHashSet<>(written));
          written.clear();
        }
        for (String key : keys) {
          String[] parts = key.split("\u0000");
          try (PreparedStatement select = connection.prepareStatement(
              "SELECT * FROM \"" + parts[0] + "\" WHERE rowid = ?")) {
            select.setLong(1, Long.parseLong(parts[1]));
            try (ResultSet row = select.executeQuery()) {
              if (row.next()) {
                ResultSetMetaData meta = row.getMetaData();
                Map<String, Object> values = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                  values.put(meta.getColumnName(i), row.getObject(i));
                }
                rows.add(Map.entry(parts[0], values));
              }
            }
          }
        }
      }
      return rows;
    }

    @Override
    public void prepareBare(String namespace) {
      SqliteLedger.open(dir.resolve(namespace + ".db"), Clock.systemUTC()).close();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void writeBare(String namespace, List<Object> documents) throws Exception {
      Path file = dir.resolve(namespace + ".db");
      SQLiteConfig config = new SQLiteConfig();
      config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
      try (Connection connection = config.createConnection("jdbc:sqlite:" + file)) {
        try (Statement statement = connection.createStatement()) {
          statement.execute("PRAGMA journal_mode=WAL");
        }
        hook((SQLiteConnection) connection);
        connection.setAutoCommit(false);
        for (Object document : documents) {
          Map.Entry<String, Map<String, Object>> row = (Map.Entry<String, Map<String, Object>>) document;
          List<String> columns = new ArrayList<>(row.getValue().keySet());
          String sql = "INSERT OR REPLACE INTO \"" + row.getKey() + "\" (" + String.join(", ", columns.stream()
              .map(c -> "\"" + c + "\"").toList()) + ") VALUES (" + String.join(", ", columns.stream().map(c -> "?")
              .toList()) + ")";
          try (PreparedStatement insert = connection.prepareStatement(sql)) {
            for (int i = 0; i < columns.size(); i++) {
              insert.setObject(i + 1, row.getValue().get(columns.get(i)));
            }
            insert.executeUpdate();
          }
        }
        connection.commit();
      }
    }

    @Override
    public void close() {}
  }

  // --- Firestore ---------------------------------------------------------------------------------

  /**
   * The Cloud Firestore emulator this suite started (or the one at FIRESTORE_EMULATOR_HOST), and
   * one client on it whose RPCs are counted. Its own emulator is started afresh before every
   * round and every table count: the emulator's queries take longer the more documents it has
   * held (clearing it does not help; Firestore's indexed queries do not), and a claim on an
   * emulator grown by earlier rounds would outlast the ledger's deadline.
   */
  private static final class FirestoreSide implements Store {
    private final Path work;
    private final boolean ownEmulator;
    private final FirestoreCounter counter = new FirestoreCounter();
    private final String documentsRoot = "projects/" + PROJECT + "/databases/(default)/documents/";
    private Process process;
    private Firestore db;
    private int starts;

    private FirestoreSide(Path work, String externalHost) throws Exception {
      this.work = work;
      this.ownEmulator = externalHost == null;
      if (ownEmulator) {
        startEmulator();
      } else {
        Bench.progress("[ledger] Firestore: the emulator at FIRESTORE_EMULATOR_HOST=" + externalHost
            + " (not restarted between rounds: its data is not ours)");
        db = counter.client(externalHost, PROJECT);
      }
    }

    static FirestoreSide start(Path work) throws Exception {
      String external = System.getenv("FIRESTORE_EMULATOR_HOST");
      return new FirestoreSide(work, external != null && !external.isBlank() ? external : null);
    }

    private void startEmulator() throws Exception {
      int port;
      try (ServerSocket socket = new ServerSocket(0)) {
        port = socket.getLocalPort();
      }
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Path log = work.resolve("firestore-emulator-" + (++starts) + ".log");
      Process started = new ProcessBuilder(java, "-Duser.language=en", "-Xmx2g", "-cp", EMULATOR_JAR.toString(),
          "com.google.cloud.datastore.emulator.firestore.CloudFirestore", "start", "--host=127.0.0.1",
          "--port=" + port, "--project_id=" + PROJECT).redirectErrorStream(true).start();
      process = started;
      CompletableFuture<Boolean> ready = new CompletableFuture<>();
      Thread pump = new Thread(() -> {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(started.getInputStream(),
            StandardCharsets.UTF_8)); var out = Files.newBufferedWriter(log)) {
          for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            out.write(line);
            out.newLine();
            out.flush();
            if (line.contains("Dev App Server is now running")) {
              ready.complete(true);
            }
          }
        } catch (Exception e) {
          ready.completeExceptionally(e);
        }
        ready.complete(false);
      }, "firestore-emulator-log");
      pump.setDaemon(true);
      pump.start();
      if (!ready.get(120, TimeUnit.SECONDS)) {
        stopEmulator();
        throw new IllegalStateException("the Cloud Firestore emulator did not start; see " + log);
      }
      Bench.progress("[ledger] Firestore: started the Cloud Firestore emulator (pid " + started.pid()
          + ") on 127.0.0.1:" + port + ", log " + log);
      db = counter.client("127.0.0.1:" + port, PROJECT);
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
          warm.recordFile(file("bench.warm", "2026-01-01", i, true));
          warm.claimPartitions(new ClaimPartitions("bench.idle", 1000, LEASE, true));
        }
        warm.claimPartitions(new ClaimPartitions("bench.warm", 1000, LEASE, true)).ifPresent(batch ->
            warm.commitBatch(new CommitBatch(batch.batchId(), 1L, BatchMetrics.EMPTY)));
      }
    }

    /** Stops the emulator this suite started, by its own process handle. */
    private void stopEmulator() throws Exception {
      if (db != null) {
        db.close();
        db = null;
      }
      if (process != null) {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
        Bench.progress("[ledger] Firestore: stopped the emulator (pid " + process.pid() + ")");
        process = null;
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
      for (int from = 0; from < documents.size(); from += 500) {
        WriteBatch batch = db.batch();
        for (Object document : documents.subList(from, Math.min(documents.size(), from + 500))) {
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
}
