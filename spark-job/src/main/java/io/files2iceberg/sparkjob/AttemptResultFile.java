package io.files2iceberg.sparkjob;

import io.files2iceberg.core.manifest.AtomicFile;
import io.files2iceberg.core.manifest.AttemptResult;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Writes an {@link AttemptResult} where the manifest is, in one step a reader never sees half
 * done: a local file (a plain path or {@code file:}) as a temp file renamed over it; any other
 * scheme through Hadoop's file system, as the manifest was read ({@code gs://} on Dataproc, whose
 * connector makes the object visible whole when the stream closes: one object put).
 */
final class AttemptResultFile {
  private AttemptResultFile() {}

  static void write(String location, AttemptResult result) throws IOException {
    byte[] json = result.toJson().getBytes(StandardCharsets.UTF_8);
    if (location.startsWith("file:") || !location.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      java.nio.file.Path file = location.startsWith("file:")
          ? java.nio.file.Path.of(URI.create(location))
          : java.nio.file.Path.of(location);
      Files.createDirectories(file.toAbsolutePath().getParent());
      AtomicFile.replace(file, json);
      return;
    }
    Path path = new Path(location);
    FileSystem fs = path.getFileSystem(JobHadoopConf.current());
    try (OutputStream out = fs.create(path, true)) {
      out.write(json);
    }
  }
}
