package io.files2iceberg.core.ledger;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One of the ledger's record kinds as a table that {@code files2iceberg sql} reads: {@code
 * files2iceberg.files}, {@code files2iceberg.partitions} and {@code files2iceberg.batches}.
 *
 * <p>The one contract between the two sides of the hand-over: the CLI writes each record as a JSON
 * line ({@link #writeRow}) into {@link #fileName()}, and the SQL runner reads those lines with
 * {@link #ddl()} as the explicit schema, so a column is named, typed and valued here only. Times
 * are written as ISO-8601 instants (read as {@code TIMESTAMP}), ids and counts as JSON numbers
 * (read as {@code BIGINT}, exact above 2^53), counts by name as a JSON object of numbers (read as
 * {@code MAP<STRING, BIGINT>}), an absent value as {@code null}, states by the names
 * {@code status} and {@code inspect} print ({@code QUARANTINED}, not the stored code).
 *
 * @param name the table's name under {@code files2iceberg}
 * @param columns in the order {@code SELECT *} shows them
 */
public record LedgerTable<R>(String name, List<Column<R>> columns) {

  /** A column: its name, its Spark SQL type and how a record gives its value. */
  public record Column<R>(String name, String type, Function<R, Object> value) {}

  public static final LedgerTable<FileRecord> FILES = new LedgerTable<>("files", List.of(
      text("file_id", FileRecord::fileId),
      text("table", FileRecord::table),
      text("partition", FileRecord::partition),
      text("bucket", FileRecord::bucket),
      text("name", FileRecord::name),
      bigint("generation", FileRecord::generation),
      text("uri", FileRecord::uri),
      bigint("size", FileRecord::size),
      text("state", file -> file.state().name()),
      text("batch_id", file -> file.batchId().orElse(null)),
      text("reason", file -> file.quarantineReason().orElse(null)),
      bigint("snapshot_id", file -> file.snapshotId().orElse(null)),
      bigint("rows_read", file -> file.rows().map(FileRows::read).orElse(null)),
      bigint("rows_rejected", file -> file.rows().map(FileRows::rejected).orElse(null)),
      bigint("rows_rescued", file -> file.rows().map(FileRows::rescued).orElse(null)),
      bigint("columns_ignored", file -> file.rows().map(FileRows::ignoredColumns).orElse(null)),
      new Column<>("expectations_failed", "MAP<STRING, BIGINT>",
          file -> file.rows().map(FileRows::expectationsFailed).orElse(null)),
      text("event_id", FileRecord::eventId),
      timestamp("event_time", FileRecord::eventTime),
      bigint("overwrote_generation", file -> file.overwroteGeneration().orElse(null)),
      timestamp("recorded_at", FileRecord::recordedAt)));

  public static final LedgerTable<PartitionRecord> PARTITIONS = new LedgerTable<>("partitions", List.of(
      text("table", PartitionRecord::table),
      text("partition", PartitionRecord::partition),
      text("prefix", partition -> partition.prefix().orElse(null)),
      text("state", partition -> partition.state().name()),
      new Column<>("marker_seen", "BOOLEAN", PartitionRecord::markerSeen),
      text("batch_id", partition -> partition.batchId().orElse(null)),
      integer("attempts", PartitionRecord::attempts),
      text("last_error", partition -> partition.lastError().orElse(null)),
      timestamp("ready_at", partition -> partition.readyAt().orElse(null)),
      timestamp("updated_at", PartitionRecord::updatedAt)));

  public static final LedgerTable<BatchRecord> BATCHES = new LedgerTable<>("batches", batchColumns());

  /** The three tables, in the order they are written. */
  public static final List<LedgerTable<?>> ALL = List.of(FILES, PARTITIONS, BATCHES);

  public LedgerTable {
    columns = List.copyOf(columns);
  }

  /** The JSON lines file of this table in the folder handed over: {@code <name>.jsonl}. */
  public String fileName() {
    return name + ".jsonl";
  }

  /** The schema as Spark SQL DDL: {@code `file_id` STRING, `table` STRING, ...}. */
  public String ddl() {
    return columns.stream().map(c -> "`" + c.name() + "` " + c.type()).collect(Collectors.joining(", "));
  }

  /** Writes one record as a JSON object of every column; the caller ends the line. */
  public void writeRow(JsonGenerator json, R record) throws IOException {
    json.writeStartObject();
    for (Column<R> column : columns) {
      json.writeFieldName(column.name());
      Object value = column.value().apply(record);
      if (value == null) {
        json.writeNull();
      } else if (value instanceof String text) {
        json.writeString(text);
      } else if (value instanceof Long || value instanceof Integer) {
        json.writeNumber(((Number) value).longValue());
      } else if (value instanceof Boolean flag) {
        json.writeBoolean(flag);
      } else if (value instanceof Instant instant) {
        json.writeString(instant.toString());
      } else if (value instanceof Map<?, ?> counts) {
        json.writeStartObject();
        for (Map.Entry<?, ?> count : counts.entrySet()) {
          json.writeNumberField(String.valueOf(count.getKey()), ((Number) count.getValue()).longValue());
        }
        json.writeEndObject();
      } else if (value instanceof List<?> items) {
        json.writeStartArray();
        for (Object item : items) {
          json.writeString(String.valueOf(item));
        }
        json.writeEndArray();
      } else {
        throw new IllegalStateException("Column " + name + "." + column.name()
            + " has a value of an unexpected type: " + value.getClass().getName());
      }
    }
    json.writeEndObject();
  }

  /**
   * A batch's columns: what {@code status}, {@code inspect} and {@code history} show of it, with
   * one column per metric ({@code rows_inserted}, {@code lag_millis}, ...; null while it has none).
   */
  private static List<Column<BatchRecord>> batchColumns() {
    List<Column<BatchRecord>> columns = new ArrayList<>(List.of(
        text("batch_id", BatchRecord::batchId),
        text("table", BatchRecord::table),
        text("state", batch -> batch.state().name()),
        new Column<>("partitions", "ARRAY<STRING>", BatchRecord::partitions),
        bigint("files", batch -> (long) batch.fileIds().size()),
        integer("attempts", BatchRecord::attempts),
        integer("launches", BatchRecord::launches),
        new Column<>("outcome_unknown", "BOOLEAN", BatchRecord::outcomeUnknown),
        timestamp("lease_until", batch -> batch.leaseUntil().orElse(null)),
        bigint("snapshot_id", batch -> batch.snapshotId().orElse(null)),
        text("error", batch -> batch.error().orElse(null)),
        text("error_class", batch -> batch.cause().map(FailureCause::errorClass).orElse(null)),
        text("file_at_fault", batch -> batch.cause().flatMap(FailureCause::file).orElse(null)),
        timestamp("created_at", BatchRecord::createdAt),
        timestamp("updated_at", BatchRecord::updatedAt)));
    for (BatchMetrics.Field field : BatchMetrics.Field.values()) {
      if (field != BatchMetrics.Field.FILES) { // the files column above counts them
        columns.add(bigint(snakeCase(field.key()), batch -> batch.metrics().map(field::of).orElse(null)));
      }
    }
    return columns;
  }

  /** {@code rowsInserted} to {@code rows_inserted}. */
  static String snakeCase(String camelCase) {
    return camelCase.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }

  private static <R> Column<R> text(String name, Function<R, String> value) {
    return new Column<>(name, "STRING", value::apply);
  }

  private static <R> Column<R> bigint(String name, Function<R, Long> value) {
    return new Column<>(name, "BIGINT", value::apply);
  }

  private static <R> Column<R> integer(String name, Function<R, Integer> value) {
    return new Column<>(name, "INT", value::apply);
  }

  private static <R> Column<R> timestamp(String name, Function<R, Instant> value) {
    return new Column<>(name, "TIMESTAMP", value::apply);
  }
}
