package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.sparkjob.stage.ClassifiedFailure;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the file a read error is about when the error does not name it: reads the files one at a
 * time, each whole (every column, every row, written nowhere), as the batch's read reads them. Runs
 * only after a batch's read failed with a reader's error and {@code extract.quarantine-bad-files}
 * is on: one Spark job per file.
 */
public final class FileByFileRead {
  private static final Logger LOG = LoggerFactory.getLogger(FileByFileRead.class);

  private FileByFileRead() {}

  /** The first of {@code files} whose read fails with a reader's error ({@link ClassifiedFailure#isReadError}). */
  public static Optional<ManifestFile> firstUnreadable(SparkSession spark, Extract extract, List<ManifestFile> files) {
    for (ManifestFile file : files) {
      try {
        ExtractReaders.reader(spark, extract).load(file.uri())
            .write().format("noop").mode("overwrite").save();
      } catch (Exception e) {
        if (ClassifiedFailure.isReadError(e)) {
          LOG.info("File {} cannot be read on its own: {}", file.uri(), FilesExtract.reason(e));
          return Optional.of(file);
        }
        LOG.info("File {} read on its own failed otherwise; not taken as the file at fault: {}", file.uri(),
            FilesExtract.reason(e));
      }
    }
    return Optional.empty();
  }
}
