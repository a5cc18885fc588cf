package io.files2iceberg.semantics;

/**
 * Row "save-checkpoint = false" of docs/semantics.md (a backfill), on a keyed table: a run, only
 * when asked, lists every complete partition under the glob and MERGEs its files in batches of
 * {@code max-batch-size}; the ledger is neither read nor written, so no file state is asserted.
 * MERGE makes a second run (and {@code replay --no-checkpoint}) change nothing that did not change.
 */
class NoCheckpointMatrixTest extends MatrixScenario {
  @Override
  String row() {
    return "nockpt";
  }

  @Override
  String kindProfile() {
    return "extract.save-checkpoint = false\nload { primary-key = [id], iceberg.precombine-field = ts }\n";
  }

  @Override
  Driven driven() {
    return Driven.ASKED;
  }

  /** {@code replay --no-checkpoint --partition replay}: the command's logic. */
  @Override
  void replay(Event e) {
    runs.add(deployment.replayWithoutCheckpoint(table(e), e.first()));
  }

  @Override
  Cell expected(Event e) {
    return switch (e) {
      case NEW_FILE -> rows();
      case MARKER -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"), row(e, 4, 40, "a"));
      case LATE_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REWRITE_LOADED -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 30, "a"));
      case REWRITE_BEFORE_LOADING -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 31, "b"));
      case SPLIT_PARTITION -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REPLAY -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"));
      case MISSING_COLUMN -> rows(row(e, 1, 11, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "null"));
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
