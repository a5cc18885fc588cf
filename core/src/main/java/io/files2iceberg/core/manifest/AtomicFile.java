package io.files2iceberg.core.manifest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a local file in one step a reader never sees half done: a temp file beside it, renamed
 * over it atomically. A reader finds the old content or the new, never a part.
 */
public final class AtomicFile {
  private AtomicFile() {}

  /** Replaces (or creates) the file with this content; its folder must exist. */
  public static void replace(Path file, byte[] content) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    Path temp = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
    try {
      Files.write(temp, content);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** {@link #replace(Path, byte[])} of UTF-8 text. */
  public static void replace(Path file, String content) throws IOException {
    replace(file, content.getBytes(StandardCharsets.UTF_8));
  }
}
