package io.files2iceberg.semantics;

/**
 * Row "incremental without key, Overwrite (partitioned by the partition column)" of
 * docs/semantics.md: every load of a partition writes its whole live content (every current file
 * of it in the ledger), so the partition mirrors its folder; a rewrite is reloaded and the
 * generation it replaced is SUPERSEDED.
 */
class OverwriteMatrixTest extends MatrixScenario {
  @Override
  String row() {
    return "overwrite";
  }

  @Override
  String kindProfile() {
    return "load { save-mode = Overwrite, partition-by = [p] }\n";
  }

  @Override
  Driven driven() {
    return Driven.LEDGER;
  }

  @Override
  Cell expected(Event e) {
    return switch (e) {
      case NEW_FILE -> rows().states("new-file/f1.parquet", "recorded");
      case MARKER -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"), row(e, 4, 40, "a"))
          .states("marker/f1.parquet", "ingested").states("marker/f2.parquet", "ingested");
      case LATE_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"))
          .states("late/f1.parquet", "ingested").states("late/f2.parquet", "ingested");
      case REWRITE_LOADED -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 30, "a"))
          .states("rewrite-loaded/f1.parquet", "superseded", "ingested");
      case REWRITE_BEFORE_LOADING -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 31, "b"))
          .states("rewrite-before/f1.parquet", "superseded", "ingested");
      case SPLIT_PARTITION -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REPLAY -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a")).states("replay/f1.parquet", "ingested");
      case MISSING_COLUMN -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 1, 11, "null"),
          row(e, 3, 30, "null"));
      case EXTRA_COLUMN -> rows(row(e, 1, 10, "a") + "|null", row(e, 2, 20, "a") + "|x2");
      case WIDENED_TYPE -> rows(row(e, "widened-1", 1, 10, "a"), row(e, "widened-2", 2, 5_000_000_000L, "a"));
      case UNSAFE_TYPE_CHANGE -> rows(row(e, "unsafe-1", 1, 10, "a"), row(e, "unsafe-2", 3, 30, "a"))
          .states("unsafe-2/bad.parquet", "quarantined").states("unsafe-2/good.parquet", "ingested");
      case CORRUPT_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"))
          .states("corrupt/bad.parquet", "quarantined").states("corrupt/good.parquet", "ingested");
      case SCHEMA_DIFFERENT_FILE -> rows(row(e, "schema-diff-1", 1, 10, "a"), row(e, "schema-diff-2", 3, 30, "a"))
          .states("schema-diff-2/bad.parquet", "quarantined").states("schema-diff-2/good.parquet", "ingested");
      case EMPTY_FILE -> rows(row(e, 1, 10, "a"))
          .states("empty/empty.parquet").states("empty/norows.parquet", "ingested");
      case DELETED_OBJECT -> rows(row(e, 2, 20, "a")).states("deleted/f1.parquet", "superseded");
    };
  }
}
