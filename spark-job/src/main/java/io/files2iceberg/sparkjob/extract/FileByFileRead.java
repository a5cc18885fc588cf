package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.ClassifiedFailure;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the batch file a read error is about, so that the job can quarantine it and read the batch
 * again without it. When the error does not name the file, reads the files one at a time, each whole
 * (every column, every row, written nowhere), as the batch's read reads them. Runs only after a
 * batch's read failed with a reader's error and {@code extract.quarantine-bad-files} is on: one
 * Spark job per file.
 */
public final class FileByFileRead {
  private static final Logger LOG = LoggerFactory.getLogger(FileByFileRead.class);

  private FileByFileRead() {}

  /**
   * With {@code extract.quarantine-bad-files}, the batch file a deterministic read error is about
   * (a corrupt page behind a valid footer shows only when the rows are read): the file the error
   * names, else the first that fails when the files are read one at a time. Empty when the error is
   * not such, or the file is not one of the batch's own (one an Overwrite reads again).
   */
  public static Optional<QuarantinedFile> corruptBatchFile(SparkSession spark, LoadBatch batch, Exception error,
      List<QuarantinedFile> setAside) {
    if (!batch.profile().extract().quarantineBadFiles() || error instanceof BatchFailedException) {
      return Optional.empty();
    }
    ClassifiedFailure classified = ClassifiedFailure.of(error, batch.filesToRead());
    if (!classified.isDeterministic() || !ClassifiedFailure.isReadError(error)) {
      return Optional.empty();
    }
    List<String> aside = setAside.stream().map(QuarantinedFile::fileId).toList();
    List<ManifestFile> candidates = batch.filesToRead().stream().filter(f -> !aside.contains(f.fileId())).toList();
    Optional<ManifestFile> file = classified.cause().file()
        .flatMap(uri -> candidates.stream().filter(f -> f.uri().equals(uri)).findFirst())
        .or(() -> firstUnreadable(spark, batch.profile().extract(), candidates));
    return file.filter(batch::isBatchFile)
        .map(f -> new QuarantinedFile(f.fileId(), f.uri(), FilesExtract.reason(error)));
  }

  /** The first of {@code files} whose read fails with a reader's error ({@link ClassifiedFailure#isReadError}). */
  static Optional<ManifestFile> firstUnreadable(SparkSession spark, Extract extract, List<ManifestFile> files) {
    for (ManifestFile file : files) {
      try {
        ExtractReaders.reader(spark, extract).load(file.readUri())
            .write().format("noop").mode("overwrite").save();
      } catch (Exception e) {
        if (ClassifiedFailure.isReadError(e)) {
          LOG.info("File {} cannot be read on its own: {}", file.described(), FilesExtract.reason(e));
          return Optional.of(file);
        }
        LOG.info("File {} read on its own failed otherwise; not taken as the file at fault: {}", file.described(),
            FilesExtract.reason(e));
      }
    }
    return Optional.empty();
  }
}
