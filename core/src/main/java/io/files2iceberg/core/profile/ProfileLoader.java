package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_DATE_FORMAT;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_INGESTION_TYPE;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PARTITION_COLUMN;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PARTITION_TYPE;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PATTERN;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_STRICT_PATTERN;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_SUCCESS_FILE_FILTER;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_SUCCESS_FILE_NAME;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_AUTH_TYPE;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_IO_IMPL;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_PROPERTIES;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_TYPE;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_URI;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_USER_PROJECT;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_VENDED_CREDENTIALS;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_WAREHOUSE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_FORMAT;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_INFER_COLUMN_TYPES;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_SCHEMA_HINTS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_KEEP_CHECKPOINTS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_LINEAGE_COLUMNS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_MAX_BATCH_BYTES;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_MAX_BATCH_SIZE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_OPTIONS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_PATH;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_DATETIME_REBASE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_TIMEZONE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_ON_OVERWRITE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_QUARANTINE_BAD_FILES;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_RECURSIVE_FILE_LOOKUP;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_SAVE_CHECKPOINT;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_CDC_DELETE_FLAG;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_CDC_DELETE_VALUES;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_CDC_OP_COLUMN;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_PARTITION_BY;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_PRECOMBINE_FIELD;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_PRIMARY_KEY;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_MERGE_SCOPE;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_MISSING_COLUMNS;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_WRITE_MODE;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_SAVE_MODE;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_SCHEMA_EVOLUTION;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_TABLE;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_TABLE_PROPERTIES;
import static io.files2iceberg.core.profile.CatalogKeys.METADATA_PATH;
import static io.files2iceberg.core.profile.ProfileKeys.RENDERED_NAME;
import static io.files2iceberg.core.profile.ProfileKeys.RENDERED_SOURCE;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_CAST_COLUMNS;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_FILTER;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_ON_BAD_RECORD;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_RESCUED_DATA_COLUMN;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_RENAME_COLUMNS;

import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Catalog.CatalogType;
import io.files2iceberg.core.profile.Extract.Format;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.core.profile.Extract.DatetimeRebase;
import io.files2iceberg.core.profile.Extract.OnOverwrite;
import io.files2iceberg.core.profile.Load.Cdc;
import io.files2iceberg.core.profile.Load.MergeScope;
import io.files2iceberg.core.profile.Load.MissingColumns;
import io.files2iceberg.core.profile.Load.WriteMode;
import io.files2iceberg.core.profile.Load.SaveMode;
import io.files2iceberg.core.profile.Load.SchemaEvolution;
import io.files2iceberg.core.profile.Load.TableId;
import io.files2iceberg.core.profile.ProfileValues.Rule;
import io.files2iceberg.core.profile.Transform.BadRecordPolicy;
import java.io.File;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one table profile, HOCON ({@code .conf}) or YAML ({@code .yaml}, {@code .yml}), into a
 * validated {@link TableProfile} with every default filled in. The keys, their defaults and their
 * meaning are listed in docs/reference/profile-keys.md, generated from {@link ProfileKeys}.
 */
public final class ProfileLoader {

  private static final Logger LOG = LoggerFactory.getLogger(ProfileLoader.class);

  /**
   * Why {@code extract.format = delta} is refused: a Delta table is not its files. Which rows are
   * live is decided by its {@code _delta_log} (files removed by updates, deletes and compactions,
   * deletion vectors, column mapping), so loading each Parquet file as it lands would load deleted
   * and rewritten rows again.
   */
  static final String DELTA_REFUSED = "delta is not a format files2iceberg can load: a Delta table's live rows are"
      + " decided by its _delta_log (files removed by updates, deletes and compactions, deletion vectors, column"
      + " mapping), so loading its Parquet files one by one as they land would load deleted and rewritten rows"
      + " again. Export the table's rows (or its change data feed) as parquet files into a landing folder with a"
      + " _SUCCESS marker, or expose it as Iceberg with Delta UniForm; see Limitations in docs/limitations.md";

  static final int DEFAULT_KEEP_CHECKPOINTS = 50;
  static final int DEFAULT_MAX_BATCH_SIZE = 100;
  static final String DEFAULT_SUCCESS_FILE_NAME = "_SUCCESS";

  private ProfileLoader() {}

  /**
   * Reads and validates one profile; its name is the file name without the extension.
   *
   * @throws ProfileException listing every problem in the file
   */
  public static TableProfile load(Path file, Home home) throws ProfileException {
    List<ProfileError> errors = new ArrayList<>();
    Optional<TableProfile> profile = read(file, home, errors);
    if (!errors.isEmpty()) {
      throw new ProfileException(errors);
    }
    return profile.orElseThrow();
  }

  /**
   * Parses and validates one profile from HOCON text (JSON, such as {@link ProfileJson#toJson}
   * writes, is HOCON), as {@link #load} reads a {@code .conf} file: {@code source} stands for the
   * file, giving the profile's name (its file name without the extension) and its source, and
   * naming it in the problems.
   *
   * @throws ProfileException listing every problem in the text
   */
  public static TableProfile parse(String text, Path source, Home home) throws ProfileException {
    Problems problems = new Problems(source);
    Optional<TableProfile> profile =
        validated(ProfileTree.readHocon(text, source, problems), source, home, problems);
    if (profile.isEmpty()) {
      throw new ProfileException(problems.errors());
    }
    return profile.get();
  }

  /** Reads one profile, adding its problems to {@code errors}; empty when there are any. */
  static Optional<TableProfile> read(Path file, Home home, List<ProfileError> errors) {
    return readAll(file, home, errors).map(Read::profile);
  }

  /**
   * One profile file read: its table profile and, when it carries the deployment's sections as
   * profiles of old did, the deployment they give and the deployment keys it sets.
   */
  record Read(TableProfile profile, Optional<Deployment> deployment, List<DeploymentKeys.Key<?>> deploymentKeys,
      List<ProfileError> warnings) {
    Read {
      warnings = List.copyOf(warnings);
    }
  }

  /** Reads one profile with its deployment sections, adding its problems to {@code errors}. */
  static Optional<Read> readAll(Path file, Home home, List<ProfileError> errors) {
    Problems problems = new Problems(file);
    Optional<Read> read = readTree(ProfileTree.read(file, problems), file, home, problems);
    errors.addAll(problems.errors());
    return read;
  }

  /** The profile built from a parsed tree; empty when the tree or any value has a problem. */
  private static Optional<TableProfile> validated(
      Optional<Map<String, Object>> tree, Path file, Home home, Problems problems) {
    return readTree(tree, file, home, problems).map(Read::profile);
  }

  private static Optional<Read> readTree(
      Optional<Map<String, Object>> tree, Path file, Home home, Problems problems) {
    Optional<Read> read =
        tree.map(
            t -> {
              ProfileValues v = new ProfileValues(t, problems);
              TableProfile profile = build(file, home, v);
              // Sections of old are still read (and checked), for the deployment they give.
              Optional<Deployment> deployment =
                  DeploymentLoader.carriesDeployment(v)
                      ? Optional.of(DeploymentLoader.build(v, home))
                      : Optional.empty();
              List<DeploymentKeys.Key<?>> set =
                  DeploymentKeys.keys().stream().filter(v::isSet).toList();
              return new Read(profile, deployment, set, problems.warnings());
            });
    if (!problems.isEmpty()) {
      return Optional.empty();
    }
    read.ifPresent(
        r -> LOG.debug("Read profile {} for table {} from {}", r.profile().name(), r.profile().table(), file));
    return read;
  }

  /** The file name without its extension. */
  static String profileName(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }

  private static TableProfile build(Path file, Home home, ProfileValues v) {
    v.rejectUnknownKeys();
    String name = profileName(file);
    checkRenderedFields(v, name);
    // Sections are read in file order, so that problems are listed in that order too.
    Extract extract = extract(v);
    Transform transform = transform(v);
    Load load = load(v, extract.batchFile(), transform);
    checkBackfillLoadsOnce(v, extract, load);
    checkRescuedDataColumn(v, extract, transform, load);
    return new TableProfile(
        name,
        file.toAbsolutePath().normalize(),
        extract.withOnOverwrite(onOverwrite(v, load)),
        transform,
        load,
        new Metadata(v.get(METADATA_PATH, home.metadata(name) + File.separator)),
        catalog(v, home));
  }

  /**
   * A rendered profile's {@code name} must be the one its file gives; its {@code source} only has
   * to be text, as the file read is the source.
   */
  private static void checkRenderedFields(ProfileValues v, String name) {
    v.optional(
        RENDERED_NAME,
        rendered ->
            rendered.equals(name)
                ? Optional.empty()
                : Optional.of(
                    "is "
                        + ValueType.quote(rendered)
                        + ", but a profile's name is its file name without the extension, "
                        + ValueType.quote(name)));
    v.optional(RENDERED_SOURCE);
  }

  private static Extract extract(ProfileValues v) {
    String path = v.required(EXTRACT_PATH, ProfileRules::globUri).orElse("");
    Format format;
    if (v.isSet(EXTRACT_FORMAT)
        && v.optional(EXTRACT_FORMAT).filter(text -> text.trim().equalsIgnoreCase("delta")).isPresent()) {
      v.reject(EXTRACT_FORMAT, DELTA_REFUSED);
      format = Format.PARQUET;
    } else {
      format = v.choice(EXTRACT_FORMAT, Format.PARQUET, Format::code).orElse(Format.PARQUET);
    }
    Map<String, String> options = v.get(EXTRACT_OPTIONS, Map.of());
    boolean recursiveFileLookup = v.get(EXTRACT_RECURSIVE_FILE_LOOKUP, false);
    BatchFile batchFile = batchFile(v);
    int keepCheckpoints =
        v.number(EXTRACT_KEEP_CHECKPOINTS, DEFAULT_KEEP_CHECKPOINTS, 1, Integer.MAX_VALUE);
    boolean saveCheckpoint = v.get(EXTRACT_SAVE_CHECKPOINT, true);
    int maxBatchSize =
        v.number(EXTRACT_MAX_BATCH_SIZE, DEFAULT_MAX_BATCH_SIZE, 1, Integer.MAX_VALUE);
    Optional<Long> maxBatchBytes = v.optional(EXTRACT_MAX_BATCH_BYTES,
        n -> n < 1 ? Optional.of("must be at least 1 byte, got " + n) : Optional.empty());
    Optional<List<LineageColumn>> lineageColumns =
        v.choices(EXTRACT_LINEAGE_COLUMNS, LineageColumn.class, LineageColumn::code);
    // The job adds the partition column and the lineage columns side by side: one name each.
    lineageColumns.stream()
        .filter(columns -> v.isValid(BATCH_FILE_PATTERN, BATCH_FILE_PARTITION_COLUMN))
        .flatMap(List::stream)
        .filter(column -> column.code().equals(batchFile.partitionColumn()))
        .findFirst()
        .ifPresent(
            column ->
                v.reject(
                    BATCH_FILE_PARTITION_COLUMN,
                    "the partition column "
                        + ValueType.quote(column.code())
                        + (v.isSet(BATCH_FILE_PARTITION_COLUMN)
                            ? ""
                            : " (derived from extract.batch-file.pattern)")
                        + " is also in extract.lineage-columns; give the partition column"
                        + " another name"));
    return new Extract(
        path,
        format,
        options,
        recursiveFileLookup,
        batchFile,
        keepCheckpoints,
        saveCheckpoint,
        maxBatchSize,
        lineageColumns.orElse(List.of()),
        v.get(EXTRACT_QUARANTINE_BAD_FILES, false),
        // Its default follows the load section: resolved by onOverwrite once that is read.
        OnOverwrite.RELOAD,
        maxBatchBytes.map(OptionalLong::of).orElse(OptionalLong.empty()),
        v.choice(EXTRACT_DATETIME_REBASE, DatetimeRebase.CORRECTED, DatetimeRebase::code)
            .orElse(DatetimeRebase.CORRECTED),
        v.optional(EXTRACT_TIMEZONE, ProfileLoader::timeZoneProblem).map(ZoneId::of),
        schemaHints(v, format),
        inferColumnTypes(v, format));
  }

  /** {@code extract.schema-hints}: csv and json only, checked for shape here and parsed by Spark in the job. */
  private static Map<String, String> schemaHints(ProfileValues v, Format format) {
    if (!v.isSet(EXTRACT_SCHEMA_HINTS)) {
      return Map.of();
    }
    if (format != Format.CSV && format != Format.JSON) {
      v.reject(EXTRACT_SCHEMA_HINTS, "applies to csv and json only: " + format.code() + " files carry their"
          + " columns' types (use transform.cast.columns to change one)");
      return Map.of();
    }
    return v.optional(EXTRACT_SCHEMA_HINTS, ProfileLoader::hintsProblem).map(SchemaHints::parse).orElse(Map.of());
  }

  private static Optional<String> hintsProblem(String text) {
    try {
      SchemaHints.parse(text);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** {@code extract.infer-column-types}: csv and json only; unset, as each format was read before the key. */
  private static boolean inferColumnTypes(ProfileValues v, Format format) {
    boolean fallback = Extract.inferColumnTypesByDefault(format);
    if (v.isSet(EXTRACT_INFER_COLUMN_TYPES) && format != Format.CSV && format != Format.JSON) {
      v.reject(EXTRACT_INFER_COLUMN_TYPES, "applies to csv and json only: " + format.code() + " files carry their"
          + " columns' types");
      return fallback;
    }
    return v.get(EXTRACT_INFER_COLUMN_TYPES, fallback);
  }

  /** Why {@code zone} is no time zone Java and Spark both know, if it is not. */
  private static Optional<String> timeZoneProblem(String zone) {
    try {
      ZoneId.of(zone);
      return Optional.empty();
    } catch (DateTimeException e) {
      return Optional.of("not a time zone (a region such as \"Europe/Paris\" or an offset such as \"+01:00\"), got "
          + ValueType.quote(zone));
    }
  }

  /**
   * A table loaded without a checkpoint (a backfill) loads every listed file on every run it is
   * asked for: with a key the MERGE makes that safe, without one an incremental Append would add
   * the files' rows again on each run. Such a table is backfilled through the ledger instead
   * ({@code backfill}), which loads each file once.
   */
  private static void checkBackfillLoadsOnce(ProfileValues v, Extract extract, Load load) {
    if (!extract.saveCheckpoint() && !extract.batchFile().ingestionType().replacesTable()
        && load.primaryKey().isEmpty() && load.saveMode() == SaveMode.APPEND
        && v.isValid(LOAD_SAVE_MODE, BATCH_FILE_INGESTION_TYPE)) {
      v.reject(EXTRACT_SAVE_CHECKPOINT, "false cannot go with an Append table without load.primary-key: every run"
          + " would append every listed file's rows again; add a primary key, use load.save-mode = Overwrite, or"
          + " keep the checkpoint and load old partitions with bin/files2iceberg backfill");
    }
  }

  /**
   * {@code extract.on-overwrite}; default {@code reload} with a primary key (the MERGE updates the
   * keys) or {@code save-mode = Overwrite} (the partition mirrors its folder), else {@code ignore}
   * (an Append table would load a rewritten object's rows a second time). {@code ignore} with
   * {@code Overwrite} is refused: an Overwrite re-reads the partition's live content, in which the
   * old generation is gone.
   */
  private static OnOverwrite onOverwrite(ProfileValues v, Load load) {
    boolean mirrors = !load.primaryKey().isEmpty() || load.saveMode() == SaveMode.OVERWRITE;
    OnOverwrite fallback = mirrors ? OnOverwrite.RELOAD : OnOverwrite.IGNORE;
    Optional<OnOverwrite> chosen = v.choice(EXTRACT_ON_OVERWRITE, fallback, OnOverwrite::code);
    if (chosen.equals(Optional.of(OnOverwrite.IGNORE)) && v.isSet(EXTRACT_ON_OVERWRITE)
        && load.saveMode() == SaveMode.OVERWRITE && v.isValid(LOAD_SAVE_MODE)) {
      v.reject(EXTRACT_ON_OVERWRITE, "ignore cannot go with load.save-mode = Overwrite: an Overwrite writes the"
          + " partition's live files, in which a rewritten object's old generation is gone; use reload");
    }
    return chosen.orElse(fallback);
  }

  private static BatchFile batchFile(ProfileValues v) {
    IngestionType ingestionType =
        v.choice(BATCH_FILE_INGESTION_TYPE, IngestionType.DEFAULT, IngestionType::code)
            .orElse(IngestionType.DEFAULT);
    Optional<PartitionType> partitionType =
        v.choice(BATCH_FILE_PARTITION_TYPE, PartitionType.STRING, PartitionType::code);
    Optional<String> pattern = v.optional(BATCH_FILE_PATTERN, ProfileRules::oneCaptureGroup);
    String partitionColumn =
        v.optional(BATCH_FILE_PARTITION_COLUMN, ProfileRules::columnName)
            .orElseGet(() -> DefaultPartitionColumn.of(pattern));
    Optional<String> dateFormat = v.optional(BATCH_FILE_DATE_FORMAT, ProfileRules::dateFormat);
    // Checked only against a valid partition type: an invalid one is reported on its own.
    if (partitionType.equals(Optional.of(PartitionType.DATE))) {
      v.requiredWhen(BATCH_FILE_DATE_FORMAT, "extract.batch-file.partition-type = date");
    } else if (partitionType.isPresent() && v.isSet(BATCH_FILE_DATE_FORMAT)) {
      v.reject(BATCH_FILE_DATE_FORMAT, "date-format is only used with partition-type = date");
    }
    return new BatchFile(
        ingestionType,
        partitionType.orElse(PartitionType.STRING),
        pattern,
        partitionColumn,
        dateFormat,
        v.get(BATCH_FILE_STRICT_PATTERN, false),
        v.get(BATCH_FILE_SUCCESS_FILE_FILTER, true),
        v.get(BATCH_FILE_SUCCESS_FILE_NAME, DEFAULT_SUCCESS_FILE_NAME));
  }

  private static Transform transform(ProfileValues v) {
    return new Transform(
        v.get(TRANSFORM_FILTER, List.of()),
        v.get(TRANSFORM_RENAME_COLUMNS, Map.of()),
        v.get(TRANSFORM_CAST_COLUMNS, Map.of()),
        v.choice(TRANSFORM_ON_BAD_RECORD, BadRecordPolicy.FAIL, BadRecordPolicy::code)
            .orElse(BadRecordPolicy.FAIL),
        v.optional(TRANSFORM_RESCUED_DATA_COLUMN, ProfileRules::columnName));
  }

  /**
   * The rescued data column is a STRING column the job fills, so no other setting may claim its
   * name: not a key (a NULL key is a bad record, and a JSON text is no key), not a column the job
   * adds or the transforms produce, not the job's internal prefix.
   */
  private static void checkRescuedDataColumn(ProfileValues v, Extract extract, Transform transform, Load load) {
    Optional<String> rescued = transform.rescuedDataColumn();
    if (rescued.isEmpty()) {
      return;
    }
    String name = rescued.get();
    List<String> conflicts = new ArrayList<>();
    if (name.startsWith("_f2i_")) {
      conflicts.add("starts with _f2i_, which the job reserves for its own columns");
    }
    for (int i = 0; i < load.primaryKey().size(); i++) {
      if (load.primaryKey().get(i).equals(name)) {
        conflicts.add("is load.primary-key[" + i + "]; the rescued data column is never a key");
      }
    }
    if (load.precombineField().equals(Optional.of(name))) {
      conflicts.add("is load.iceberg.precombine-field; the rescued data column is never a key");
    }
    Pattern mentioned = Pattern.compile("(^|[^A-Za-z0-9_])" + Pattern.quote(name) + "($|[^A-Za-z0-9_])");
    for (int i = 0; i < load.partitionBy().size(); i++) {
      if (mentioned.matcher(load.partitionBy().get(i)).find()) {
        conflicts.add("is in load.partition-by[" + i + "]; the rescued data column is never a partition key");
      }
    }
    if (extract.batchFile().partitionColumn().equals(name)) {
      conflicts.add("is the partition column the job adds (extract.batch-file.partition-column)");
    }
    if (extract.lineageColumns().stream().map(LineageColumn::code).anyMatch(name::equals)) {
      conflicts.add("is in extract.lineage-columns, a column the job adds");
    }
    if (transform.castColumns().containsKey(name)) {
      conflicts.add("is a column of transform.cast.columns; the rescued data column is always STRING");
    }
    transform.renameColumns().forEach((from, to) -> {
      if (to.equals(name)) {
        conflicts.add("is the target of transform.rename-columns." + from);
      }
    });
    for (String conflict : conflicts) {
      v.reject(TRANSFORM_RESCUED_DATA_COLUMN, "\"" + name + "\" " + conflict);
    }
  }

  private static Load load(ProfileValues v, BatchFile batchFile, Transform transform) {
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
        cdc(v, batchFile, primaryKey));
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

  private static Catalog catalog(ProfileValues v, Home home) {
    CatalogType type =
        v.choice(CATALOG_TYPE, CatalogType.JDBC, CatalogType::code).orElse(CatalogType.JDBC);
    Rule<String> uriRule =
        uri ->
            type != CatalogType.HADOOP && uri.isBlank()
                ? Optional.of("must not be blank when catalog.type = " + type.code())
                : Optional.empty();
    String restOnly = "catalog.type = rest";
    return new Catalog(
        type,
        switch (type) {
          case JDBC -> v.get(CATALOG_URI, "jdbc:sqlite:" + home.catalogDb(), uriRule);
          case HADOOP -> v.get(CATALOG_URI, "");
          case REST -> v.requiredWhen(CATALOG_URI, restOnly, uriRule).orElse("");
        },
        type == CatalogType.REST
            ? v.requiredWhen(CATALOG_WAREHOUSE, restOnly).orElse("")
            : v.get(CATALOG_WAREHOUSE, home.warehouse().toString()),
        v.optional(CATALOG_USER_PROJECT),
        type == CatalogType.REST
            ? Optional.of(v.get(CATALOG_AUTH_TYPE, Catalog.GOOGLE_AUTH_MANAGER))
            : v.optional(CATALOG_AUTH_TYPE),
        type == CatalogType.REST
            ? Optional.of(v.get(CATALOG_IO_IMPL, Catalog.GCS_FILE_IO))
            : v.optional(CATALOG_IO_IMPL),
        v.get(CATALOG_VENDED_CREDENTIALS, false),
        v.get(CATALOG_PROPERTIES, Map.of()));
  }
}
