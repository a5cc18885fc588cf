package io.files2iceberg.semantics;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import org.junit.jupiter.api.Test;

/**
 * Row "last" of docs/semantics.md: the table holds only the newest READY partition, and that
 * partition whole (every current file of it, as an Overwrite partition does); older READY
 * partitions are SUPERSEDED unread. Each event has a table of its own, since every load replaces
 * the whole table.
 */
class LastMatrixTest extends MatrixScenario {
  @Override
  String row() {
    return "last";
  }

  @Override
  String kindProfile() {
    return "extract.batch-file.ingestion-type = last\n";
  }

  @Override
  Driven driven() {
    return Driven.LEDGER;
  }

  @Override
  boolean tablePerEvent() {
    return true;
  }

  @Override
  Cell expected(Event e) {
    return switch (e) {
      case NEW_FILE -> rows().states("new-file/f1.parquet", "recorded");
      // The older partition is SUPERSEDED and never read.
      case MARKER -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"), row(e, 4, 40, "a"))
          .states("0-older/f1.parquet", "recorded").states("marker/f1.parquet", "ingested");
      case LATE_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"))
          .states("late/f2.parquet", "ingested");
      case REWRITE_LOADED -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 30, "a"))
          .states("rewrite-loaded/f1.parquet", "superseded", "ingested");
      case REWRITE_BEFORE_LOADING -> rows(row(e, 1, 11, "b"), row(e, 2, 21, "b"), row(e, 3, 31, "b"))
          .states("rewrite-before/f1.parquet", "superseded", "ingested");
      // Never split: max-batch-size = 1 does not apply to the newest partition.
      case SPLIT_PARTITION -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 3, 30, "a"));
      case REPLAY -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a")).states("replay/f1.parquet", "ingested");
      case MISSING_COLUMN -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"), row(e, 1, 11, "null"),
          row(e, 3, 30, "null"));
      case EXTRA_COLUMN -> rows(row(e, 1, 10, "a") + "|null", row(e, 2, 20, "a") + "|x2");
      case WIDENED_TYPE -> rows(row(e, "widened-2", 2, 5_000_000_000L, "a"));
      case UNSAFE_TYPE_CHANGE -> rows(row(e, "unsafe-2", 3, 30, "a"))
          .states("unsafe-2/bad.parquet", "quarantined").states("unsafe-2/good.parquet", "ingested");
      case CORRUPT_FILE -> rows(row(e, 1, 10, "a"), row(e, 2, 20, "a"))
          .states("corrupt/bad.parquet", "quarantined").states("corrupt/good.parquet", "ingested");
      case SCHEMA_DIFFERENT_FILE -> rows(row(e, "schema-diff-2", 3, 30, "a"))
          .states("schema-diff-2/bad.parquet", "quarantined").states("schema-diff-2/good.parquet", "ingested");
      case EMPTY_FILE -> rows(row(e, 1, 10, "a"))
          .states("empty/empty.parquet").states("empty/norows.parquet", "ingested");
      case DELETED_OBJECT -> rows(row(e, 2, 20, "a")).states("deleted/f1.parquet", "superseded");
    };
  }

  @Test
  void anOlderReadyPartitionIsSupersededAndNeverRead() {
    assertThat(deployment.ledger.partition(Deployment.NAMESPACE + table(Event.MARKER), "0-older"))
        .map(PartitionRecord::state).contains(PartitionState.SUPERSEDED);
    assertThat(actualRows(Event.MARKER)).noneMatch(row -> row.startsWith("0-older|"));
  }
}
