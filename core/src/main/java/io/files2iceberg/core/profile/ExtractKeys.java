package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileKeys.codes;
import static io.files2iceberg.core.profile.ProfileKeys.doc;
import static io.files2iceberg.core.profile.ValueType.BOOLEAN;
import static io.files2iceberg.core.profile.ValueType.BYTES;
import static io.files2iceberg.core.profile.ValueType.LIST;
import static io.files2iceberg.core.profile.ValueType.MAP;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK;
import static io.files2iceberg.core.profile.ValueType.WHOLE_NUMBER;

import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.core.profile.ProfileKeys.Doc;
import io.files2iceberg.core.profile.ProfileKeys.Key;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The keys of a profile's {@code extract} section, {@code extract.batch-file} included: where
 * the files land, how to read them and how they become partitions. Part of {@link ProfileKeys}.
 */
final class ExtractKeys {

  private static final KeyList<Key<?>> KEYS = new KeyList<>();

  static final Key<String> EXTRACT_PATH = key("extract.path", NON_BLANK, p -> p.extract().path(),
        doc("required",
          """
          Where the files land: `gs://bucket/glob` or `file:///absolute/glob`. `*` and `?` stay
          within a folder, `**` crosses folders, `[a-z]` is one character of the class (`[!a-z]`
          one outside it), `{a,b}` is either alternative, and `\\` makes the next character
          literal (`\\*` is a `*`). A pattern the matcher cannot honour is refused
          ([Globs](../profiles.md#globs)).
          """));
  static final Key<String> EXTRACT_FORMAT =
      key("extract.format", NON_BLANK, p -> p.extract().format().code(),
        doc("`parquet`",
          """
          `parquet`, `orc`, `avro`, `json` or `csv` (any case). `delta` is refused, saying why
          ([Limitations](../limitations.md)).
          """,
          codes(Extract.Format.values(), Extract.Format::code)));
  static final Key<Map<String, String>> EXTRACT_OPTIONS =
      key("extract.options", MAP, p -> p.extract().options(),
        doc("`{}`",
          """
          Spark reader options, passed as they are (csv: `header = "true"`); values are read as
          strings.
          """));
  static final Key<Boolean> EXTRACT_RECURSIVE_FILE_LOOKUP =
      key("extract.recursive-file-lookup", BOOLEAN, p -> p.extract().recursiveFileLookup(),
        doc("`false`",
          """
          A file in a subfolder, at any depth, of a partition folder (a folder in which a file
          of that name would match `extract.path`) belongs to that folder's partition: the
          listener records it there, a marker's listing and the batcher's listings include the
          subfolders, and the job reads it by its path (as it reads every file; no Spark reader
          option is set). The `pattern` may match its URI or the URI it would have directly in
          the partition folder. Subfolders and files whose name starts with `_` or `.` are not
          data. `false`: such a file is ignored (reason `in a subfolder of a partition folder`).
          """));
  static final Key<String> BATCH_FILE_INGESTION_TYPE =
      key(
          "extract.batch-file.ingestion-type",
          NON_BLANK,
          p -> p.extract().batchFile().ingestionType().code(),
        doc("`incremental`",
          """
          `incremental`: every READY partition once, driven by notifications; `last`: only the
          newest READY partition, with overwrite; `full`: every file of the glob on each run
          that names the table (`batch run-once --table`), with overwrite and no checkpoint.
          """,
          codes(BatchFile.IngestionType.values(), BatchFile.IngestionType::code)));
  static final Key<String> BATCH_FILE_PARTITION_TYPE =
      key(
          "extract.batch-file.partition-type",
          NON_BLANK,
          p -> p.extract().batchFile().partitionType().code(),
        doc("`string`",
          """
          Type of the partition token and of the partition column the job adds: `date` or
          `string`.
          """,
          codes(BatchFile.PartitionType.values(), BatchFile.PartitionType::code)));
  static final Key<String> BATCH_FILE_PATTERN =
      key(
          "extract.batch-file.pattern",
          NON_BLANK,
          p -> p.extract().batchFile().pattern().orElse(null),
        doc("none",
          """
          Java regex with exactly one capture group (a named group counts), matched against the
          object URI, else the object name; the group is the partition token. None: the object's
          folder below the glob's fixed prefix.
          """));
  static final Key<String> BATCH_FILE_PARTITION_COLUMN =
      key(
          "extract.batch-file.partition-column",
          NON_BLANK,
          p -> p.extract().batchFile().partitionColumn(),
        doc("the pattern's group name; else the `name` of a `name=` just before the group; else `partition`",
          """
          The column the job adds from the partition token: letters, digits and `_`, not
          starting with a digit. `(?<day>...)` gives `day`, `.+/dt=(\\d{4}-\\d{2}-\\d{2})/.+`
          gives `dt`.
          """));
  static final Key<String> BATCH_FILE_DATE_FORMAT =
      key(
          "extract.batch-file.date-format",
          NON_BLANK,
          p -> p.extract().batchFile().dateFormat().orElse(null),
        doc("none",
          """
          `DateTimeFormatter` pattern of the token, such as `yyyy-MM-dd`. Required with
          `partition-type = date`, an error without it. It must format a date and parse it back,
          so `yyyy-MM` and `HH:mm` are rejected.
          """));
  static final Key<Boolean> BATCH_FILE_STRICT_PATTERN =
      key(
          "extract.batch-file.strict-pattern",
          BOOLEAN,
          p -> p.extract().batchFile().strictPattern(),
        doc("`false`",
          """
          A data file (or marker) that matches the glob but not the pattern: `true` stops the
          table (its notification is quarantined; every batcher run reports an error naming the
          file and claims nothing of the table until the object is fixed or removed and its
          message released, or the pattern changed; `status --config` shows it under STOPPED
          TABLES; mode `full` fails its run naming the file). `false`: the notification is
          quarantined with a warning, counted by
          `files2iceberg_listener_pattern_mismatches_total{table}`, and the table loads the
          rest; a listing (mode `full`, `replay`, `backfill`) leaves the file out with a
          warning.
          """));
  static final Key<Boolean> BATCH_FILE_SUCCESS_FILE_FILTER =
      key(
          "extract.batch-file.success-file-filter",
          BOOLEAN,
          p -> p.extract().batchFile().successFileFilter(),
        doc("`true`",
          """
          A partition is READY once its success marker lands; `false`: on its first file.
          """));
  static final Key<String> BATCH_FILE_SUCCESS_FILE_NAME =
      key(
          "extract.batch-file.success-file-name",
          NON_BLANK,
          p -> p.extract().batchFile().successFileName(),
        doc("`_SUCCESS`",
          """
          The marker's object name inside the partition folder.
          """));
  static final Key<Integer> EXTRACT_KEEP_CHECKPOINTS =
      key("extract.keep-checkpoints", WHOLE_NUMBER, p -> p.extract().keepCheckpoints(),
        doc("`50`",
          """
          Committed batches kept in the ledger per table; at least 1.
          """).atLeast(1));
  static final Key<Boolean> EXTRACT_SAVE_CHECKPOINT =
      key("extract.save-checkpoint", BOOLEAN, p -> p.extract().saveCheckpoint(),
        doc("`true`",
          """
          `false` runs as a backfill that does not move the ledger's bookmarks: every run it is
          asked for loads every listed file of the complete partitions. Refused for an Append
          table without `load.primary-key`, where each run would append the same rows again (use
          `backfill`, which loads each file once through the ledger).
          """));
  static final Key<Integer> EXTRACT_MAX_BATCH_SIZE =
      key("extract.max-batch-size", WHOLE_NUMBER, p -> p.extract().maxBatchSize(),
        doc("`100`",
          """
          The most files one batch reads; at least 1.
          """).atLeast(1));
  static final Key<Long> EXTRACT_MAX_BATCH_BYTES =
      key("extract.max-batch-bytes", BYTES,
          p -> p.extract().maxBatchBytes().isPresent() ? p.extract().maxBatchBytes().getAsLong() : null,
        doc("none",
          """
          The most bytes of files one batch claimed from the ledger reads (the sizes the
          notifications or listings recorded; a file of unknown size counts as none): a whole
          number of bytes or a size such as `512MB` or `2GiB`; at least 1. A batch is filled up
          to both caps: several small partitions share it, the last one it takes may be split
          (its other files go first into the next batch), and a batch always takes at least one
          file, so a file larger than the cap loads alone.
          """).atLeast(1));
  static final Key<List<String>> EXTRACT_LINEAGE_COLUMNS =
      key(
          "extract.lineage-columns",
          LIST,
          p -> p.extract().lineageColumns().stream().map(LineageColumn::code).toList(),
        doc("`[]`",
          """
          Columns the job adds to every row, distinct, any of `_source_file` (the object URI),
          `_source_generation` (its GCS generation), `_batch_id` (the loading batch),
          `_ingested_at` (when that batch ran).
          """,
          codes(LineageColumn.values(), LineageColumn::code)));
  static final Key<Boolean> EXTRACT_QUARANTINE_BAD_FILES =
      key("extract.quarantine-bad-files", BOOLEAN, p -> p.extract().quarantineBadFiles(),
        doc("`false`",
          """
          A corrupt or unreadable file, or one whose schema does not fit the table's (a key
          column missing, a type that cannot widen unless `transform.rescued-data-column`
          rescues it, no column in common; see Bad input), is quarantined and the batch loads
          the rest; `false`: the batch fails naming the file.
          """));
  static final Key<String> EXTRACT_ON_OVERWRITE =
      key("extract.on-overwrite", NON_BLANK, p -> p.extract().onOverwrite().code(),
        doc("`reload` with a `primary-key` or `save-mode = Overwrite`, else `ignore`",
          """
          A rewritten object (a new generation of an object whose older generation is loaded; a
          `touch` is one): `ignore` leaves it out, IGNORED in the ledger with the reason, so an
          Append table holds its rows once (Auto Loader's `allowOverwrites = false`); `reload`
          loads it (a MERGE updates the keys). `ignore` with `save-mode = Overwrite` is refused.
          """,
          codes(Extract.OnOverwrite.values(), Extract.OnOverwrite::code)));

  static final Key<String> EXTRACT_DATETIME_REBASE =
      key("extract.datetime-rebase", NON_BLANK, p -> p.extract().datetimeRebase().code(),
        doc("`corrected`",
          """
          How Parquet and Avro `DATE` and `TIMESTAMP` values (INT96 too) before 1582-10-15 are read
          from a file that does not say which calendar wrote it: `corrected` reads them as written
          (proleptic Gregorian, as DuckDB, Arrow, Trino and Spark 3 write them, and as Iceberg stores
          them); `legacy` rebases them from the hybrid Julian calendar of an old Hive writer. Files
          Spark wrote carry their calendar and are read by it, whatever this says.
          """,
          codes(Extract.DatetimeRebase.values(), Extract.DatetimeRebase::code)));
  static final Key<String> EXTRACT_TIMEZONE =
      key("extract.timezone", NON_BLANK, p -> p.extract().timeZone().map(ZoneId::getId).orElse(null),
        doc("the session's (`UTC`)",
          """
          The time zone of the table's zone-less text timestamps: a CSV or JSON `2026-11-30 08:00:00`
          that the reader parses (its `timeZone` option) or that `transform.cast.columns` casts to
          `TIMESTAMP` is that wall-clock time in this zone (`Europe/Paris`, `+01:00`). Text with an
          offset or a zone keeps it; Parquet, Avro and ORC timestamps do not depend on it. The
          session's zone is the deployment's: UTC unless `job.spark-properties` sets
          `spark.sql.session.timeZone`.
          """));

  static final Key<String> EXTRACT_SCHEMA_HINTS =
      key("extract.schema-hints", NON_BLANK,
          p -> p.extract().schemaHints().isEmpty() ? null : SchemaHints.render(p.extract().schemaHints()),
        doc("none",
          """
          csv and json: the types of named columns, in Spark's DDL as Auto Loader's `schemaHints`:
          `"amount DECIMAL(12,2), ts TIMESTAMP"`. Each named column of a file is read as that type
          (a `TIMESTAMP` from text in `extract.timezone`); the others as `infer-column-types`
          says. A hint wins over inference, and `transform.cast.columns` (which names columns after
          renaming) over a hint. A value that does not convert is a bad record, as a failed cast
          is (`transform.on-bad-record`; with `transform.rescued-data-column` the value is
          rescued). A hint naming a column a file lacks is no error. Names are source columns, of
          letters, digits and `_` or in backticks; `validate` checks the list's shape and the type
          names, the job parses each type with Spark and fails the batch naming this key if Spark
          refuses one. Refused for parquet, orc and avro, whose files carry their types.
          """));
  static final Key<Boolean> EXTRACT_INFER_COLUMN_TYPES =
      key("extract.infer-column-types", BOOLEAN, p -> p.extract().isText() ? p.extract().inferColumnTypes() : null,
        doc("csv: `false`; json: `true` (as they were read before the key)",
          """
          csv and json: `true` infers each column's type from the file (csv: Spark's `inferSchema`;
          json: numbers and booleans as `bigint`, `double`, `boolean`), `false` reads every column
          as a string. Schema hints win over it. An `inferSchema` or `primitivesAsString` in
          `extract.options` wins over both. Refused for parquet, orc and avro.
          """));

  private ExtractKeys() {}

  /** This section's keys, in documentation order. */
  static List<Key<?>> keys() {
    return KEYS.keys();
  }

  private static <T> Key<T> key(String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc) {
    return KEYS.add(new Key<>(path, type, resolved, doc));
  }
}
