package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_INGESTION_TYPE;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PARTITION_COLUMN;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PATTERN;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_AFTER_INGEST_ACTION;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_AFTER_INGEST_MOVE_TO;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_AFTER_INGEST_RETENTION;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_CDC_DELETE_FLAG;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_CDC_DELETE_VALUES;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_CDC_OP_COLUMN;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_MERGE_SCOPE;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_MISSING_COLUMNS;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_PARTITION_BY;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_PRECOMBINE_FIELD;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_PRIMARY_KEY;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_SAVE_MODE;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_SCHEMA_EVOLUTION;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_SNAPSHOT_DELETES;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_SNAPSHOT_DELETES_MAX_FRACTION;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_TABLE;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_TABLE_PROPERTIES;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_UNDO_TAG_RETENTION;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_WRITE_MODE;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_CAST_COLUMNS;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_FILTER;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_ON_BAD_RECORD;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_RENAME_COLUMNS;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_RESCUED_DATA_COLUMN;

import io.files2iceberg.core.profile.Load.AfterIngest;
import io.files2iceberg.core.profile.Load.Cdc;
import io.files2iceberg.core.profile.Load.MergeScope;
import io.files2iceberg.core.profile.Load.MissingColumns;
import io.files2iceberg.core.profile.Load.SaveMode;
import io.files2iceberg.core.profile.Load.SchemaEvolution;
import io.files2iceberg.core.profile.Load.SnapshotDeletes;
import io.files2iceberg.core.profile.Load.TableId;
import io.files2iceberg.core.profile.Load.WriteMode;
import io.files2iceberg.core.profile.ProfileValues.Rule;
import io.files2iceberg.core.profile.Transform.BadRecordPolicy;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a profile's {@code transform} and {@code load} sections for {@link ProfileLoader}: their
 * keys are {@link LoadKeys}. The load section's checks that involve the batch file are made here,
 * once the extract section is read.
 */
final class LoadReader {

  private LoadReader() {}

  static Transform transform(ProfileValues v) {
    return new Transform(
        v.get(TRANSFORM_FILTER, List.of()),
        v.get(TRANSFORM_RENAME_COLUMNS, Map.of()),
        v.get(TRANSFORM_CAST_COLUMNS, Map.of()),
        v.choice(TRANSFORM_ON_BAD_RECORD, BadRecordPolicy.FAIL, BadRecordPolicy::code)
            .orElse(BadRecordPolicy.FAIL),
        v.optional(TRANSFORM_RESCUED_DATA_COLUMN, ProfileRules::columnName));
  }

  static Load load(ProfileValues v, Extract extract, Transform transform) {
    BatchFile batchFile = extract.batchFile();
    TableId table =
        v.required(LOAD_TABLE, ProfileRules::tableName)
            .map(name -> name.split("\\."))
            .map(parts -> new TableId(parts[0], parts[1], parts[2]))
            .orElse(new TableId("", "", ""));
    Optional<SaveMode> saveMode = v.choice(LOAD_SAVE_MODE, SaveMode.APPEND, SaveMode::code);
    Optional<List<String>> primaryKey = v.each(LOAD_PRIMARY_KEY, Rule.none());
    Optional<List<String>> partitionBy = v.each(LOAD_PARTITION_BY, ProfileRules::partitionField);
    Optional<String> precombineField = v.optional(LOAD_PRECOMBINE_FIELD);
    // An invalid primary key is reported on its own; only a valid empty one makes this wrong.
    if (precombineField.isPresent() && primaryKey.map(List::isEmpty).orElse(false)) {
      v.reject(LOAD_PRECOMBINE_FIELD, "requires a non-empty load.primary-key");
    }
    checkOverwriteReplacesPartitions(v, batchFile, saveMode, primaryKey, partitionBy);
    Map<String, String> tableProperties = v.get(LOAD_TABLE_PROPERTIES, Map.of());
    // Unset, the mode is the one load.iceberg.table-properties gives a MERGE, if any.
    WriteMode declaredMode = WriteMode.MERGE_ON_READ.code().equals(tableProperties.get("write.merge.mode"))
        ? WriteMode.MERGE_ON_READ : WriteMode.COPY_ON_WRITE;
    Optional<WriteMode> writeMode = v.isSet(LOAD_WRITE_MODE)
        ? v.choice(LOAD_WRITE_MODE, declaredMode, WriteMode::code) : Optional.of(declaredMode);
    Optional<MergeScope> mergeScope = v.choice(LOAD_MERGE_SCOPE, MergeScope.AUTO, MergeScope::code);
    boolean noKey = primaryKey.map(List::isEmpty).orElse(false);
    if (v.isSet(LOAD_WRITE_MODE) && writeMode.orElse(null) == WriteMode.MERGE_ON_READ && noKey) {
      v.reject(LOAD_WRITE_MODE, "merge-on-read applies to a MERGE and requires a non-empty load.primary-key");
    }
    writeMode.ifPresent(mode -> {
      for (String property : WriteMode.TABLE_PROPERTIES) {
        String declared = tableProperties.get(property);
        if (v.isSet(LOAD_WRITE_MODE) && declared != null && !declared.equals(mode.code())) {
          v.reject(LOAD_WRITE_MODE, "is " + mode.code() + " but load.iceberg.table-properties sets " + property
              + " = " + declared);
        }
      }
    });
    if (mergeScope.isPresent() && mergeScope.get() != MergeScope.AUTO && noKey) {
      v.reject(LOAD_MERGE_SCOPE, mergeScope.get().code() + " applies to a MERGE and requires a non-empty"
          + " load.primary-key");
    }
    if (mergeScope.orElse(null) == MergeScope.PARTITIONS && partitionBy.map(List::isEmpty).orElse(false)) {
      v.reject(LOAD_MERGE_SCOPE, "partitions requires load.partition-by: an unpartitioned table has no partitions to"
          + " restrict the MERGE to");
    }
    return new Load(
        table,
        saveMode.orElse(SaveMode.APPEND),
        primaryKey.orElse(List.of()),
        partitionBy.orElse(List.of()),
        precombineField,
        schemaEvolution(v, transform),
        tableProperties,
        missingColumns(v),
        writeMode.orElse(WriteMode.COPY_ON_WRITE),
        mergeScope.orElse(MergeScope.AUTO),
        cdc(v, batchFile, primaryKey),
        snapshotDeletes(v, batchFile, primaryKey),
        v.get(LOAD_UNDO_TAG_RETENTION, Load.DEFAULT_UNDO_TAG_RETENTION),
        afterIngest(v, extract, saveMode, primaryKey));
  }

  /**
   * {@code load.after-ingest}: landing cleanup, default keep. A move names its folder, of the
   * landing's scheme; a delete keeps objects more than 7 days; and no cleanup for a table whose
   * loads read old files again (Overwrite without a key rewrites a partition from all its live
   * files; {@code last} and {@code full} read every matching file). Where the folder is watched
   * is a check across profiles ({@link ProfileConflicts}).
   */
  private static AfterIngest afterIngest(ProfileValues v, Extract extract, Optional<SaveMode> saveMode,
      Optional<List<String>> primaryKey) {
    Optional<AfterIngest.Action> action =
        v.choice(LOAD_AFTER_INGEST_ACTION, AfterIngest.Action.KEEP, AfterIngest.Action::code);
    Optional<java.time.Duration> retention = v.optional(LOAD_AFTER_INGEST_RETENTION);
    Optional<String> moveTo = v.optional(LOAD_AFTER_INGEST_MOVE_TO).map(String::strip);
    if (action.isEmpty()) {
      return AfterIngest.KEEP;
    }
    AfterIngest.Action chosen = action.get();
    if (chosen != AfterIngest.Action.MOVE && v.isSet(LOAD_AFTER_INGEST_MOVE_TO)) {
      v.reject(LOAD_AFTER_INGEST_MOVE_TO, "applies only to load.after-ingest.action = move, which is "
          + chosen.code() + " here");
      return AfterIngest.KEEP;
    }
    if (chosen == AfterIngest.Action.KEEP) {
      return AfterIngest.KEEP;
    }
    boolean valid = true;
    if (chosen == AfterIngest.Action.MOVE) {
      if (moveTo.isEmpty()) {
        if (!v.isSet(LOAD_AFTER_INGEST_MOVE_TO)) {
          v.reject(LOAD_AFTER_INGEST_MOVE_TO, "is required with load.after-ingest.action = move: the folder the"
              + " loaded objects are moved to, such as gs://archive-bucket/landing/");
        }
        valid = false;
      } else {
        Optional<String> problem = moveToProblem(moveTo.get(), extract.path());
        if (problem.isPresent()) {
          v.reject(LOAD_AFTER_INGEST_MOVE_TO, problem.get());
          valid = false;
        }
      }
    }
    java.time.Duration kept = retention.orElse(AfterIngest.DEFAULT_RETENTION);
    if (chosen == AfterIngest.Action.DELETE && retention.isPresent()
        && kept.compareTo(AfterIngest.MIN_DELETE_RETENTION) <= 0) {
      v.reject(LOAD_AFTER_INGEST_RETENTION, "must be more than 7d with load.after-ingest.action = delete, got "
          + (kept.toSeconds() % 86_400 == 0 && !kept.isZero() ? kept.toDays() + "d" : ValueType.format(kept))
          + ": a deleted object cannot be loaded again, so it is kept long enough to"
          + " notice a bad load (use action = move to clean sooner)");
      valid = false;
    }
    if (saveMode.equals(Optional.of(SaveMode.OVERWRITE)) && primaryKey.map(List::isEmpty).orElse(false)) {
      v.reject(LOAD_AFTER_INGEST_ACTION, chosen.code() + " cannot go with load.save-mode = Overwrite: a batch"
          + " rewrites each of its partitions from all the partition's live files, older ones included, so"
          + " a cleaned object would lose its rows; keep the objects (action = keep) or use Append or a"
          + " load.primary-key");
      valid = false;
    }
    if (extract.batchFile().ingestionType() != BatchFile.IngestionType.INCREMENTAL
        && v.isValid(BATCH_FILE_INGESTION_TYPE)) {
      v.reject(LOAD_AFTER_INGEST_ACTION, chosen.code() + " cannot go with extract.batch-file.ingestion-type = "
          + extract.batchFile().ingestionType().code() + ": each load reads every matching file again, so a"
          + " cleaned object would lose its rows; keep the objects (action = keep)");
      valid = false;
    }
    if (!valid) {
      return AfterIngest.KEEP;
    }
    return new AfterIngest(chosen, moveTo.map(folder -> folder.endsWith("/") ? folder : folder + "/"), kept);
  }

  /** Why {@code move-to} cannot hold the landing's copies: not a folder URI of the landing's scheme. */
  private static Optional<String> moveToProblem(String moveTo, String extractPath) {
    boolean gs = moveTo.startsWith("gs://");
    boolean file = moveTo.startsWith("file:/");
    if (!gs && !file) {
      return Optional.of("expected a gs://bucket/prefix/ or file:///folder/ URI, got " + ValueType.quote(moveTo));
    }
    if (gs && moveTo.substring("gs://".length()).split("/", -1)[0].isEmpty()) {
      return Optional.of("names no bucket: " + ValueType.quote(moveTo));
    }
    boolean landingGs = extractPath.startsWith("gs://");
    if (gs != landingGs) {
      return Optional.of(ValueType.quote(moveTo) + " is " + (gs ? "on GCS" : "a local folder") + " but extract.path "
          + ValueType.quote(extractPath) + " is " + (landingGs ? "on GCS" : "a local folder") + ": an object is moved"
          + " within its storage, so move-to has the landing's scheme");
    }
    return Optional.empty();
  }

  /**
   * {@code load.snapshot-deletes} and its guard. A stored row is deleted when its key is absent
   * from the batch, so the batch must hold the table's whole content (ingestion type last or full)
   * and rows must have a key. The guard is a key beside the boolean, never below it: in HOCON
   * {@code load.snapshot-deletes.max-fraction} would replace {@code load.snapshot-deletes = true}
   * written before it, which then reads as an object here and is refused.
   */
  private static Optional<SnapshotDeletes> snapshotDeletes(ProfileValues v, BatchFile batchFile,
      Optional<List<String>> primaryKey) {
    if (v.isObject(LOAD_SNAPSHOT_DELETES)) {
      // A key below it that the text shows was reported already, with what to write instead.
      if (!v.isValid(LOAD_SNAPSHOT_DELETES)) {
        return Optional.empty();
      }
      v.reject(LOAD_SNAPSHOT_DELETES, "expected true or false, got an object: the guard is the key"
          + " load.snapshot-deletes-max-fraction, beside load.snapshot-deletes; a key below it, such as"
          + " load.snapshot-deletes.max-fraction, replaces the boolean (HOCON keeps whichever is written last)");
      return Optional.empty();
    }
    boolean enabled = v.get(LOAD_SNAPSHOT_DELETES, false);
    Optional<Double> maxFraction = v.optional(LOAD_SNAPSHOT_DELETES_MAX_FRACTION);
    if (!enabled) {
      if (maxFraction.isPresent() && v.isValid(LOAD_SNAPSHOT_DELETES)) {
        v.warn(LOAD_SNAPSHOT_DELETES_MAX_FRACTION, "has no effect: load.snapshot-deletes is not true, so no batch"
            + " deletes the keys it lacks");
      }
      return Optional.empty();
    }
    if (primaryKey.map(List::isEmpty).orElse(false)) {
      v.reject(LOAD_SNAPSHOT_DELETES, "requires a non-empty load.primary-key: a stored row is deleted when its key"
          + " is absent from the batch");
      return Optional.empty();
    }
    if (batchFile.ingestionType().refuses(LOAD_SNAPSHOT_DELETES) && v.isValid(BATCH_FILE_INGESTION_TYPE)) {
      v.reject(LOAD_SNAPSHOT_DELETES, "requires extract.batch-file.ingestion-type = last or full: with "
          + batchFile.ingestionType().code() + " a batch holds only the files that arrived since the last one, not"
          + " the table's whole content, so a key absent from it was not deleted");
      return Optional.empty();
    }
    return Optional.of(new SnapshotDeletes(maxFraction.orElse(SnapshotDeletes.DEFAULT_MAX_FRACTION)));
  }

  /**
   * {@code load.cdc}: an op column with its delete values (default {@code ["D"]}), or a boolean
   * delete flag, exactly one of them. A delete is a MERGE action, so it needs a primary key and
   * ingestion type incremental (last and full replace the whole table).
   */
  private static Optional<Cdc> cdc(ProfileValues v, BatchFile batchFile, Optional<List<String>> primaryKey) {
    Optional<String> opColumn = v.optional(LOAD_CDC_OP_COLUMN, ProfileRules::columnName);
    Optional<String> deleteFlag = v.optional(LOAD_CDC_DELETE_FLAG, ProfileRules::columnName);
    Optional<List<String>> deleteValues = v.each(LOAD_CDC_DELETE_VALUES, Rule.none());
    if (opColumn.isPresent() && deleteFlag.isPresent()) {
      v.reject(LOAD_CDC_DELETE_FLAG, "cannot go with load.cdc.op-column: a delete is marked either by an op column"
          + " and its delete values or by a boolean delete flag");
      return Optional.empty();
    }
    if (v.isSet(LOAD_CDC_DELETE_VALUES) && !v.isSet(LOAD_CDC_OP_COLUMN)) {
      v.reject(LOAD_CDC_DELETE_VALUES, "requires load.cdc.op-column, the column whose values they are");
      return Optional.empty();
    }
    if (v.isSet(LOAD_CDC_DELETE_VALUES) && deleteValues.map(List::isEmpty).orElse(false)) {
      v.reject(LOAD_CDC_DELETE_VALUES, "must not be empty: it lists the op column's values that mark a delete");
      return Optional.empty();
    }
    List<String> values = deleteValues.filter(list -> !list.isEmpty()).orElse(List.of("D"));
    Optional<Cdc> cdc = opColumn.map(c -> Cdc.opColumn(c, values))
        .or(() -> deleteFlag.map(Cdc::deleteFlag));
    if (cdc.isEmpty()) {
      return cdc;
    }
    SettingKey<String> key = opColumn.isPresent() ? LOAD_CDC_OP_COLUMN : LOAD_CDC_DELETE_FLAG;
    if (primaryKey.map(List::isEmpty).orElse(false)) {
      v.reject(key, "requires a non-empty load.primary-key: a delete removes the stored row with its key");
    } else if (batchFile.ingestionType().refuses(key) && v.isValid(BATCH_FILE_INGESTION_TYPE)) {
      v.reject(key, "requires extract.batch-file.ingestion-type = incremental: with "
          + batchFile.ingestionType().code() + " each batch replaces the whole table, so there is no stored row"
          + " to delete");
    } else if (primaryKey.isPresent() && primaryKey.get().contains(cdc.get().column())) {
      v.reject(key, "column " + ValueType.quote(cdc.get().column()) + " is in load.primary-key; the column that"
          + " marks a delete is not part of the key");
    }
    return cdc;
  }

  /**
   * {@code load.schema-evolution}, default {@code add-new-columns}. The boolean of old loads with a
   * warning, as the mode it meant ({@link SchemaEvolution#ofBoolean}). {@code rescue} needs the
   * rescued data column its values go to.
   */
  private static SchemaEvolution schemaEvolution(ProfileValues v, Transform transform) {
    boolean rescuing = transform.rescuedDataColumn().isPresent();
    Optional<String> text = v.isSet(LOAD_SCHEMA_EVOLUTION) ? v.optional(LOAD_SCHEMA_EVOLUTION) : Optional.empty();
    if (text.isPresent() && (text.get().strip().equalsIgnoreCase("true")
        || text.get().strip().equalsIgnoreCase("false"))) {
      SchemaEvolution mode = SchemaEvolution.ofBoolean(Boolean.parseBoolean(text.get().strip()), rescuing);
      v.warn(LOAD_SCHEMA_EVOLUTION, text.get().strip().toLowerCase(java.util.Locale.ROOT) + " is the boolean of old,"
          + " read as " + mode.code() + "; write load.schema-evolution = " + mode.code() + " (one of "
          + java.util.Arrays.stream(SchemaEvolution.values()).map(SchemaEvolution::code).toList() + ")");
      return mode;
    }
    Optional<SchemaEvolution> mode =
        v.choice(LOAD_SCHEMA_EVOLUTION, SchemaEvolution.ADD_NEW_COLUMNS, SchemaEvolution::code);
    if (mode.equals(Optional.of(SchemaEvolution.RESCUE)) && !rescuing && v.isValid(TRANSFORM_RESCUED_DATA_COLUMN)) {
      v.reject(LOAD_SCHEMA_EVOLUTION, "rescue puts the values of new columns in the rescued data column, and"
          + " transform.rescued-data-column is not set; set it (such as _rescued_data) or choose none");
    }
    return mode.orElse(SchemaEvolution.ADD_NEW_COLUMNS);
  }

  /** {@code null} is also the HOCON and YAML null literal, so written unquoted it still means null. */
  private static MissingColumns missingColumns(ProfileValues v) {
    if (v.isWrittenAsNull(LOAD_MISSING_COLUMNS)) {
      return MissingColumns.NULL;
    }
    return v.choice(LOAD_MISSING_COLUMNS, MissingColumns.KEEP, MissingColumns::code)
        .orElse(MissingColumns.KEEP);
  }

  /**
   * Incremental Overwrite without a key replaces exactly the partitions a batch writes, which
   * only leaves the other batches' rows alone when the table is partitioned by the partition
   * column itself. With a key the job MERGEs and the save mode is not used. Checked only when
   * every value involved is valid on its own, so that a wrong value is reported once.
   */
  private static void checkOverwriteReplacesPartitions(
      ProfileValues v,
      BatchFile batchFile,
      Optional<SaveMode> saveMode,
      Optional<List<String>> primaryKey,
      Optional<List<String>> partitionBy) {
    String column = batchFile.partitionColumn();
    boolean partitionColumnMissing =
        !batchFile.ingestionType().replacesTable()
            && saveMode.equals(Optional.of(SaveMode.OVERWRITE))
            && primaryKey.equals(Optional.of(List.of()))
            && partitionBy.isPresent()
            && partitionBy.get().stream().noneMatch(f -> ProfileRules.isIdentityOf(f, column))
            && v.isValid(
                BATCH_FILE_INGESTION_TYPE, BATCH_FILE_PATTERN, BATCH_FILE_PARTITION_COLUMN);
    if (partitionColumnMissing) {
      v.reject(
          LOAD_SAVE_MODE,
          "Overwrite replaces the partitions a batch writes, so with"
              + " extract.batch-file.ingestion-type = incremental and no load.primary-key the"
              + " table must be partitioned by the partition column "
              + ValueType.quote(column)
              + ": add "
              + ValueType.quote(column)
              + " to load.partition-by");
    }
  }
}
