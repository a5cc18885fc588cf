package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.core.profile.Extract.Format;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.SparkSession;

/**
 * The one reader of a table's files: its format and the profile's reader options. Every read of
 * the batch's files (their schemas, their rows, one at a time to find a bad one) starts here, so
 * they all read a file alike.
 *
 * <p>The paths it is given are literal object names, never patterns: Spark's file sources take
 * each path for a glob ({@code [ ] { } * ?} and {@code \\}) unless told otherwise, and an object
 * named {@code orders[1].parquet} is then "not found", or stands for other files. Its option
 * {@value #GLOB_PATHS} = false (Spark's {@code DataSource.GLOB_PATHS_KEY}, which its own
 * streaming file source sets) reads each path as the one file it names.
 *
 * <p>Local files are read through Hadoop's raw local file system, as the reader's Hadoop options
 * ({@link #HADOOP}): the default one looks for a checksum file {@code .<name>.crc} beside each
 * file, a path Hadoop cannot even make for a name with a colon ({@code a:b.json}). The landing
 * folder has no checksum files. Options, not session settings: the warm driver's session is
 * shared.
 *
 * <p>Parquet and Avro dates and timestamps before 1582-10-15 are read in the profile's {@code
 * extract.datetime-rebase} mode ({@link #rebaseOptions}), per read for the same reason: Spark's
 * session default, {@code EXCEPTION}, fails on such a value from any writer but Spark.
 */
final class ExtractReaders {
  /** Spark's file-source option that turns globbing of the load paths off. */
  static final String GLOB_PATHS = "__globPaths__";

  /** The Hadoop settings of every read of the batch's files (a file source passes its options to Hadoop). */
  static final Map<String, String> HADOOP = Map.of(
      "fs.file.impl", RawLocalFileSystem.class.getName(),
      "fs.file.impl.disable.cache", "true");

  private ExtractReaders() {}

  static DataFrameReader reader(SparkSession spark, Extract extract) {
    return spark.read().format(extract.format().code()).options(HADOOP).options(rebaseOptions(extract))
        .options(timeZoneOptions(extract)).options(typeOptions(extract)).options(extract.options())
        .option(GLOB_PATHS, "false");
  }

  /**
   * The reader options of {@code extract.infer-column-types} for the text formats: csv's {@code
   * inferSchema}, json's {@code primitivesAsString} (its reader infers numbers and booleans unless
   * told not to). An option of the same name in {@code extract.options} comes after and wins.
   * Schema hints are applied after the read, as casts, so that a value that does not convert is a
   * bad record with its file, never a silent NULL.
   */
  static Map<String, String> typeOptions(Extract extract) {
    String infer = String.valueOf(extract.inferColumnTypes());
    return switch (extract.format()) {
      case CSV -> Map.of("inferSchema", infer);
      case JSON -> Map.of("primitivesAsString", String.valueOf(!extract.inferColumnTypes()));
      default -> Map.of();
    };
  }

  /**
   * The reader option of {@code extract.timezone} for the text formats, whose readers parse
   * zone-less timestamps in it ({@code timeZone}); per read, as the session is shared. A {@code
   * timeZone} in {@code extract.options} comes after and wins.
   */
  static Map<String, String> timeZoneOptions(Extract extract) {
    return switch (extract.format()) {
      case CSV, JSON -> extract.timeZone().map(zone -> Map.of("timeZone", zone.getId())).orElse(Map.of());
      default -> Map.of();
    };
  }

  /**
   * The reader options of {@code extract.datetime-rebase}: Parquet's {@code datetimeRebaseMode}
   * (DATE, TIMESTAMP_MILLIS/MICROS) and {@code int96RebaseMode} (INT96), Avro's {@code
   * datetimeRebaseMode}; none for the other formats (ORC, JSON and CSV have no such mode). The
   * profile's own {@code extract.options} come after, so a reader option set there wins.
   */
  static Map<String, String> rebaseOptions(Extract extract) {
    String mode = extract.datetimeRebase().sparkMode();
    return switch (extract.format()) {
      case PARQUET -> Map.of("datetimeRebaseMode", mode, "int96RebaseMode", mode);
      case AVRO -> Map.of("datetimeRebaseMode", mode);
      default -> Map.of();
    };
  }

  /** The Hadoop configuration of a read outside Spark's readers (Parquet footers): the session's, with {@link #HADOOP}. */
  static Configuration hadoopConf(SparkSession spark, Extract extract) {
    Configuration conf = spark.sessionState().newHadoopConf();
    HADOOP.forEach(conf::set);
    extract.options().forEach(conf::set);
    return conf;
  }

  /** json and csv put lines they cannot parse in this column (Spark's PERMISSIVE mode). */
  static Optional<String> corruptRecordColumn(SparkSession spark, Extract extract) {
    if (extract.format() != Format.JSON && extract.format() != Format.CSV) {
      return Optional.empty();
    }
    String name = extract.options().get("columnNameOfCorruptRecord");
    if (name == null) {
      name = spark.conf().get("spark.sql.columnNameOfCorruptRecord", "_corrupt_record");
    }
    return Optional.of(name);
  }
}
