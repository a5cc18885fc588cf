package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileKeys.codes;
import static io.files2iceberg.core.profile.ProfileKeys.doc;
import static io.files2iceberg.core.profile.ValueType.BOOLEAN;
import static io.files2iceberg.core.profile.ValueType.DURATION;
import static io.files2iceberg.core.profile.ValueType.DURATION_OR_ZERO;
import static io.files2iceberg.core.profile.ValueType.FRACTION;
import static io.files2iceberg.core.profile.ValueType.LIST;
import static io.files2iceberg.core.profile.ValueType.MAP;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK_MAP;
import static io.files2iceberg.core.profile.ValueType.STRING;

import io.files2iceberg.core.profile.ProfileKeys.Doc;
import io.files2iceberg.core.profile.ProfileKeys.Key;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The keys of a profile's {@code transform} and {@code load} sections: what is done to the rows
 * and how they are written to the Iceberg table. Part of {@link ProfileKeys}.
 */
final class LoadKeys {

  private static final KeyList<Key<?>> KEYS = new KeyList<>();

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
          not. Not used by Append, Overwrite, `last` or `full`, which store no row to keep
          (unless `load.snapshot-deletes` makes `last` and `full` MERGE).
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

  static final Key<Boolean> LOAD_SNAPSHOT_DELETES =
      key("load.snapshot-deletes", BOOLEAN, p -> p.load().snapshotDeletes().isPresent(),
        doc("`false`",
          """
          For a keyed table fed whole snapshots (`extract.batch-file.ingestion-type = last` or
          `full`): `true` MERGEs each batch on the key instead of replacing the table, and deletes
          the stored rows whose key the batch does not have, within the merge scope: the whole
          table, or with `load.merge-scope = partitions` only the partitions the batch has rows in
          (`auto` deletes across the whole table here). Rows of the batch are updated and inserted
          as a MERGE does (precombine field, `load.missing-columns`, `load.write-mode`); the
          snapshot keeps the table's history, and with `merge-on-read` a batch writes delete files
          instead of rewriting the table. Guarded by `load.snapshot-deletes-max-fraction`. Requires
          `load.primary-key`; refused with `incremental`, whose batches hold new files only (see
          [Snapshot deletes](../spark-job.md#snapshot-deletes)). `false`: a batch replaces the whole table.
          """));
  static final Key<Double> LOAD_SNAPSHOT_DELETES_MAX_FRACTION =
      key("load.snapshot-deletes-max-fraction", FRACTION, p -> p.load().snapshotDeletes()
          .map(Load.SnapshotDeletes::maxFraction).orElse(null),
        doc("`0.5`",
          """
          With `load.snapshot-deletes = true`, the largest share of the stored rows in the merge
          scope that one batch may delete, from 0 to 1. A batch that would delete more fails
          before anything is committed (exit 4, REJECTED: its partitions end FAILED), naming the
          table, the counts, the share and this key: an empty or truncated snapshot cannot wipe
          the table. Set `1.0` to let a batch delete every row in scope, an empty batch included.
          A key of its own, beside `load.snapshot-deletes`: `load.snapshot-deletes.max-fraction` is
          refused, as a key below `load.snapshot-deletes` and the boolean replace each other in
          HOCON, whichever is written last.
          """));

  static final Key<Duration> LOAD_UNDO_TAG_RETENTION =
      key("load.undo-tag-retention", DURATION_OR_ZERO, p -> p.load().undoTagRetention(),
        doc("`30d`",
          """
          Before a risky batch (one that adds columns to the table, deletes the keys a snapshot
          lacks with `load.snapshot-deletes`, or overwrites the table in mode `full`), the job tags
          the table's current snapshot `files2iceberg-before-<batch id>`, kept this long (the
          tag's `max-ref-age`): Iceberg does not expire a snapshot a tag holds, so `rollback
          --to-tag` can undo the batch after `maintain` has expired older snapshots. `0`: no tag.
          See [Change feed](../changes.md#tags-before-risky-batches).
          """));
  static final Key<String> LOAD_AFTER_INGEST_ACTION =
      key("load.after-ingest.action", NON_BLANK, p -> p.load().afterIngest().action().code(),
        doc("`keep`",
          """
          Landing cleanup: what `maintain` does to the landed object of each file loaded longer ago
          than `load.after-ingest.retention`. `keep` leaves it; `delete` deletes it; `move` copies it
          under `load.after-ingest.move-to` and deletes it where it landed. Each delete carries the
          file's generation as a precondition, so an object rewritten since is never deleted. A
          rollback or replay reads a moved file from its copy, and refuses to reload a deleted one
          unless `--allow-missing`. Refused with `load.save-mode = Overwrite` (without a key) and with
          `extract.batch-file.ingestion-type` `last` or `full`: their loads read old files again. See
          [Landing cleanup](../cleanup.md).
          """,
          codes(Load.AfterIngest.Action.values(), Load.AfterIngest.Action::code)));
  static final Key<String> LOAD_AFTER_INGEST_MOVE_TO =
      key("load.after-ingest.move-to", NON_BLANK, p -> p.load().afterIngest().moveTo().orElse(null),
        doc("none",
          """
          With `action = move` (and only then), the folder loaded objects are moved to: `gs://bucket/prefix/`
          on GCS, `file:///folder/` for a landing folder (the scheme of `extract.path`). An object
          `gs://b/raw/x.csv` goes to `<move-to>b/raw/x.csv` (a local file to `<move-to>` plus its absolute
          path without the leading `/`); when that name holds an object already, to the same name plus
          `.<generation>`. Refused when an `extract.path` of any profile of the deployment watches the
          folder: the listener would record the copies as new files.
          """));
  static final Key<Duration> LOAD_AFTER_INGEST_RETENTION =
      key("load.after-ingest.retention", DURATION, p -> p.load().afterIngest().retention(),
        doc("`30d`",
          """
          How long after its load (its batch's commit) a file's object is left where it landed before
          `maintain` deletes or moves it. With `action = delete` it must be more than `7d` (Auto Loader's
          rule): long enough to notice a bad load and reload it from the landed objects.
          """));

  /**
   * Keys that are not keys, below a key whose value is a boolean, each with what to write instead.
   * In HOCON such a key and the boolean replace each other, whichever is written last, so the
   * loader looks for them in the text itself ({@link ProfileTree}): neither order may lose a
   * setting unseen.
   */
  static final Map<String, String> BELOW_A_BOOLEAN = Map.of(
      "load.snapshot-deletes.max-fraction", "load.snapshot-deletes-max-fraction",
      "load.snapshot-deletes.enabled", "load.snapshot-deletes");

  private LoadKeys() {}

  /** This section's keys, in documentation order. */
  static List<Key<?>> keys() {
    return KEYS.keys();
  }

  private static <T> Key<T> key(String path, ValueType<T> type, Function<TableProfile, T> resolved, Doc doc) {
    return KEYS.add(new Key<>(path, type, resolved, doc));
  }
}
