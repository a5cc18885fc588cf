package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ValueType.BOOLEAN;
import static io.files2iceberg.core.profile.ValueType.BYTES;
import static io.files2iceberg.core.profile.ValueType.LIST;
import static io.files2iceberg.core.profile.ValueType.MAP;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK_MAP;
import static io.files2iceberg.core.profile.ValueType.STRING;
import static io.files2iceberg.core.profile.ValueType.WHOLE_NUMBER;

import io.files2iceberg.core.profile.Extract.LineageColumn;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Every key a table profile may set: its dotted path, its value type and where the resolved value
 * lives in a {@link TableProfile}. The one list that the parser's unknown-key check, the JSON
 * rendering, the reference page and the JSON Schema ({@link ProfileReference}) all read. The deployment's keys ({@code ledger}, {@code listener},
 * {@code job}) are {@link DeploymentKeys}.
 */
final class ProfileKeys {

  /**
   * One leaf key.
   *
   * @param path the dotted path, such as {@code extract.batch-file.pattern}
   * @param type the value's type
   * @param resolved the resolved value in a profile, as the key spells it (enum codes, null for
   *     none)
   * @param doc what the reference page and the JSON Schema say about it
   */
  record Key<T>(String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc)
      implements SettingKey<T> {}

  /**
   * A key's documentation, the one source of docs/reference/profile-keys.md and
   * docs/profile.schema.json.
   *
   * @param defaultValue the default as the reference table shows it: a value in backticks
   *     ({@code `100`}), or words ({@code required}, {@code none}, a rule)
   * @param description Markdown, its links relative to docs/reference/; line breaks are spaces
   * @param values the codes the value (or each element of a list) must be one of, matched in any
   *     case; empty when free
   * @param minimum the least whole number the loader accepts; empty when any
   * @param pattern a regex the whole text must match, as the loader checks it; empty when free
   * @param deprecatedValues values the loader still accepts with a warning (a boolean of old)
   */
  record Doc(String defaultValue, String description, List<String> values, Optional<Long> minimum,
      Optional<String> pattern, List<String> deprecatedValues) {
    Doc {
      description = description.strip().replaceAll("\\s*\\n\\s*", " ");
      values = List.copyOf(values);
      deprecatedValues = List.copyOf(deprecatedValues);
    }

    Doc(String defaultValue, String description, List<String> values) {
      this(defaultValue, description, values, Optional.empty(), Optional.empty(), List.of());
    }

    /** Whether the profile must set the key. */
    boolean isRequired() {
      return defaultValue.equals("required");
    }

    Doc atLeast(long least) {
      return new Doc(defaultValue, description, values, Optional.of(least), pattern, deprecatedValues);
    }

    Doc matching(String regex) {
      return new Doc(defaultValue, description, values, minimum, Optional.of(regex), deprecatedValues);
    }

    Doc alsoAccepting(List<String> deprecated) {
      return new Doc(defaultValue, description, values, minimum, pattern, deprecated);
    }
  }

  private static final KeyList<Key<?>> ALL = new KeyList<>();
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

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

  static final Key<List<String>> TRANSFORM_FILTER =
      key("transform.filter", LIST, p -> p.transform().filter(),
        doc("`[]`",
          """
          Spark SQL predicates on the source columns; a row is kept when all hold.
          """));
  static final Key<Map<String, String>> TRANSFORM_RENAME_COLUMNS =
      key("transform.rename-columns", NON_BLANK_MAP, p -> p.transform().renameColumns(),
        doc("`{}`",
          """
          Source column to new name, applied after `filter`.
          """));
  static final Key<Map<String, String>> TRANSFORM_CAST_COLUMNS =
      key("transform.cast.columns", NON_BLANK_MAP, p -> p.transform().castColumns(),
        doc("`{}`",
          """
          Column (after renaming) to Spark SQL type, such as `BIGINT` or `DECIMAL(12,2)`.
          """));
  static final Key<String> TRANSFORM_ON_BAD_RECORD =
      key("transform.on-bad-record", NON_BLANK, p -> p.transform().onBadRecord().code(),
        doc("`fail`",
          """
          A row whose cast fails: `fail` fails the batch, naming the file and the column;
          `reject` writes the row to the Iceberg table `<table>__rejected` and loads the rest.
          """,
          codes(Transform.BadRecordPolicy.values(), Transform.BadRecordPolicy::code)));
  static final Key<String> TRANSFORM_RESCUED_DATA_COLUMN =
      key("transform.rescued-data-column", NON_BLANK, p -> p.transform().rescuedDataColumn().orElse(null),
        doc("none",
          """
          A STRING column, such as `_rescued_data`, added to the table (also with
          `load.schema-evolution` other than `add-new-columns`) that keeps the values a row cannot load as they are,
          so the row loads instead of being a bad record or failing its file: a failed cast (the
          column gets NULL) and a column the table cannot take (a type that cannot widen to the
          table's, or a column the table does not have under `load.schema-evolution = rescue` or `none`).
          JSON of the column names after renaming, each to its value as text, and `_file_path`,
          the object URI: `{"amount":"ten","_file_path":"gs://b/raw/p1/a.json"}`; NULL when the
          row has nothing to rescue. A key column, a malformed line and a NULL key are never
          rescued (see [Rescued data](../spark-job.md#rescued-data)). A column name; not a key,
          the partition column, a lineage column, a cast column or a rename target.
          """));

  static final Key<String> LOAD_TABLE = key("load.iceberg.table", NON_BLANK, TableProfile::table,
        doc("required",
          """
          The Iceberg table, `catalog.namespace.table`, each part of letters, digits and `_`.
          Catalog `local` with the default `catalog.*` settings is the embedded catalog.
          """).matching(ProfileRules.TABLE_NAME));
  static final Key<String> LOAD_SAVE_MODE =
      key("load.save-mode", NON_BLANK, p -> p.load().saveMode().code(),
        doc("`Append`",
          """
          Without a primary key: `Append`, or `Overwrite` the batch's partitions with their
          whole live content, every current file of each partition and not only the batch's (any
          case); with a primary key the job MERGEs and this is not used. With `ingestion-type =
          incremental`, `Overwrite` requires `load.partition-by` to hold the partition column
          itself (`dt` or `identity(dt)`), so that a batch replaces only its own partitions.
          """,
          codes(Load.SaveMode.values(), Load.SaveMode::code)));
  static final Key<List<String>> LOAD_PRIMARY_KEY =
      key("load.primary-key", LIST, p -> p.load().primaryKey(),
        doc("`[]`",
          """
          The MERGE key columns: distinct, none blank. Empty: rows are appended or overwritten.
          """));
  static final Key<List<String>> LOAD_PARTITION_BY =
      key("load.partition-by", LIST, p -> p.load().partitionBy(),
        doc("`[]`",
          """
          The Iceberg partition spec: columns, or `identity(c)`, `years(c)`, `months(c)`,
          `days(c)`, `hours(c)`, `bucket(N, c)`, `truncate(N, c)`. Columns are not checked
          against the files' schema, which is not known when the profile loads.
          """));
  static final Key<String> LOAD_PRECOMBINE_FIELD =
      key("load.iceberg.precombine-field", NON_BLANK, p -> p.load().precombineField().orElse(null),
        doc("none",
          """
          Among rows with one key, the highest value wins (ties: the newer object generation).
          Requires a `primary-key`.
          """));
  static final Key<String> LOAD_SCHEMA_EVOLUTION =
      key("load.schema-evolution", NON_BLANK, p -> p.load().schemaEvolution().code(),
        doc("`add-new-columns`",
          """
          What a column the existing table does not have, or a field a struct column of the table
          does not have, does when a file brings it (types are safely widened in every mode; a new
          table gets every column of its first batch): `add-new-columns` adds it to the table
          (optional, so stored rows read NULL; a struct field is added inside its struct) and
          loads it; `fail-on-new-columns` fails the batch, naming the files and the columns, and
          commits nothing; `rescue` keeps the table's schema and puts the values in
          `transform.rescued-data-column` (required); `none` keeps the table's schema and does not
          load the column, but counts it per file in the load history (`columnsIgnored`) and logs
          it once per file; with `transform.rescued-data-column` its values go there. The boolean
          of old still loads, with a warning: `true` is `add-new-columns`, `false`
          `fail-on-new-columns` (`rescue` with a rescued data column).
          """,
          codes(Load.SchemaEvolution.values(), Load.SchemaEvolution::code))
          .alsoAccepting(List.of("true", "false")));
  static final Key<Map<String, String>> LOAD_TABLE_PROPERTIES =
      key("load.iceberg.table-properties", MAP, p -> p.load().tableProperties(),
        doc("`{}`",
          """
          Iceberg table properties set when the table is created, such as `"write.merge.mode" =
          merge-on-read`, `write.update.mode`, `write.delete.mode`.
          """));
  static final Key<String> LOAD_MISSING_COLUMNS =
      key("load.missing-columns", NON_BLANK, p -> p.load().missingColumns().code(),
        doc("`keep`",
          """
          With a primary key, what a MERGE update writes to a table column that the row's file
          does not have (or no file of the batch has): `keep` leaves the stored value, `null`
          sets it NULL (the update replaces the whole row). An inserted row gets NULL there
          either way, and a NULL the file holds is always written. Spell it `null` quoted or
          not. Not used by Append, Overwrite, `last` or `full`, which store no row to keep.
          """,
          codes(Load.MissingColumns.values(), Load.MissingColumns::code)));
  static final Key<String> LOAD_WRITE_MODE =
      key("load.write-mode", NON_BLANK, p -> p.load().writeMode().code(),
        doc("`copy-on-write` (or the `write.merge.mode` of `load.iceberg.table-properties`)",
          """
          With a primary key, how a MERGE changes the rows it updates: `copy-on-write` rewrites
          the data files that hold them; `merge-on-read` marks them deleted in position delete
          files and writes only the batch's rows (for large tables: a MERGE no longer rewrites
          whole files; reads apply the deletes until `files2iceberg maintain` compacts them,
          which rewrites every data file that has deletes and drops the delete files). Set as
          the table properties `write.merge.mode`, `write.update.mode` and `write.delete.mode`
          on every batch, so changing it applies to the next batch; it must not contradict those
          keys in `load.iceberg.table-properties`. `merge-on-read` requires `load.primary-key`.
          """,
          codes(Load.WriteMode.values(), Load.WriteMode::code)));
  static final Key<String> LOAD_MERGE_SCOPE =
      key("load.merge-scope", NON_BLANK, p -> p.load().mergeScope().code(),
        doc("`auto`",
          """
          With a primary key, which stored rows a MERGE may match: `partitions` adds to its `ON`
          clause the batch's values of the partition spec's source columns (the values
          themselves, or their range beyond 1,000 distinct values), so data files of other
          partitions are neither read nor rewritten; `table` matches the key against the whole
          table; `auto` is `partitions` when the key holds every source column of the table's
          partition spec (equal keys are then in one partition), else `table`. Declare
          `partitions` for a key without the partition columns only when a key's row never moves
          to another partition: a row of the batch whose stored version is in another partition
          is then inserted beside it. `partitions` requires `load.partition-by`.
          """,
          codes(Load.MergeScope.values(), Load.MergeScope::code)));

  static final Key<String> LOAD_CDC_OP_COLUMN =
      key("load.cdc.op-column", NON_BLANK, p -> p.load().cdc()
          .filter(c -> c.style() == Load.Cdc.Style.OP_COLUMN).map(Load.Cdc::column).orElse(null),
        doc("none",
          """
          Change-data deletes: the source column that says what a row is; a row whose value (as
          a string) is one of `load.cdc.delete-values` deletes its key (see [Change-data
          deletes](../spark-job.md#change-data-deletes)). Every file of the batch must have it
          (else the file does not fit, named with the column); it is not written to the table.
          Requires `load.primary-key` and `ingestion-type = incremental`; not with
          `load.cdc.delete-flag`.
          """));
  static final Key<List<String>> LOAD_CDC_DELETE_VALUES =
      key("load.cdc.delete-values", LIST, p -> p.load().cdc()
          .filter(c -> c.style() == Load.Cdc.Style.OP_COLUMN).map(Load.Cdc::deleteValues).orElse(null),
        doc("`[\"D\"]`",
          """
          With `load.cdc.op-column`, the values that mark a delete; non-empty. Other values
          (`I`, `U`, anything) are inserts or updates, and so is NULL.
          """));
  static final Key<String> LOAD_CDC_DELETE_FLAG =
      key("load.cdc.delete-flag", NON_BLANK, p -> p.load().cdc()
          .filter(c -> c.style() == Load.Cdc.Style.DELETE_FLAG).map(Load.Cdc::column).orElse(null),
        doc("none",
          """
          Change-data deletes marked by a boolean column instead (Hudi's `_hoodie_is_deleted`
          style): true deletes the key, false or NULL writes the row. Same rules as
          `load.cdc.op-column`, which it excludes.
          """));

  static final Key<String> METADATA_PATH =
      key("metadata.path", NON_BLANK, p -> p.metadata().path(),
        doc("`<home>/metadata/<profile>/`",
          """
          Folder for batch manifests and job logs, on `gs://` or local.
          """));

  static final Key<String> CATALOG_TYPE =
      key("catalog.type", NON_BLANK, p -> p.catalog().type().code(),
        doc("`jdbc`",
          """
          `jdbc` (the embedded default, on SQLite), `hadoop` or `rest` (BigLake).
          """,
          codes(Catalog.CatalogType.values(), Catalog.CatalogType::code)));
  static final Key<String> CATALOG_URI = key("catalog.uri", STRING, p -> p.catalog().uri(),
        doc("jdbc: `jdbc:sqlite:<home>/catalog.db`; rest: required",
          """
          The JDBC URL or REST endpoint; unused by `hadoop`.
          """));
  static final Key<String> CATALOG_WAREHOUSE =
      key("catalog.warehouse", NON_BLANK, p -> p.catalog().warehouse(),
        doc("jdbc, hadoop: `<home>/warehouse`; rest: required",
          """
          The warehouse location.
          """));
  static final Key<String> CATALOG_USER_PROJECT =
      key("catalog.user-project", NON_BLANK, p -> p.catalog().userProject().orElse(null),
        doc("none",
          """
          rest: sent as `header.x-goog-user-project`.
          """));
  static final Key<String> CATALOG_AUTH_TYPE =
      key("catalog.auth-type", NON_BLANK, p -> p.catalog().authType().orElse(null),
        doc("rest: `org.apache.iceberg.gcp.auth.GoogleAuthManager`; else none",
          """
          rest: `rest.auth.type`.
          """));
  static final Key<String> CATALOG_IO_IMPL =
      key("catalog.io-impl", NON_BLANK, p -> p.catalog().ioImpl().orElse(null),
        doc("rest: `org.apache.iceberg.gcp.gcs.GCSFileIO`; else none",
          """
          The catalog's `io-impl`.
          """));
  static final Key<Boolean> CATALOG_VENDED_CREDENTIALS =
      key("catalog.vended-credentials", BOOLEAN, p -> p.catalog().vendedCredentials(),
        doc("`false`",
          """
          rest: ask the catalog for vended credentials.
          """));
  static final Key<Map<String, String>> CATALOG_PROPERTIES =
      key("catalog.properties", MAP, p -> p.catalog().properties(),
        doc("`{}`",
          """
          Further catalog properties, passed as they are.
          """));

  /**
   * The two top-level fields a rendered profile ({@link ProfileJson}) carries besides its keys.
   * They are not profile keys: the file decides a profile's name and source. The loader accepts
   * them, so that a rendered profile loads as it is, and checks that {@code name} is the file's.
   */
  static final Key<String> RENDERED_NAME = new Key<>("name", NON_BLANK, TableProfile::name,
      doc("the file name without its extension",
          "The profile's name, as `validate` prints it; when present, the file name without the extension."));

  static final Key<String> RENDERED_SOURCE = new Key<>("source", NON_BLANK, p -> p.source().toString(),
      doc("the file", "The file the profile was read from, as `validate` prints it."));

  private ProfileKeys() {}

  /** Whether a top-level field is one of the fields a rendered profile carries. */
  static boolean isRenderedField(String path) {
    return path.equals(RENDERED_NAME.path()) || path.equals(RENDERED_SOURCE.path());
  }

  private static <T> Key<T> key(
      String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc) {
    return ALL.add(new Key<>(path, type, resolved, doc));
  }

  private static Doc doc(String defaultValue, String description) {
    return new Doc(defaultValue, description, List.of());
  }

  private static Doc doc(String defaultValue, String description, List<String> values) {
    return new Doc(defaultValue, description, values);
  }

  /** The codes of an enum's constants, in declaration order. */
  private static <E extends Enum<E>> List<String> codes(E[] values, Function<E, String> code) {
    return Arrays.stream(values).map(code).toList();
  }

  static List<String> all() {
    return ALL.paths();
  }

  static List<Key<?>> keys() {
    return ALL.keys();
  }

  /** The table keys, for the unknown-key check. */
  static KeyPaths paths() {
    return ALL.keyPaths();
  }

  /**
   * Whether {@code path} is a map whose keys are the user's (Spark properties and such), in a
   * profile or the deployment file.
   */
  static boolean isFreeForm(String path) {
    return paths().plus(DeploymentKeys.paths()).isFreeForm(path);
  }

  /** The path of a key inside {@code parent}; keys that are not plain names are quoted. */
  static String child(String parent, String key) {
    String segment = PLAIN_KEY.matcher(key).matches() ? key : ValueType.quote(key);
    return parent.isEmpty() ? segment : parent + "." + segment;
  }

  /** The path of a list element. */
  static String element(String list, int index) {
    return list + "[" + index + "]";
  }
}
