package io.files2iceberg.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.core.manifest.JobExit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Row "snapshot deletes" of docs/semantics.md: mode {@code full} with a key and {@code
 * load.snapshot-deletes = true}. A run, only when asked, MERGEs every complete partition's files
 * (one row per key, the highest {@code ts}) and deletes the stored rows whose key they lack. Each
 * event has a table of its own, since each table's listing is its snapshot: a file one event
 * cannot read would otherwise hold back the deletes of every other. No ledger: no file state is
 * asserted. None of the events takes a key away from a folder, so no cell deletes; the snapshot a
 * batch could not read whole (a quarantined file, a generation gone) is merged without deletes.
 * The last tests take files away and run again: their keys go, unless the guard refuses.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SnapshotDeletesMatrixTest extends MatrixScenario {
  @Override
  String row() {
    return "snapdel";
  }

  @Override
  String kindProfile() {
    return """
        extract.batch-file.ingestion-type = full
        load { primary-key = [id], iceberg.precombine-field = ts, snapshot-deletes = true }
        """;
  }

  @Override
  Driven driven() {
    return Driven.ASKED;
  }

  @Override
  boolean tablePerEvent() {
    return true;
  }

  @Override
  Cell expected(Event e) {
    return switch (e) {
      // No marker: the partition is not complete and not listed.
      case NEW_FILE -> rows();
      case MARKER -> rows(row(e, "0-older", 51, 510, "old"), row(e, 1, 10, "a"), row(e, 2, 20, "a"),
          row(e, 3, 30, "a"), row(e, 4, 40, "a"));
      case LATE_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REWRITE_LOADED -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 30, "a"));
      // The first run's v1 was gone when read: nothing written; the second run merges v2.
      case REWRITE_BEFORE_LOADING -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 31, "b"));
      case SPLIT_PARTITION -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REPLAY -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"));
      // f2's newer row of id 1 lacks s: the update keeps the stored one (missing-columns = keep).
      case MISSING_COLUMN -> rows(row(e, 1, 11, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "null"));
      case EXTRA_COLUMN -> rows(row(e, 1, 10, "a") + "|null", row(e, 2, 20, "a") + "|x2");
      case WIDENED_TYPE -> rows(row(e, "widened-1", 1, 10, "a"), row(e, "widened-2", 2, 5_000_000_000L, "a"));
      // The bad file left out: the snapshot is not whole, so its rows are merged and nothing deleted.
      case UNSAFE_TYPE_CHANGE -> rows(row(e, "unsafe-1", 1, 10, "a"), row(e, "unsafe-2", 3, 30, "a"));
      case CORRUPT_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"));
      case SCHEMA_DIFFERENT_FILE -> rows(row(e, "schema-diff-1", 1, 10, "a"), row(e, "schema-diff-2", 3, 30, "a"));
      case EMPTY_FILE -> rows(row(e, 1, 10, "a"));
      case DELETED_OBJECT -> rows(row(e, 2, 20, "a"));
    };
  }

  @Test
  void replayIsRefusedAsForAnyFullTable() {
    assertThat(replayRefused).isNotNull().contains("ingestion-type = full");
  }

  @Test
  @Order(Integer.MAX_VALUE - 1)
  void aFileTakenAwayFromTheFolderDeletesItsKeysOnTheNextRun() {
    Event e = Event.LATE_FILE;
    Deployment.delete(deployment.partition(table(e), e.first()).resolve("f2.parquet"));

    RunSummary run = deployment.runTable(table(e));

    assertThat(run.failed()).isEmpty();
    assertThat(run.committed()).singleElement().satisfies(c -> {
      assertThat(c.report().metrics().rowsDeleted()).isEqualTo(1);
      assertThat(c.report().metrics().rowsUpdated()).isEqualTo(2);
    });
    assertThat(actualRows(e)).containsExactly(row(e, 1, 10, "a"), row(e, 2, 20, "a"));
  }

  @Test
  @Order(Integer.MAX_VALUE)
  void aSnapshotThatWouldDeleteMoreThanHalfTheTableIsRejectedAndAnEmptyFolderRunsNothing() {
    Event e = Event.MARKER;
    Deployment.delete(deployment.partition(table(e), e.first()).resolve("f1.parquet"));
    Deployment.delete(deployment.partition(table(e), e.first()).resolve("f2.parquet"));

    RunSummary rejected = deployment.runTable(table(e));

    // Only 0-older is left: 4 of the 5 stored rows would go.
    assertThat(rejected.committed()).isEmpty();
    assertThat(rejected.failed()).singleElement().satisfies(f -> {
      assertThat(f.exit()).contains(JobExit.REJECTED);
      assertThat(f.error()).contains("the batch would delete 4 of the 5 stored rows of the table (a share of 0.8000),"
          + " more than load.snapshot-deletes-max-fraction = 0.5 allows");
    });
    assertThat(actualRows(e)).containsExactlyElementsOf(expected(e).rows());

    // A folder with no data file left lists nothing: no batch, nothing deleted.
    Deployment.delete(deployment.partition(table(e), "0-older").resolve("f1.parquet"));
    RunSummary empty = deployment.runTable(table(e));

    assertThat(empty.committed()).isEmpty();
    assertThat(empty.failed()).isEmpty();
    assertThat(actualRows(e)).containsExactlyElementsOf(expected(e).rows());
  }
}
