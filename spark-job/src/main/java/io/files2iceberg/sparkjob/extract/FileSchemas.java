package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.core.profile.Extract.Format;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.Footer;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat$;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFooterReader;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.types.StructType;

/**
 * Each file's own schema, as Spark's reader gives it for that file alone, found for all the
 * batch's files at once on a few threads of the driver.
 *
 * <p>Parquet: the footer is read directly and converted as Spark converts it (Spark's own schema
 * inference runs a Spark job per read); no Spark job. ORC and Avro: Spark's reader reads the
 * file's header on the driver; no Spark job. JSON and CSV have no schema but their lines: Spark
 * infers it with one job per file, and these jobs run side by side.
 *
 * <p>A file that cannot be opened is an {@link Outcome.Unreadable}; network trouble, which says
 * nothing about the file, is an {@link Outcome.Failed} (retried, never quarantined).
 */
final class FileSchemas {
  private FileSchemas() {}

  /** What opening one file gave. */
  sealed interface Outcome {
    /** The file's schema, nullable as Spark makes a file source's. */
    record Read(StructType schema) implements Outcome {}

    /** The file cannot be read as it is; the reason is the reader's own words. */
    record Unreadable(String reason) implements Outcome {}

    /** A transient error: the batch fails and can be retried. */
    record Failed(RuntimeException error) implements Outcome {}
  }

  /** Opens every file; the outcomes are in the order of {@code files}. */
  static List<Outcome> read(SparkSession spark, Extract extract, List<ManifestFile> files) {
    if (files.isEmpty()) {
      return List.of();
    }
    Opener opener = opener(spark, extract);
    return StorageCalls.each(files, "file schemas", file -> open(opener, file));
  }

  private static Outcome open(Opener opener, ManifestFile file) {
    try {
      return new Outcome.Read(opener.schema(file.readUri()).asNullable());
    } catch (Exception e) {
      if (isTransient(e)) {
        return new Outcome.Failed(new IllegalStateException("Cannot read file " + file.described()
            + " (a transient error;"
            + " it is not quarantined and the batch can be retried): " + FilesExtract.reason(e), e));
      }
      return new Outcome.Unreadable(FilesExtract.reason(e));
    }
  }

  @FunctionalInterface
  private interface Opener {
    StructType schema(String uri) throws Exception;
  }

  private static Opener opener(SparkSession spark, Extract extract) {
    if (extract.format() == Format.PARQUET) {
      Configuration conf = ExtractReaders.hadoopConf(spark, extract);
      ParquetToSparkSchemaConverter converter = new ParquetToSparkSchemaConverter(spark.sessionState().conf());
      return uri -> {
        Path path = new Path(uri);
        ParquetMetadata footer = ParquetFooterReader.readFooter(conf, path, ParquetMetadataConverter.SKIP_ROW_GROUPS);
        return ParquetFileFormat$.MODULE$.readSchemaFromFooter(new Footer(path, footer), converter);
      };
    }
    return uri -> ExtractReaders.reader(spark, extract).load(uri).schema();
  }

  /** Network trouble says nothing about the file: such a failure is retried, never quarantined. */
  static boolean isTransient(Throwable error) {
    for (Throwable t = Objects.requireNonNull(error); t != null; t = t.getCause()) {
      if (t instanceof java.net.SocketException || t instanceof java.net.UnknownHostException
          || t instanceof java.net.ConnectException || t instanceof java.io.InterruptedIOException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
