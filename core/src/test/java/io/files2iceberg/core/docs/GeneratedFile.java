package io.files2iceberg.core.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A committed file that the code generates (a reference page, the profile schema): the one check
 * that the committed file is what the code generates now, and the one switch that rewrites it.
 */
public final class GeneratedFile {
  /** The system property that rewrites every generated file instead of comparing it. */
  public static final String REGENERATE = "files2iceberg.docs.regenerate";

  private GeneratedFile() {}

  /**
   * Rewrites the file with {@code -Dfiles2iceberg.docs.regenerate=true}; then asserts that it holds
   * exactly what was generated, naming the file and how to regenerate it.
   *
   * @param generator what generates it, for the failure message
   * @param regenerate the command that regenerates it
   * @return the committed text
   */
  public static String assertCommitted(Path file, String generated, String generator, String regenerate)
      throws IOException {
    if (Boolean.getBoolean(REGENERATE)) {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, generated, StandardCharsets.UTF_8);
    }
    String committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    assertThat(committed)
        .as("%s is not what %s generates; regenerate it with %s", file, generator, regenerate)
        .isEqualTo(generated);
    return committed;
  }
}
