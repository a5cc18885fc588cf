package io.files2iceberg.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.semantics.ParquetFiles.Column;
import io.files2iceberg.semantics.ParquetFiles.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One row of the semantics matrix (docs/semantics.md): a table kind meets every file event. The
 * whole scenario runs once per class, in two rounds of notifier scan and batcher run:
 *
 * <ol>
 *   <li>every event's first files and markers land and load (a rewrite before loading and a
 *       deleted object happen between the claim and the job's read);
 *   <li>the events that act on loaded partitions (late file, rewrite, replay, missing column, the
 *       second partition of a type change or a schema-different file) land and load.
 * </ol>
 *
 * Each event has its own partition(s) and ids; the split partition is in a table whose {@code
 * max-batch-size} is 1, and the files that would fail a whole batch without their fix (unsafe type,
 * schema-different) are in a table of their own, so that one cell never hides another. Rows of
 * mode {@code last} replace the whole table, so that row gives every event a table of its own. Each
 * case then asserts its own cell: the rows read back through Iceberg and, where they matter, the
 * ledger states of the files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MatrixScenario {
  static final List<Column> FULL = List.of(col("id", Kind.INT), col("amount", Kind.INT), col("s", Kind.STRING),
      col("ts", Kind.BIGINT));
  static final List<Column> NO_S = List.of(col("id", Kind.INT), col("amount", Kind.INT), col("ts", Kind.BIGINT));
  static final List<Column> EXTRA = List.of(col("id", Kind.INT), col("amount", Kind.INT), col("s", Kind.STRING),
      col("ts", Kind.BIGINT), col("x", Kind.STRING));
  static final List<Column> WIDE = List.of(col("id", Kind.INT), col("amount", Kind.BIGINT), col("s", Kind.STRING),
      col("ts", Kind.BIGINT));
  static final List<Column> UNSAFE = List.of(col("id", Kind.INT), col("amount", Kind.STRING), col("s", Kind.STRING),
      col("ts", Kind.BIGINT));
  static final List<Column> OTHER = List.of(col("a", Kind.STRING), col("b", Kind.INT));

  /** How a row's tables are run and replayed. */
  enum Driven {
    /** By the ledger: every batcher run claims what is READY. */
    LEDGER,
    /** Only when asked (mode full, save-checkpoint = false): {@code batch run-once --table}. */
    ASKED
  }

  Deployment deployment;
  private Path dir;
  final List<RunSummary> runs = new ArrayList<>();
  long millis;

  /** The row's profile name prefix, such as {@code key}. */
  abstract String row();

  /** HOCON of the row's kind, appended to the common profile. */
  abstract String kindProfile();

  abstract Driven driven();

  /** Whether every event gets a table of its own (mode last replaces the whole table). */
  boolean tablePerEvent() {
    return false;
  }

  /** What the table holds after the event (and the ledger states that matter). */
  abstract Cell expected(Event event);

  /** The profile that loads an event's partitions. */
  String table(Event event) {
    if (tablePerEvent()) {
      return row() + "_" + event.snake();
    }
    return switch (event) {
      case SPLIT_PARTITION -> row() + "_split";
      case UNSAFE_TYPE_CHANGE, SCHEMA_DIFFERENT_FILE -> row() + "_hazard";
      default -> row();
    };
  }

  private Map<String, String> profiles() {
    Map<String, String> profiles = new TreeMap<>();
    for (Event event : Event.values()) {
      String name = table(event);
      String extra = event == Event.SPLIT_PARTITION ? "extract.max-batch-size = 1\n" : "";
      profiles.merge(name, profile(name) + kindProfile() + extra, (a, b) -> a.length() >= b.length() ? a : b);
    }
    return profiles;
  }

  private static String profile(String name) {
    return """
        extract {
          path = "file://LANDING/%s/*/*.parquet"
          format = parquet
          batch-file.partition-column = p
          quarantine-bad-files = true
          lineage-columns = [_source_generation]
        }
        load.iceberg.table = "local.sem.%s"
        job {
          master = "local[2]"
          spark-properties {
            "spark.ui.enabled" = "false"
            "spark.sql.shuffle.partitions" = "2"
          }
        }
        """.formatted(name, name);
  }

  @BeforeAll
  void runScenario() throws Exception {
    long start = System.nanoTime();
    dir = Files.createTempDirectory("semantics-" + row());
    deployment = new Deployment(dir, profiles());
    firstRound();
    run();
    secondRound();
    run();
    millis = (System.nanoTime() - start) / 1_000_000;
    System.err.println("semantics " + row() + ": scenario ran in " + millis + " ms, " + deployment.jobs.ran().size()
        + " job(s)");
  }

  @AfterAll
  void close() throws IOException {
    Deployment.closeAndDelete(deployment, dir);
  }

  private void run() throws InterruptedException {
    deployment.scan();
    if (driven() == Driven.LEDGER) {
      runs.add(deployment.runOnce());
    } else {
      for (String table : profiles().keySet()) {
        runs.add(deployment.runTable(table));
      }
    }
  }

  // ---- the events' files -------------------------------------------------------------------

  private void firstRound() {
    for (Event e : Event.values()) {
      String t = table(e);
      int b = e.base();
      String p = e.first();
      switch (e) {
        case NEW_FILE -> write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1), r(b + 2, 20, "a", 1));
        case MARKER -> {
          if (tablePerEvent()) {
            write(e, "0-older", "f1.parquet", FULL, r(b + 51, 510, "old", 1));
            deployment.marker(t, "0-older");
          }
          write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1), r(b + 2, 20, "a", 1));
          write(e, p, "f2.parquet", FULL, r(b + 3, 30, "a", 1), r(b + 4, 40, "a", 1));
        }
        case LATE_FILE, REPLAY, MISSING_COLUMN -> write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1),
            r(b + 2, 20, "a", 1));
        case REWRITE_LOADED -> {
          write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1), r(b + 2, 20, "a", 1));
          write(e, p, "f2.parquet", FULL, r(b + 3, 30, "a", 1));
        }
        case REWRITE_BEFORE_LOADING -> {
          Path f1 = write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1), r(b + 2, 20, "a", 1));
          // Rewritten after its notification was recorded and its batch claimed, before the read;
          // the new generation's notification is posted by the next scan.
          deployment.beforeRead(f1, path -> deployment.files.write(path, FULL,
              List.of(r(b + 1, 11, "b", 2), r(b + 2, 21, "b", 2), r(b + 3, 31, "b", 2))));
        }
        case SPLIT_PARTITION -> {
          write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1));
          write(e, p, "f2.parquet", FULL, r(b + 2, 20, "a", 1));
          write(e, p, "f3.parquet", FULL, r(b + 3, 30, "a", 1));
        }
        case EXTRA_COLUMN -> {
          write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1));
          write(e, p, "f2.parquet", EXTRA, new Object[] {b + 2, 20, "a", 1L, "x2"});
        }
        case WIDENED_TYPE, UNSAFE_TYPE_CHANGE, SCHEMA_DIFFERENT_FILE ->
            write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1));
        case CORRUPT_FILE -> {
          deployment.writeBytes(t, p, "bad.parquet", "PAR1 this is not a parquet file".getBytes());
          write(e, p, "good.parquet", FULL, r(b + 1, 10, "a", 1), r(b + 2, 20, "a", 1));
        }
        case EMPTY_FILE -> {
          deployment.writeBytes(t, p, "empty.parquet", new byte[0]);
          write(e, p, "norows.parquet", FULL);
          write(e, p, "good.parquet", FULL, r(b + 1, 10, "a", 1));
        }
        case DELETED_OBJECT -> {
          Path f1 = write(e, p, "f1.parquet", FULL, r(b + 1, 10, "a", 1));
          write(e, p, "f2.parquet", FULL, r(b + 2, 20, "a", 1));
          // Deleted after its notification was recorded and its batch claimed, before the read.
          deployment.beforeRead(f1, Deployment::delete);
        }
      }
      if (e != Event.NEW_FILE) {
        deployment.marker(t, p);
      }
    }
  }

  private void secondRound() {
    for (Event e : Event.values()) {
      String t = table(e);
      int b = e.base();
      String p = e.last();
      switch (e) {
        case LATE_FILE -> write(e, p, "f2.parquet", FULL, r(b + 3, 30, "a", 1));
        case REWRITE_LOADED -> write(e, p, "f1.parquet", FULL, r(b + 1, 11, "b", 2), r(b + 2, 21, "b", 2));
        case MISSING_COLUMN -> write(e, p, "f2.parquet", NO_S, new Object[] {b + 1, 11, 2L},
            new Object[] {b + 3, 30, 2L});
        case WIDENED_TYPE -> {
          write(e, p, "f1.parquet", WIDE, new Object[] {b + 2, 5_000_000_000L, "a", 1L});
          deployment.marker(t, p);
        }
        case UNSAFE_TYPE_CHANGE -> {
          write(e, p, "bad.parquet", UNSAFE, new Object[] {b + 2, "twenty", "a", 1L});
          write(e, p, "good.parquet", FULL, r(b + 3, 30, "a", 1));
          deployment.marker(t, p);
        }
        case SCHEMA_DIFFERENT_FILE -> {
          write(e, p, "bad.parquet", OTHER, new Object[] {"q", 1});
          write(e, p, "good.parquet", FULL, r(b + 3, 30, "a", 1));
          deployment.marker(t, p);
        }
        case REPLAY -> replay(e);
        default -> {}
      }
    }
  }

  /** Why replay refused to run, when it did. */
  String replayRefused;

  /** The row's replay of the event's loaded partition: {@code replay --force}, the command's logic. */
  void replay(Event e) {
    try {
      deployment.replayForce(table(e), e.first());
    } catch (IllegalArgumentException | IllegalStateException refused) {
      replayRefused = refused.getMessage();
    }
  }

  Path write(Event e, String partition, String file, List<Column> columns, Object[]... rows) {
    return deployment.write(table(e), partition, file, columns, Arrays.asList(rows));
  }

  static Object[] r(int id, int amount, String s, long ts) {
    return new Object[] {id, amount, s, ts};
  }

  static Column col(String name, Kind kind) {
    return new Column(name, kind);
  }

  // ---- the cells ---------------------------------------------------------------------------

  /**
   * A cell: the rows of the event's partitions as {@code p|id|amount|s} (plus {@code |x} for the
   * extra column), and for each file name the ledger states of its generations, oldest first.
   */
  record Cell(List<String> rows, Map<String, List<String>> states) {
    Cell {
      rows = rows.stream().sorted().toList();
    }

    Cell states(String file, String... codes) {
      Map<String, List<String>> more = new LinkedHashMap<>(states);
      more.put(file, List.of(codes));
      return new Cell(rows, more);
    }
  }

  static Cell rows(String... rows) {
    return new Cell(List.of(rows), Map.of());
  }

  /** {@code p|id|amount|s} of the event's base id plus {@code offset}. */
  static String row(Event e, String partition, int offset, long amount, String s) {
    return partition + "|" + (e.base() + offset) + "|" + amount + "|" + s;
  }

  static String row(Event e, int offset, long amount, String s) {
    return row(e, e.first(), offset, amount, s);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Event.class)
  void cell(Event event) {
    Cell expected = expected(event);
    assertThat(actualRows(event)).as("%s: rows of %s; runs: %s", event, table(event), runsDescribed())
        .containsExactlyElementsOf(expected.rows());
    for (Map.Entry<String, List<String>> file : expected.states().entrySet()) {
      assertThat(states(event, file.getKey())).as("%s: ledger states of %s", event, file.getKey())
          .isEqualTo(file.getValue());
    }
  }

  private String runsDescribed() {
    return runs.stream().map(RunSummary::describe).collect(Collectors.joining("; "))
        + deployment.jobs.ran().stream().filter(r -> r.result().exit() != io.files2iceberg.core.manifest.JobExit.LOADED)
            .map(r -> r.manifest().table() + ": " + r.result().detail()).collect(Collectors.joining("; ", " [", "]"));
  }

  List<String> actualRows(Event event) {
    String table = table(event);
    if (!deployment.hasTable(table)) {
      return List.of();
    }
    List<String> partitions = tablePerEvent() ? null : event.partitions();
    return deployment.rows(table).stream()
        .filter(row -> partitions == null || partitions.contains(String.valueOf(row.get("p"))))
        .map(row -> row.get("p") + "|" + row.get("id") + "|" + row.get("amount") + "|" + row.get("s")
            + (event == Event.EXTRA_COLUMN ? "|" + row.get("x") : ""))
        .sorted().toList();
  }

  /** The ledger states of a file's generations, oldest first; {@code file} is {@code partition/name}. */
  List<String> states(Event event, String file) {
    String partition = file.substring(0, file.indexOf('/'));
    String name = file.substring(file.indexOf('/') + 1);
    return deployment.ledgerFiles(table(event), partition).stream()
        .filter(f -> f.name().endsWith("/" + name))
        .sorted(Comparator.comparingLong(FileRecord::generation))
        .map(f -> f.state().code()).toList();
  }
}
