package io.files2iceberg.sparkjob.extract;

import com.google.cloud.hadoop.fs.gcs.GoogleHadoopFileSystem;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;

/**
 * The GCS connector 4.0.4 on Spark 3.5's Hadoop 3.3.4 client: the connector's {@code openFile}
 * builder uses {@code Options.OpenFileOptions}, which Hadoop 3.3.4 lacks, so every reader that opens
 * through the builder (CSV, JSON and text: {@code LineRecordReader}) fails with a {@code
 * NoClassDefFoundError}. This opens those files with {@code open(path, bufferSize)}, as Hadoop's own
 * {@code FileSystem.openFileWithOptions} does; Parquet, which calls {@code open}, is unaffected.
 * Dataproc's runtimes pair their connector with a Hadoop that has the class: tests only.
 */
public class GoogleHadoopFileSystemWithoutOpenFile extends GoogleHadoopFileSystem {
  @Override
  public CompletableFuture<FSDataInputStream> openFileWithOptions(Path path, OpenFileParameters parameters)
      throws IOException {
    CompletableFuture<FSDataInputStream> opened = new CompletableFuture<>();
    try {
      opened.complete(open(path, parameters.getBufferSize()));
    } catch (IOException | RuntimeException e) {
      opened.completeExceptionally(e);
    }
    return opened;
  }
}
