package io.files2iceberg.core.ledger.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.RecordFile;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite ledger's one writer: concurrent writes share a transaction (one fsync), each caller
 * hears its own outcome and only after the commit, and a ledger closed under waiting writes
 * acknowledges none of them. Real SQLite files; another connection holds the write lock where a
 * test needs writes to pile up, as another process would.
 */
class SqliteGroupCommitTest {
  private static final Instant START = Instant.parse("2024-05-01T10:00:00Z");
  private static final String TABLE = "lake.clicks";
  private static final String BUCKET = "landing";
  /** How long a test lets its callers reach the writer's queue before it releases the lock. */
  private static final long QUEUE_UP_MILLIS = 1_000;

  @TempDir Path dir;

  private final MutableClock clock = new MutableClock(START);
  private final ExecutorService callers = Executors.newCachedThreadPool();

  @AfterEach
  void stopCallers() {
    callers.shutdownNow();
  }

  private Path dbFile() {
    return dir.resolve("ledger.db");
  }

  @Test
  void writesThatWaitForTheWriteLockTogetherCommitInOneTransaction() throws Exception {
    try (SqliteLedger ledger = SqliteLedger.open(dbFile(), clock);
        Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement lock = other.createStatement()) {
      long before = ledger.writeTransactions();
      lock.execute("BEGIN IMMEDIATE");
      List<Future<FileRecorded>> calls = recordConcurrently(ledger,
          IntStream.range(0, 32).mapToObj(i -> file("2024-01-01", "part-" + i + ".parquet", "evt-" + i)).toList());
      lock.execute("ROLLBACK");

      for (Future<FileRecorded> call : calls) {
        assertThat(call.get(30, TimeUnit.SECONDS).isNew()).isTrue();
      }
      // One per caller before group commit; the writer takes all that queued up in one group
      // (a straggler that reached the queue late may make a second).
      assertThat(ledger.writeTransactions() - before).isBetween(1L, 2L);
      assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 32L));
    }
  }

  @Test
  void manyThreadsRecordingDistinctAndDuplicateFilesAtOnceRecordEachFileExactlyOnce() throws Exception {
    int threads = 16;
    int shared = 120;
    int own = 40;
    List<Callable<List<FileRecorded>>> work = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    try (SqliteLedger ledger = SqliteLedger.open(dbFile(), clock)) {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        work.add(() -> {
          List<RecordFile> commands = new ArrayList<>();
          for (int i = 0; i < shared; i++) {
            // Every thread records the shared files, each under its own event id, in its own order.
            int n = (i + thread * 7) % shared;
            commands.add(file(day(n), "shared-" + n + ".parquet", "evt-t" + thread + "-shared-" + n));
          }
          for (int i = 0; i < own; i++) {
            commands.add(file(day(i), "own-" + thread + "-" + i + ".parquet", "evt-t" + thread + "-own-" + i));
          }
          start.await();
          List<FileRecorded> results = new ArrayList<>();
          for (RecordFile command : commands) {
            results.add(ledger.recordFile(command));
            if (thread == 0 && command.name().endsWith("shared-60.parquet")) {
              ledger.markReady(new MarkReady(TABLE, "2024-01-01", "gs://landing/raw/dt=2024-01-01/", "marker-1", START));
            }
          }
          return results;
        });
      }
      List<Future<List<FileRecorded>>> futures = work.stream().map(callers::submit).toList();
      start.countDown();
      List<FileRecorded> all = new ArrayList<>();
      for (Future<List<FileRecorded>> future : futures) {
        all.addAll(future.get(2, TimeUnit.MINUTES));
      }

      Map<String, List<FileRecorded>> firsts = new HashMap<>();
      for (FileRecorded recorded : all) {
        if (recorded.isNew()) {
          firsts.computeIfAbsent(recorded.file().fileId(), id -> new ArrayList<>()).add(recorded);
        }
      }
      int distinct = shared + threads * own;
      assertThat(all).hasSize(threads * (shared + own));
      assertThat(firsts).hasSize(distinct).allSatisfy((id, recorded) -> assertThat(recorded).hasSize(1));
      for (List<FileRecorded> recorded : firsts.values()) {
        FileRecord first = recorded.get(0).file();
        // Read back through the ledger: the file as the one caller told "new" recorded it.
        assertThat(ledger.file(first.fileId())).contains(first);
      }
      for (FileRecorded recorded : all) {
        if (!recorded.isNew()) {
          assertThat(recorded.file().eventId())
              .isEqualTo(firsts.get(recorded.file().fileId()).get(0).file().eventId());
        }
      }
      assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, (long) distinct));
      assertThat(ledger.partition(TABLE, "2024-01-01").orElseThrow().state()).isEqualTo(PartitionState.READY);
      assertThat(ledger.partition(TABLE, "2024-01-02").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
      assertThat(ledger.partition(TABLE, "2024-01-03").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
      long firstDay = IntStream.range(0, shared).filter(n -> n % 3 == 0).count()
          + threads * IntStream.range(0, own).filter(i -> i % 3 == 0).count();
      assertThat(ledger.filesOfPartition(TABLE, "2024-01-01")).hasSize((int) firstDay);
    }
  }

  @Test
  void aWriteThatFailsInsideAGroupFailsOnlyItsCallerAndTheOthersCommit() throws Exception {
    refuseInsertsNamed("poison", "ABORT");
    try (SqliteLedger ledger = SqliteLedger.open(dbFile(), clock);
        Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement lock = other.createStatement()) {
      long before = ledger.writeTransactions();
      List<RecordFile> commands = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        commands.add(i == 10 ? file("2024-01-09", "poison.parquet", "evt-poison")
            : file("2024-01-01", "part-" + i + ".parquet", "evt-" + i));
      }
      lock.execute("BEGIN IMMEDIATE");
      List<Future<FileRecorded>> calls = recordConcurrently(ledger, commands);
      lock.execute("ROLLBACK");

      for (int i = 0; i < commands.size(); i++) {
        if (i == 10) {
          assertFailure(calls.get(i))
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("Ledger recordFile failed for file ")
              .hasMessageContaining("gs://landing/raw/dt=2024-01-09/poison.parquet")
              .hasMessageContaining("poisoned file refused");
        } else {
          assertThat(calls.get(i).get(30, TimeUnit.SECONDS).isNew()).isTrue();
        }
      }
      assertThat(ledger.writeTransactions() - before).isBetween(1L, 2L);
      assertThat(ledger.file(commands.get(10).fileId())).isEmpty();
      // Its partition, created in the same write, went with it.
      assertThat(ledger.partition(TABLE, "2024-01-09")).isEmpty();
      assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 19L));
    }
  }

  @Test
  void aWriteThatEndsTheWholeTransactionFailsOnlyItsCallerAndTheOthersAreWrittenAgain() throws Exception {
    // RAISE(ROLLBACK): SQLite rolls back the whole transaction, the group's earlier writes too.
    refuseInsertsNamed("poison", "ROLLBACK");
    try (SqliteLedger ledger = SqliteLedger.open(dbFile(), clock);
        Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement lock = other.createStatement()) {
      List<RecordFile> commands = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        commands.add(i == 6 ? file("2024-01-09", "poison.parquet", "evt-poison")
            : file("2024-01-01", "part-" + i + ".parquet", "evt-" + i));
      }
      lock.execute("BEGIN IMMEDIATE");
      List<Future<FileRecorded>> calls = recordConcurrently(ledger, commands);
      lock.execute("ROLLBACK");

      for (int i = 0; i < commands.size(); i++) {
        if (i == 6) {
          assertFailure(calls.get(i)).isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("poisoned file refused");
        } else {
          assertThat(calls.get(i).get(30, TimeUnit.SECONDS).isNew()).isTrue();
          assertThat(ledger.file(commands.get(i).fileId())).isPresent();
        }
      }
      assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 11L));
      assertThat(ledger.partition(TABLE, "2024-01-09")).isEmpty();
    }
  }

  @Test
  void closingTheLedgerWhileWritesWaitForTheirGroupFailsEachOfThemAndCommitsNone() throws Exception {
    List<RecordFile> commands = IntStream.range(0, 8)
        .mapToObj(i -> file("2024-01-01", "part-" + i + ".parquet", "evt-" + i)).toList();
    SqliteLedger ledger = SqliteLedger.open(dbFile(), clock);
    Future<?> closed;
    List<Future<FileRecorded>> calls;
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement lock = other.createStatement()) {
      lock.execute("BEGIN IMMEDIATE");
      calls = recordConcurrently(ledger, commands);
      closed = callers.submit(ledger::close);
      Thread.sleep(200);
      lock.execute("ROLLBACK");
    }
    closed.get(30, TimeUnit.SECONDS);

    for (Future<FileRecorded> call : calls) {
      assertFailure(call).isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed (recordFile file ");
    }
    assertThatThrownBy(() -> ledger.recordFile(commands.get(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is closed");
    try (SqliteLedger reopened = SqliteLedger.open(dbFile(), clock)) {
      for (RecordFile command : commands) {
        assertThat(reopened.file(command.fileId())).isEmpty();
      }
      assertThat(reopened.recordFile(commands.get(0)).isNew()).isTrue();
    }
  }

  @Test
  void readsDoNotWaitForAWriteGroupHoldingTheLock() throws Exception {
    try (SqliteLedger ledger = SqliteLedger.open(dbFile(), clock);
        Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement lock = other.createStatement()) {
      FileRecorded recorded = ledger.recordFile(file("2024-01-01", "part-0.parquet", "evt-0"));
      lock.execute("BEGIN IMMEDIATE");
      Future<FileRecorded> waiting = callers.submit(() -> ledger.recordFile(file("2024-01-01", "part-1.parquet", "evt-1")));

      assertThat(ledger.file(recorded.file().fileId())).contains(recorded.file());
      assertThat(waiting.isDone()).isFalse();
      lock.execute("ROLLBACK");
      assertThat(waiting.get(30, TimeUnit.SECONDS).isNew()).isTrue();
    }
  }

  @Test
  void aListingOfTenThousandFilesIsRecordedInATransactionPerThousandFilesAtMost() {
    try (SqliteLedger ledger = SqliteLedger.open(dbFile(), clock)) {
      ledger.recordFile(file("2024-01-01", "part-00042.parquet", "evt-42"));
      List<RecordFile> listing = IntStream.range(0, 10_000)
          .mapToObj(i -> file("2024-01-01", String.format("part-%05d.parquet", i), "listing:m-1")).toList();
      long before = ledger.writeTransactions();

      List<FileRecorded> recorded = ledger.recordFiles(listing);

      assertThat(ledger.writeTransactions() - before).isBetween(1L, 10L);
      assertThat(recorded.stream().filter(FileRecorded::isNew)).hasSize(9_999);
      assertThat(recorded.get(42).isNew()).isFalse();
      assertThat(recorded.get(42).file().eventId()).isEqualTo("evt-42");
      assertThat(ledger.tableStatus(TABLE).filesByState()).isEqualTo(Map.of(FileState.RECORDED, 10_000L));
      assertThat(ledger.file(listing.get(9_999).fileId())).contains(recorded.get(9_999).file());
    }
  }

  // --- fixtures ----------------------------------------------------------------------------------

  /** Starts one caller per command at once, lets them queue up behind the held lock, and returns their calls in order. */
  private List<Future<FileRecorded>> recordConcurrently(Ledger ledger, List<RecordFile> commands)
      throws InterruptedException {
    CountDownLatch started = new CountDownLatch(commands.size());
    List<Future<FileRecorded>> calls = new ArrayList<>();
    for (RecordFile command : commands) {
      calls.add(callers.submit(() -> {
        started.countDown();
        return ledger.recordFile(command);
      }));
    }
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(QUEUE_UP_MILLIS);
    return Collections.unmodifiableList(calls);
  }

  private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertFailure(Future<?> call)
      throws InterruptedException, java.util.concurrent.TimeoutException {
    try {
      Object result = call.get(30, TimeUnit.SECONDS);
      throw new AssertionError("expected the call to fail, it returned " + result);
    } catch (ExecutionException e) {
      return assertThat(e.getCause());
    }
  }

  /** A trigger that refuses inserts of files whose name contains {@code word}, as a failing disk would one write. */
  private void refuseInsertsNamed(String word, String raise) throws SQLException {
    SqliteLedger.open(dbFile(), clock).close();
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile());
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TRIGGER refuse_" + word + " BEFORE INSERT ON \"files\" WHEN NEW.\"name\" LIKE '%"
          + word + "%' BEGIN SELECT RAISE(" + raise + ", 'poisoned file refused'); END");
    }
  }

  private static String day(int n) {
    return "2024-01-0" + (n % 3 + 1);
  }

  private static RecordFile file(String partition, String name, String eventId) {
    String objectName = "raw/dt=" + partition + "/" + name;
    return new RecordFile(TABLE, partition, BUCKET, objectName, 1, "gs://" + BUCKET + "/" + objectName, 100, eventId,
        START.minus(Duration.ofMinutes(1)), Optional.empty(), false);
  }
}
