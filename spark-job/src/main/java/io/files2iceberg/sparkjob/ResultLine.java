package io.files2iceberg.sparkjob;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The result line of a main the batcher launches ({@code maintain}, {@code rollback}, {@code
 * drop-partition}), written to {@code --result} for a caller that cannot read the driver's stdout
 * (Dataproc keeps it in a bucket): one object on {@code gs://}, through Hadoop's file system as
 * the job's own files are.
 */
public final class ResultLine {
  private ResultLine() {}

  public static void write(String uri, String line) throws IOException {
    Path path = new Path(uri);
    FileSystem fs = path.getFileSystem(JobHadoopConf.current());
    try (OutputStream stream = fs.create(path, true)) {
      stream.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }
}
