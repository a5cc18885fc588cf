package io.files2iceberg.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Row "full" of docs/semantics.md: a run, only when asked ({@code batch run-once --table}), lists
 * every complete partition under the glob and replaces the whole table with their files. No
 * ledger: nothing is checkpointed, so no file state is asserted; the table after the second run
 * is what the folder holds.
 */
class FullMatrixTest extends MatrixScenario {
  @Override
  String row() {
    return "full";
  }

  @Override
  String kindProfile() {
    return "extract.batch-file.ingestion-type = full\n";
  }

  @Override
  Driven driven() {
    return Driven.ASKED;
  }

  /**
   * A full table has nothing to replay: {@code replay} is refused and the second run reloads every
   * file, as any run does.
   */
  @Test
  void replayOfAFullTableIsRefusedNamingTheTableAndWhatToRunInstead() {
    assertThat(replayRefused).isNotNull().contains("local.sem.full").contains("ingestion-type = full")
        .contains("batch run-once --table");
  }

  @Override
  Cell expected(Event e) {
    return switch (e) {
      // No marker: the partition is not complete and not listed.
      case NEW_FILE -> rows();
      case MARKER -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"), row(e, 4, 40, "a"));
      case LATE_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REWRITE_LOADED -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 30, "a"));
      case REWRITE_BEFORE_LOADING -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 31, "b"));
      case SPLIT_PARTITION -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REPLAY -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"));
      case MISSING_COLUMN -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 1, 11, "null"),
          row(e, 3, 30, "null"));
      case EXTRA_COLUMN -> rows(row(e, 1, 10, "a") + "|null", row(e, 2, 20, "a") + "|x2");
      case WIDENED_TYPE -> rows(row(e, "widened-1", 1, 10, "a"), row(e, "widened-2", 2, 5_000_000_000L, "a"));
      case UNSAFE_TYPE_CHANGE -> rows(row(e, "unsafe-1", 1, 10, "a"), row(e, "unsafe-2", 3, 30, "a"));
      case CORRUPT_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"));
      case SCHEMA_DIFFERENT_FILE -> rows(row(e, "schema-diff-1", 1, 10, "a"), row(e, "schema-diff-2", 3, 30, "a"));
      case EMPTY_FILE -> rows(row(e, 1, 10, "a"));
      case DELETED_OBJECT -> rows(row(e, 2, 20, "a"));
    };
  }
}
