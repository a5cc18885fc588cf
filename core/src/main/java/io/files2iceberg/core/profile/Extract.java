package io.files2iceberg.core.profile;

import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where the files are and how to read and group them.
 *
 * @param path a {@code gs://} or {@code file://} glob; {@code *}, {@code ?}, {@code {a,b}} and
 *     {@code **} are supported
 * @param format the files' format
 * @param options reader options handed to Spark as they are (for example csv {@code header})
 * @param recursiveFileLookup Spark's {@code recursiveFileLookup} reader option
 * @param batchFile how objects become partitions
 * @param keepCheckpoints committed batches kept in the ledger per table; older ones are pruned
 * @param saveCheckpoint false runs as a backfill that does not move the ledger's bookmarks
 * @param maxBatchSize the most files one batch reads
 * @param lineageColumns the lineage columns the job adds to every row, distinct, in the order
 *     given
 * @param quarantineBadFiles a file that cannot be read is quarantined and the batch loads the
 *     rest; false fails the batch
 * @param onOverwrite what a new generation of an object already loaded does: loaded again, or left
 *     out (IGNORED); resolved: the default follows the load section
 * @param maxBatchBytes the most bytes of files one batch reads (never fewer than one file); empty
 *     for no cap
 * @param datetimeRebase how Parquet and Avro dates and timestamps before 1582-10-15 of a file
 *     without Spark's calendar metadata are read
 * @param timeZone the zone of the table's zone-less text timestamps (CSV and JSON readers, casts
 *     of text to {@code TIMESTAMP}); empty for the session's (UTC unless the deployment sets it)
 * @param schemaHints csv and json: source column name to the Spark SQL type its values are read
 *     as, in the order given ({@code extract.schema-hints}); empty for none
 * @param inferColumnTypes csv and json: whether the reader infers the columns' types (csv {@code
 *     inferSchema}, json's own inference of numbers and booleans); false reads every value as a
 *     string
 */
public record Extract(
    String path,
    Format format,
    Map<String, String> options,
    boolean recursiveFileLookup,
    BatchFile batchFile,
    int keepCheckpoints,
    boolean saveCheckpoint,
    int maxBatchSize,
    List<LineageColumn> lineageColumns,
    boolean quarantineBadFiles,
    OnOverwrite onOverwrite,
    OptionalLong maxBatchBytes,
    DatetimeRebase datetimeRebase,
    Optional<ZoneId> timeZone,
    Map<String, String> schemaHints,
    boolean inferColumnTypes) {

  public Extract {
    options = Map.copyOf(options);
    lineageColumns = List.copyOf(lineageColumns);
    Objects.requireNonNull(maxBatchBytes, "maxBatchBytes");
    Objects.requireNonNull(datetimeRebase, "datetimeRebase");
    Objects.requireNonNull(timeZone, "timeZone");
    schemaHints = Collections.unmodifiableMap(new LinkedHashMap<>(schemaHints));
  }

  /** A section without schema hints, whose column types are inferred as the format did before the setting (json only). */
  public Extract(String path, Format format, Map<String, String> options, boolean recursiveFileLookup,
      BatchFile batchFile, int keepCheckpoints, boolean saveCheckpoint, int maxBatchSize,
      List<LineageColumn> lineageColumns, boolean quarantineBadFiles, OnOverwrite onOverwrite,
      OptionalLong maxBatchBytes, DatetimeRebase datetimeRebase, Optional<ZoneId> timeZone) {
    this(path, format, options, recursiveFileLookup, batchFile, keepCheckpoints, saveCheckpoint, maxBatchSize,
        lineageColumns, quarantineBadFiles, onOverwrite, maxBatchBytes, datetimeRebase, timeZone, Map.of(),
        inferColumnTypesByDefault(format));
  }

  /**
   * Whether a format's column types are inferred when {@code extract.infer-column-types} is not
   * set: json yes (its reader always inferred numbers and booleans), csv no (every column a
   * string), as both were read before the setting existed.
   */
  public static boolean inferColumnTypesByDefault(Format format) {
    return format == Format.JSON;
  }

  /** Whether the format is one whose types come from text (csv, json): schema hints and inference apply. */
  public boolean isText() {
    return format == Format.CSV || format == Format.JSON;
  }

  /** A section whose zone-less text timestamps are read in the session's zone. */
  public Extract(String path, Format format, Map<String, String> options, boolean recursiveFileLookup,
      BatchFile batchFile, int keepCheckpoints, boolean saveCheckpoint, int maxBatchSize,
      List<LineageColumn> lineageColumns, boolean quarantineBadFiles, OnOverwrite onOverwrite,
      OptionalLong maxBatchBytes, DatetimeRebase datetimeRebase) {
    this(path, format, options, recursiveFileLookup, batchFile, keepCheckpoints, saveCheckpoint, maxBatchSize,
        lineageColumns, quarantineBadFiles, onOverwrite, maxBatchBytes, datetimeRebase, Optional.empty());
  }

  /** A section with the default {@link DatetimeRebase#CORRECTED}. */
  public Extract(String path, Format format, Map<String, String> options, boolean recursiveFileLookup,
      BatchFile batchFile, int keepCheckpoints, boolean saveCheckpoint, int maxBatchSize,
      List<LineageColumn> lineageColumns, boolean quarantineBadFiles, OnOverwrite onOverwrite,
      OptionalLong maxBatchBytes) {
    this(path, format, options, recursiveFileLookup, batchFile, keepCheckpoints, saveCheckpoint, maxBatchSize,
        lineageColumns, quarantineBadFiles, onOverwrite, maxBatchBytes, DatetimeRebase.CORRECTED);
  }

  /** A section without a byte cap on batches. */
  public Extract(String path, Format format, Map<String, String> options, boolean recursiveFileLookup,
      BatchFile batchFile, int keepCheckpoints, boolean saveCheckpoint, int maxBatchSize,
      List<LineageColumn> lineageColumns, boolean quarantineBadFiles, OnOverwrite onOverwrite) {
    this(path, format, options, recursiveFileLookup, batchFile, keepCheckpoints, saveCheckpoint, maxBatchSize,
        lineageColumns, quarantineBadFiles, onOverwrite, OptionalLong.empty());
  }

  /**
   * Whether every batcher run lists the table's files from storage instead of claiming them from
   * the ledger: mode {@code full}, and backfills ({@code save-checkpoint = false}). The listener
   * records nothing for such a table.
   */
  public boolean listsStorage() {
    return !batchFile.ingestionType().checkpoints() || !saveCheckpoint;
  }

  /** This section with {@code extract.on-overwrite} resolved. */
  public Extract withOnOverwrite(OnOverwrite resolved) {
    return new Extract(path, format, options, recursiveFileLookup, batchFile, keepCheckpoints, saveCheckpoint,
        maxBatchSize, lineageColumns, quarantineBadFiles, resolved, maxBatchBytes, datetimeRebase, timeZone,
        schemaHints, inferColumnTypes);
  }

  /**
   * {@code extract.datetime-rebase}: how a Parquet or Avro file's dates and timestamps before
   * 1582-10-15 are read when the file does not say which calendar wrote them. Spark's files say
   * (Spark 2's legacy metadata is rebased, Spark 3's is not, whatever this says); modern writers
   * (DuckDB, Arrow, Trino, Spark 3) write proleptic Gregorian values, which {@code corrected} reads
   * as written. {@code legacy} is for an old Hive writer's files, written in the hybrid
   * Julian-Gregorian calendar without metadata. Spark's per-read options {@code datetimeRebaseMode}
   * and {@code int96RebaseMode} ({@link #sparkMode}). Codes are what profiles spell.
   */
  public enum DatetimeRebase {
    /** Read values as written: proleptic Gregorian, as Iceberg stores them. */
    CORRECTED("corrected"),
    /** Rebase from the hybrid Julian-Gregorian calendar of Spark 2 and Hive. */
    LEGACY("legacy");

    private final String code;

    DatetimeRebase(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    /** Spark's name of the mode ({@code CORRECTED}, {@code LEGACY}). */
    public String sparkMode() {
      return name();
    }
  }

  /**
   * {@code extract.on-overwrite}: what a rewritten object (a new generation of an object whose
   * older generation is loaded) does, as Auto Loader's {@code allowOverwrites}. Codes are what
   * profiles spell.
   */
  public enum OnOverwrite {
    /** The new generation is left out, IGNORED: an Append table keeps the rows it has, once. */
    IGNORE("ignore"),
    /** The new generation is loaded: a MERGE updates the keys, an Overwrite replaces the partition. */
    RELOAD("reload");

    private final String code;

    OnOverwrite(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** A column the job adds to every row, saying where the row came from. Codes are the names. */
  public enum LineageColumn {
    /** The URI of the object the row was read from. */
    SOURCE_FILE("_source_file"),
    /** The GCS generation of that object. */
    SOURCE_GENERATION("_source_generation"),
    /** The id of the batch that loaded the row. */
    BATCH_ID("_batch_id"),
    /** When the batch that loaded the row ran. */
    INGESTED_AT("_ingested_at");

    private final String code;

    LineageColumn(String code) {
      this.code = code;
    }

    /** The column's name. */
    public String code() {
      return code;
    }
  }

  /** The formats the job can read. Codes are what profiles spell. */
  public enum Format {
    PARQUET("parquet"),
    ORC("orc"),
    AVRO("avro"),
    JSON("json"),
    CSV("csv");

    private final String code;

    Format(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }
}
