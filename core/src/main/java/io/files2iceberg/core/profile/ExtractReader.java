package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_DATE_FORMAT;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_INGESTION_TYPE;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PARTITION_COLUMN;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PARTITION_TYPE;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_PATTERN;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_STRICT_PATTERN;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_SUCCESS_FILE_FILTER;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_SUCCESS_FILE_NAME;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_DATETIME_REBASE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_FORMAT;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_INFER_COLUMN_TYPES;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_KEEP_CHECKPOINTS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_LINEAGE_COLUMNS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_MAX_BATCH_BYTES;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_MAX_BATCH_SIZE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_OPTIONS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_PATH;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_QUARANTINE_BAD_FILES;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_RECURSIVE_FILE_LOOKUP;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_SAVE_CHECKPOINT;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_SCHEMA_HINTS;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_TIMEZONE;

import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Extract.DatetimeRebase;
import io.files2iceberg.core.profile.Extract.Format;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.core.profile.Extract.OnOverwrite;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads a profile's {@code extract} section, {@code extract.batch-file} included, for {@link
 * ProfileLoader}: its keys are {@link ExtractKeys}.
 */
final class ExtractReader {

  static final int DEFAULT_KEEP_CHECKPOINTS = 50;
  static final int DEFAULT_MAX_BATCH_SIZE = 100;
  static final String DEFAULT_SUCCESS_FILE_NAME = "_SUCCESS";

  private ExtractReader() {}

  static Extract extract(ProfileValues v) {
    String path = v.required(EXTRACT_PATH, ProfileRules::globUri).orElse("");
    Format format;
    if (v.isSet(EXTRACT_FORMAT)
        && v.optional(EXTRACT_FORMAT).filter(text -> text.trim().equalsIgnoreCase("delta")).isPresent()) {
      v.reject(EXTRACT_FORMAT, ProfileLoader.DELTA_REFUSED);
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
        v.parsed(EXTRACT_TIMEZONE, ExtractReader::timeZone),
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
    return v.parsed(EXTRACT_SCHEMA_HINTS, SchemaHints::parse).orElse(Map.of());
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

  /**
   * A time zone Java and Spark both know.
   *
   * @throws IllegalArgumentException naming what to write instead
   */
  private static ZoneId timeZone(String zone) {
    try {
      return ZoneId.of(zone);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("not a time zone (a region such as \"Europe/Paris\" or an offset such as"
          + " \"+01:00\"), got " + ValueType.quote(zone), e);
    }
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
}
